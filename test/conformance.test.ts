/**
 * The conformance suite: every registered learner, whatever it is, must pass
 * these checks (as scikit-learn's `check_estimator` runs over estimators). A
 * learner that lands later passes them by being registered.
 *
 * 1. its gradient is right: a loop learner's weights equal finite differences
 *    of its own batch risk; a direct learner's fit is a stationary point of its
 *    own objective — or, for a stochastic direct learner (one that declares
 *    `gradient`), its gradient equals finite differences of its objective at
 *    random coefficients (a deliberately broken one fails) and its fit lowers
 *    the objective;
 * 2. the same model bytes at 1 and 2 threads, with the worker pool proven used;
 *    a loop learner's run stopped at t and continued to T (`train({ init })`,
 *    through a saved file, on 2 threads) is the same bytes as one run to T;
 * 3. save → load → save is the same bytes, and the loaded model scores the same;
 * 4. every bad parameter value is a UsageError naming the option, from a
 *    script and from the command line (exit 2, before any data is read);
 * 5. a quality floor on bundled data of the learner's task.
 *
 * Every learner that declares `features` repeats 2 and 3 with each structured
 * family (orf, sorf), plus sample on read against in memory, and refuses a
 * structured family with the Laplacian kernel. sorf runs with m = 5 on the
 * 30 columns (N = 32): six blocks share a group, so chunks of 4 blocks and the
 * continuation at block 25 start inside a group.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { LEARNERS, resolveParams, resolveStep, withDataDefaults, type LearnerSpec, type StepSize } from '../src/api.ts';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../src/train/train.ts';
import { main } from '../src/cli/main.ts';
import { readDataset, splitDataset, writeArrow, type Dataset } from '../src/data/index.ts';
import { MinMaxScaler } from '../src/data/scaler.ts';
import { poolTasksCompleted } from '../src/engine/pool.ts';
import { UsageError } from '../src/errors.ts';
import { cliName, type ParamSpec } from '../src/learners/params.ts';
import { Model } from '../src/model/model.ts';
import { taskClasses } from '../src/model/task.ts';

const dir = mkdtempSync(join(tmpdir(), 'dsgkit-conformance-'));

/** Bundled data per task, with the floor every learner of that task must reach at the small settings below. */
const DATA = {
  binary: { path: 'data/breast_cancer.arrow', labeled: 100, floor: 0.9 },
  ordinal: { path: 'data/diabetes.arrow', labeled: 200, floor: 0.7 },
} as const;

/** Small run settings, for the parameters a learner declares. */
function small(spec: LearnerSpec): Record<string, number> {
  const wanted: Record<string, number> = { T: 60, m: 16, batchSize: 16, seed: 3 };
  return Object.fromEntries(Object.entries(wanted).filter(([k]) => k in spec.params));
}

const splits = new Map<string, { train: Dataset; test: Dataset }>();
async function split(spec: LearnerSpec): Promise<{ train: Dataset; test: Dataset }> {
  const d = DATA[spec.task];
  if (!splits.has(d.path)) {
    const s = splitDataset(await readDataset(d.path), { labeled: d.labeled, test: 0.2, seed: 1 });
    splits.set(d.path, { train: s.train, test: s.test! });
  }
  return splits.get(d.path)!;
}

/** Values a parameter declaration must refuse. */
function badValues(spec: ParamSpec): unknown[] {
  if (spec.kind === 'choice') return ['no-such-choice', 42];
  const out: unknown[] = ['abc', NaN, Infinity];
  if (spec.min !== undefined) out.push(spec.openMin ? spec.min : spec.min - 1);
  if (spec.max !== undefined) out.push(spec.openMax ? spec.max : spec.max * 10 + 1);
  if (spec.kind === 'number' && spec.integer) out.push((spec.min ?? 0) + 1.5);
  if (spec.kind === 'numbers') out.push([0.5, 'abc']);
  return out;
}

/** Largest relative error {@link gradientMismatch} accepts. */
const GRADIENT_TOLERANCE = 1e-6;

/**
 * Largest relative error between `grad(c)·e` and the central difference of `J`
 * along `e`, over random coefficient vectors near the fit's scale and, at each,
 * every coordinate direction among the first ones plus random directions.
 */
function gradientMismatch(J: (c: Float64Array) => number, grad: (c: Float64Array) => Float64Array, fit: Float64Array, rng: () => number): number {
  const scale = Math.max(1e-3, ...Array.from(fit, Math.abs));
  let worst = 0;
  for (let k = 0; k < 3; k++) {
    const at = Float64Array.from(fit, () => scale * (2 * rng() - 1));
    const g = grad(at);
    const directions = [
      ...Array.from({ length: Math.min(4, at.length) }, (_, i) => Float64Array.from(at, (_, j) => (j === i ? 1 : 0))),
      ...Array.from({ length: 3 }, () => Float64Array.from(at, () => 2 * rng() - 1)),
    ];
    for (const v of directions) {
      const h = 1e-6 / Math.max(1, Math.sqrt(v.reduce((a, x) => a + x * x, 0)));
      const numeric = (J(at.map((x, i) => x + h * v[i])) - J(at.map((x, i) => x - h * v[i]))) / (2 * h);
      const analytic = g.reduce((a, x, i) => a + x * v[i], 0);
      worst = Math.max(worst, Math.abs(analytic - numeric) / (1e-3 + Math.abs(numeric)));
    }
  }
  return worst;
}

describe.each(LEARNERS.map((spec) => [spec.name, spec] as const))('learner %s conforms', (_name, spec) => {
  it('has a gradient that matches finite differences of its own objective', async () => {
    const { train: tr } = await split(spec);
    const ds = MinMaxScaler.fit(tr).transform(tr);
    const classes = taskClasses(spec.task, ds);
    const params = withDataDefaults(spec, resolveParams(spec, small(spec)), ds);
    const rng = seedrandom.alea('conformance');
    if (spec.kind === 'loop') {
      const learner = spec.create(ds, classes, params, resolveStep(spec, params, {})!);
      let batch = learner.sample(rng, 1);
      for (let t = 1; t <= 3; t++) {
        const f = Float64Array.from({ length: batch.nPoints }, () => 2 * rng() - 1);
        const w = new Float64Array(batch.nPoints);
        learner.weights(f, w, batch);
        // The loop draws batch t + 1 while it still needs batch t: batch t's points, rows and
        // weights must come through the next draw unchanged (and the risk below is taken after it).
        const X = batch.X.slice(0, batch.nPoints * ds.d);
        const rows = batch.rows.slice(0, batch.nPoints);
        const following = learner.sample(rng, t + 1);
        expect(batch.X.subarray(0, X.length), `batch ${t}'s points after drawing batch ${t + 1}`).toEqual(X);
        expect(batch.rows.subarray(0, rows.length), `batch ${t}'s rows after drawing batch ${t + 1}`).toEqual(rows);
        const again = new Float64Array(batch.nPoints);
        learner.weights(f, again, batch);
        expect(again, `batch ${t}'s weights after drawing batch ${t + 1}`).toEqual(w);
        const h = 1e-6;
        let checked = 0;
        for (let p = 0; p < batch.nPoints; p += Math.max(1, Math.floor(batch.nPoints / 12))) {
          const up = f.slice();
          const down = f.slice();
          up[p] += h;
          down[p] -= h;
          const numeric = (learner.risk(up, batch) - learner.risk(down, batch)) / (2 * h);
          expect(Math.abs(w[p] - numeric), `point ${p} at t = ${t}: weight ${w[p]}, finite difference ${numeric}`).toBeLessThan(1e-6 * (1 + Math.abs(numeric)));
          checked++;
        }
        expect(checked).toBeGreaterThan(5);
        batch = following;
      }
    } else {
      const fitted = await spec.fit({ rows: ds, classes, params, engine: { threads: 1 } });
      const J = spec.objective({ ds, classes, params }, fitted.predictor);
      const c = spec.coefficients(fitted.predictor);
      if (spec.gradient) {
        // A stochastic learner: its gradient agrees with finite differences of its own
        // objective at random coefficients (and a broken one does not), and its fit lowers J.
        const grad = spec.gradient({ ds, classes, params }, fitted.predictor);
        expect(gradientMismatch(J, grad, c, rng), 'gradient against finite differences of the objective').toBeLessThan(GRADIENT_TOLERANCE);
        const broken = (x: Float64Array) => grad(x).map((g, i) => (i === 0 ? g * 1.001 + 1e-4 : g));
        expect(gradientMismatch(J, broken, c, rng), 'a deliberately broken gradient is caught').toBeGreaterThan(GRADIENT_TOLERANCE);
        expect(J(c), 'the fit lowers the objective').toBeLessThan(J(new Float64Array(c.length)));
        return;
      }
      // Directional derivatives along random directions: ~0 at the fit, far from 0 at c = 0.
      const slope = (at: Float64Array, v: Float64Array, h = 1e-5) => {
        const up = at.map((x, i) => x + h * v[i]);
        const down = at.map((x, i) => x - h * v[i]);
        return (J(up) - J(down)) / (2 * h);
      };
      for (let k = 0; k < 3; k++) {
        const v = Float64Array.from(c, () => 2 * rng() - 1);
        const atZero = Math.abs(slope(new Float64Array(c.length), v));
        expect(atZero).toBeGreaterThan(1e-3);
        expect(Math.abs(slope(c, v)), 'directional derivative at the fit').toBeLessThan(1e-5 * atZero);
      }
    }
  }, 120_000);

  it('trains the same model bytes on 1 and 2 threads, the worker pool proven used', async () => {
    const { train: tr, test } = await split(spec);
    const opts = { learner: spec.name, data: tr, ...small(spec), parallelMinWork: 0, onWarning: () => {} };
    const one = await train({ ...opts, threads: 1 });
    const before = poolTasksCompleted();
    const two = await train({ ...opts, threads: 2 });
    expect(poolTasksCompleted()).toBeGreaterThan(before);
    expect(Buffer.from(two.toBytes()).equals(Buffer.from(one.toBytes()))).toBe(true);
    expect(Array.from(await two.decisionFunction(test, { threads: 2, parallelMinWork: 0 }))).toEqual(Array.from(await one.decisionFunction(test, { threads: 1 })));
  }, 120_000);

  it.runIf(spec.kind === 'loop')('continues a saved run to the same bytes as running at once (0 → 25 → 60 = 0 → 60), or refuses it saying the default step depends on T', async () => {
    const { train: tr } = await split(spec);
    const opts = { learner: spec.name, data: tr, ...small(spec), threads: 1 };
    const first = await train({ ...opts, T: 25 });
    expect(first.header.resume?.t).toBe(25);
    const path = join(dir, `${spec.name}-25.dsg`);
    await first.save(path);
    const direct = await train(opts);
    const continued = train({ init: path, data: tr, T: 60, threads: 2, parallelMinWork: 0 });
    if ('defaultStepHorizon' in spec) {
      // A default step that depends on T (TSGS3VM's θ/T^{3/4}) differs at every step from the run to 60's: refused, with the reason.
      await expect(continued).rejects.toThrow(/default for T = 25, and that default depends on T/);
    } else {
      expect(Buffer.from((await continued).toBytes()).equals(Buffer.from(direct.toBytes()))).toBe(true);
    }
    // With the step given, every learner continues to the bytes of the run at once.
    const step = { kind: 'decay', eta0: 0.3, eta1: 0.01 } as const;
    const givenFirst = await train({ ...opts, T: 25, step });
    const givenDirect = await train({ ...opts, step });
    const givenContinued = await train({ init: givenFirst, data: tr, T: 60, threads: 2, parallelMinWork: 0 });
    expect(Buffer.from(givenContinued.toBytes()).equals(Buffer.from(givenDirect.toBytes()))).toBe(true);
    // A run with another seed differs, so the comparison can fail.
    const other = await train({ ...opts, seed: 4 });
    expect(Buffer.from(other.toBytes()).equals(Buffer.from(direct.toBytes()))).toBe(false);
  });

  it.runIf(spec.kind === 'loop' && 'average' in spec.params)('averages: the suffix model is the mean of the iterates of the last half, and continues to the bytes of a run at once', async () => {
    const { train: tr, test } = await split(spec);
    const opts = { learner: spec.name, data: tr, ...small(spec), threads: 1, onWarning: () => {} };
    const T = small(spec).T;
    // Every iterate f_t (t = 1…T) of one run, each without its bias, at the test rows.
    const iterates: Float64Array[] = [];
    const withoutBias = async (m: Model) => {
      const f = await m.decisionFunction(test, { threads: 1 });
      const b = m.header.predictor.kind === 'random-features' ? (m.header.predictor.bias ?? 0) : 0;
      return f.map((v) => v - b);
    };
    const last = await train({ ...opts, average: 'none', checkpointEvery: 1, onCheckpoint: async (m: Model) => void iterates.push(await withoutBias(m)) });
    iterates.push(await withoutBias(last));
    expect(iterates).toHaveLength(T);
    const averaged = await train({ ...opts, average: 'suffix' });
    expect(averaged.header.predictor).toMatchObject({ average: { from: T / 2 + 1 } });
    const fAvg = await withoutBias(averaged);
    const suffix = iterates.slice(T / 2);
    let gap = 0;
    let spread = 0;
    for (let p = 0; p < test.n; p++) {
      const mean = suffix.reduce((a, f) => a + f[p], 0) / suffix.length;
      gap = Math.max(gap, Math.abs(fAvg[p] - mean));
      spread = Math.max(spread, Math.abs(iterates[T - 1][p] - mean));
    }
    expect(gap, 'averaged f against the mean of iterates T/2+1…T').toBeLessThan(1e-9 * (1 + spread));
    expect(spread, 'the mean differs from the last iterate (so the comparison can fail)').toBeGreaterThan(1e-6);
    // Continued 0 → 25 → 60 through a file: the same bytes as the averaged run to 60 at once.
    // A default step that depends on T is not continued (refused, above): such a learner gets its step explicitly.
    const given = 'defaultStepHorizon' in spec ? { step: { kind: 'constant', eta: 0.02 } as StepSize } : {};
    const first = await train({ ...opts, ...given, average: 'suffix', T: 25 });
    const direct = await train({ ...opts, average: 'suffix', step: first.header.hyperparameters.step as StepSize });
    const path = join(dir, `${spec.name}-avg-25.dsg`);
    await first.save(path);
    const continued = await train({ init: path, data: tr, T, threads: 2, parallelMinWork: 0, onWarning: () => {} });
    expect(Buffer.from(continued.toBytes()).equals(Buffer.from(direct.toBytes()))).toBe(true);
  }, 120_000);

  it('round-trips through its model file bit for bit and scores the same after loading', async () => {
    const { train: tr, test } = await split(spec);
    const model = await train({ learner: spec.name, data: tr, ...small(spec), threads: 1, onWarning: () => {} });
    const path = join(dir, `${spec.name}.dsg`);
    await model.save(path);
    const { load } = await import('../src/api.ts');
    const again = await load(path);
    expect(Buffer.from(again.toBytes()).equals(Buffer.from(model.toBytes()))).toBe(true);
    expect(Array.from(await again.decisionFunction(test, { threads: 1 }))).toEqual(Array.from(await model.decisionFunction(test, { threads: 1 })));
    expect(again.header.learner).toBe(spec.name);
    expect(Model.fromBytes(again.toBytes()).task).toEqual(model.task);
  }, 120_000);

  it('refuses every bad parameter value with a UsageError naming the option, from a script and from the command line', async () => {
    const { train: tr } = await split(spec);
    for (const [key, param] of Object.entries(spec.params)) {
      for (const bad of badValues(param)) {
        const err = await train({ learner: spec.name, data: tr, [key]: bad, threads: 1 }).then(() => undefined, (e: unknown) => e);
        expect(err, `${key} = ${String(bad)} accepted`).toBeInstanceOf(UsageError);
        expect((err as Error).message).toMatch(new RegExp(`^${key} must be`));
        let stderr = '';
        const code = await main(['train', '--learner', spec.name, '--data', 'no-such-file.arrow', '--out', join(dir, 'x.dsg'), `--${cliName(key, param)}`, String(bad)], {
          stdout: { write: () => true },
          stderr: { write: (s: string) => ((stderr += s), true) },
        });
        expect(code, `--${cliName(key, param)} ${String(bad)}`).toBe(2);
        expect(stderr).toContain(`--${cliName(key, param)}`);
        expect(stderr).not.toContain('no-such-file'); // refused before any data is read
      }
    }
    const typo = await train({ learner: spec.name, data: tr, lamda: 0.1, threads: 1 }).then(() => undefined, (e: unknown) => e);
    expect(typo).toBeInstanceOf(UsageError);
    expect((typo as Error).message).toMatch(/lamda is not a parameter of/);
  }, 120_000);

  it('declares a tune ranking tune accepts: its own metric or its task ranking metric', () => {
    const ranking = spec.task === 'binary' ? 'auc' : 'mean-auc';
    expect([spec.metric, ranking]).toContain(spec.tuneMetric ?? spec.metric);
  });

  it(`reaches the quality floor on bundled data of its task`, async () => {
    const { train: tr, test } = await split(spec);
    const model = await train({ learner: spec.name, data: tr, ...small(spec), T: 'T' in spec.params ? 200 : undefined, threads: 2, onWarning: () => {} });
    const value = await model.score(test);
    expect(value, `${spec.metric} on ${DATA[spec.task].path}`).toBeGreaterThanOrEqual(DATA[spec.task].floor);
  }, 120_000);
});

/** Bytes of a model, for equality. */
const bytes = (model: Model) => Buffer.from(model.toBytes());

/** Small settings with a structured family: sorf with blocks that share groups (m = 5: six blocks of a group of 32 rows). */
function smallWith(spec: LearnerSpec, features: 'orf' | 'sorf'): Record<string, number> {
  const s = small(spec);
  return features === 'sorf' && 'm' in s ? { ...s, m: 5 } : s;
}

describe.each(LEARNERS.filter((s) => 'features' in s.params).flatMap((spec) => (['orf', 'sorf'] as const).map((f) => [spec.name, f, spec] as const)))('learner %s with features %s conforms', (_name, features, spec) => {
  it('the same bytes on 1 and 2 threads (pool used), without the frequency store, through save/load, and not the Gaussian model', async () => {
    const { train: tr, test } = await split(spec);
    const opts = { learner: spec.name, data: tr, ...smallWith(spec, features), features, parallelMinWork: 0, onWarning: () => {} };
    const one = await train({ ...opts, threads: 1 });
    expect(one.header.hyperparameters.features).toBe(features);
    const before = poolTasksCompleted();
    const two = await train({ ...opts, threads: 2 });
    expect(poolTasksCompleted()).toBeGreaterThan(before);
    expect(bytes(two).equals(bytes(one))).toBe(true);
    expect(Array.from(await two.decisionFunction(test, { threads: 2, parallelMinWork: 0 }))).toEqual(Array.from(await one.decisionFunction(test, { threads: 1 })));
    const path = join(dir, `${spec.name}-${features}.dsg`);
    await one.save(path);
    const { load } = await import('../src/api.ts');
    const again = await load(path);
    expect(bytes(again).equals(bytes(one))).toBe(true);
    expect(Array.from(await again.decisionFunction(test, { threads: 1 }))).toEqual(Array.from(await one.decisionFunction(test, { threads: 1 })));
    const regenerated = await train({ ...opts, threads: 2, cacheBytes: 0 });
    expect(bytes(regenerated).equals(bytes(one)), 'blocks regenerated on every use (no frequency store) give the same bytes').toBe(true);
    const gaussian = await train({ ...opts, features: 'gaussian', threads: 1 });
    expect('features' in gaussian.header.hyperparameters, 'a Gaussian model records no features key').toBe(false);
    expect(bytes(gaussian).equals(bytes(one))).toBe(false);
  }, 120_000);

  it.runIf(spec.kind === 'loop')('continues a saved run to the same bytes (0 → 25 → 60 = 0 → 60), and samples on read to the in-memory bytes', async () => {
    const { train: tr } = await split(spec);
    // A default step that depends on T is not continued (the test above): such a learner gets its step explicitly.
    const given = 'defaultStepHorizon' in spec ? { step: { kind: 'constant', eta: 0.02 } as StepSize } : {};
    const opts = { learner: spec.name, data: tr, ...smallWith(spec, features), features, threads: 1, ...given };
    const first = await train({ ...opts, T: 25 });
    const direct = await train(opts);
    const path = join(dir, `${spec.name}-${features}-25.dsg`);
    await first.save(path);
    const continued = await train({ init: path, data: tr, T: 60, threads: 2, parallelMinWork: 0, onWarning: () => {} });
    expect(bytes(continued).equals(bytes(direct))).toBe(true);
    const file = join(dir, `${spec.task}.arrow`);
    await writeArrow(file, tr);
    const inMemory = await train({ ...opts, data: file, sampleOnRead: false });
    const sampled = await train({ ...opts, data: file, sampleOnRead: true });
    expect(bytes(sampled).equals(bytes(inMemory))).toBe(true);
  }, 120_000);

  it('refuses the Laplacian kernel with a UsageError naming features', async () => {
    const { train: tr } = await split(spec);
    const err = await train({ learner: spec.name, data: tr, ...smallWith(spec, features), features, kernel: 'laplacian', threads: 1 }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(new RegExp(`^features ${features} needs the rbf kernel`));
  });
});

/** A graph term weight that moves the bundled models (γ_G relative to each learner's own risk scale). */
const GRAPH_WEIGHT = 3;

describe.each(LEARNERS.filter((s) => 'graphWeight' in s.params).map((spec) => [spec.name, spec] as const))('learner %s with its k-NN graph term conforms', (_name, spec) => {
  it('has weights that match finite differences of its batch risk, edge ends included', async () => {
    const { train: tr } = await split(spec);
    const ds = MinMaxScaler.fit(tr).transform(tr);
    const classes = taskClasses(spec.task, ds);
    const params = withDataDefaults(spec, resolveParams(spec, { ...small(spec), graphWeight: GRAPH_WEIGHT }), ds);
    const without = withDataDefaults(spec, resolveParams(spec, small(spec)), ds);
    if (spec.kind !== 'loop') throw new Error(`${spec.name}: the graph term is a loop learner's`);
    const learner = spec.create(ds, classes, params, resolveStep(spec, params, {})!);
    const plain = spec.create(ds, classes, without, resolveStep(spec, without, {})!);
    const rng = seedrandom.alea('conformance-graph');
    const batch = learner.sample(rng, 1);
    const own = plain.sample(seedrandom.alea('conformance-graph'), 1).nPoints;
    expect(batch.nPoints, 'two edge ends per drawn edge after the learner\'s own points').toBe(own + 2 * small(spec).batchSize);
    const f = Float64Array.from({ length: batch.nPoints }, () => 2 * rng() - 1);
    const w = new Float64Array(batch.nPoints);
    learner.weights(f, w, batch);
    const h = 1e-6;
    for (let p = own; p < batch.nPoints; p++) {
      const up = f.slice();
      const down = f.slice();
      up[p] += h;
      down[p] -= h;
      const numeric = (learner.risk(up, batch) - learner.risk(down, batch)) / (2 * h);
      expect(Math.abs(w[p] - numeric), `edge end ${p}: weight ${w[p]}, finite difference ${numeric}`).toBeLessThan(1e-6 * (1 + Math.abs(numeric)));
    }
    expect(w.subarray(own).some((x) => x !== 0), 'the edge ends carry weight').toBe(true);
  });

  it('the same bytes on 1 and 2 threads and continued 0 → 25 → 60; other predictions than without it; refused on sample on read', async () => {
    const { train: tr, test } = await split(spec);
    const given = 'defaultStepHorizon' in spec ? { step: { kind: 'constant', eta: 0.02 } as StepSize } : {};
    const opts = { learner: spec.name, data: tr, ...small(spec), ...given, graphWeight: GRAPH_WEIGHT, parallelMinWork: 0, onWarning: () => {} };
    const one = await train({ ...opts, threads: 1 });
    expect(one.header.hyperparameters.graphWeight).toBe(GRAPH_WEIGHT);
    const two = await train({ ...opts, threads: 2 });
    expect(bytes(two).equals(bytes(one))).toBe(true);
    const first = await train({ ...opts, T: 25, threads: 1 });
    const continued = await train({ init: first, data: tr, T: 60, threads: 2, parallelMinWork: 0, onWarning: () => {} });
    expect(bytes(continued).equals(bytes(one)), 'continued through the graph term').toBe(true);
    const off = await train({ ...opts, graphWeight: 0, threads: 1 });
    expect('graphWeight' in off.header.hyperparameters, 'γ_G = 0 writes no key: the learner\'s own model').toBe(false);
    const fOn = await one.decisionFunction(test, { threads: 1 });
    const fOff = await off.decisionFunction(test, { threads: 1 });
    expect(Array.from(fOn)).not.toEqual(Array.from(fOff));
    const file = join(dir, `${spec.name}-graph.arrow`);
    await writeArrow(file, tr);
    const err = await train({ ...opts, data: file, sampleOnRead: true, threads: 1 }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^graphWeight \(--graph-weight\): the graph term needs every training row in memory/);
  }, 120_000);
});
