/**
 * Continuing a saved random-feature run: training to t and then on to T gives
 * the same model file, bit for bit, as training to T at once — from a script
 * (`train({ init, T })`), from the command line (`--init`), and after a run
 * killed with SIGKILL resumes from its last checkpoint (`--checkpoint-every`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEARNERS, load } from '../src/api.ts';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../src/train/train.ts';
import { main } from '../src/cli/main.ts';
import { readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { writeArrow } from '../src/data/arrow.ts';
import { ModelError, UsageError } from '../src/errors.ts';
import { Model } from '../src/model/model.ts';
import type { StepSize } from '../src/coordinator/step-size.ts';

const dir = mkdtempSync(join(tmpdir(), 'dsgkit-continue-'));
const loop = LEARNERS.filter((l) => l.kind === 'loop');
const small = { m: 16, batchSize: 16, seed: 5, threads: 1 } as const;

let data: Dataset | undefined;
async function trainSet(): Promise<Dataset> {
  data ??= splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 100, seed: 2 }).train;
  return data;
}

let ordinal: Dataset | undefined;
async function ordinalSet(): Promise<Dataset> {
  ordinal ??= splitDataset(await readDataset('data/diabetes.arrow'), { labeled: 200, seed: 2 }).train;
  return ordinal;
}

function bytesOf(model: Model): Buffer {
  return Buffer.from(model.toBytes());
}

// Every loop learner's continuation (script, saved file, 2 threads) is checked by the conformance suite.
describe('train({ init, T }) continues a saved run', () => {
  it('0 → 13 → 40 and 13 → 27 → 40 through a saved file equal 0 → 40, byte for byte', async () => {
    const spec = loop[0];
    const ds = await trainSet();
    const direct = await train({ learner: spec.name, data: ds, ...small, T: 40 });
    const first = await train({ learner: spec.name, data: ds, ...small, T: 13 });
    const continued = await train({ init: first, data: ds, T: 40, threads: 2, parallelMinWork: 0 });
    expect(bytesOf(continued).equals(bytesOf(direct))).toBe(true);
    const mid = await train({ init: first, data: ds, T: 27 });
    const path = join(dir, `${spec.name}-27.dsg`);
    await mid.save(path);
    const fromFile = await train({ init: path, data: ds, T: 40 });
    expect(bytesOf(fromFile).equals(bytesOf(direct))).toBe(true);
  });

  it('a checkpoint taken while the next batch is already drawn and being evaluated (history, 2 threads) continues to the bytes of 0 → 40', async () => {
    const spec = loop[0];
    const ds = await trainSet();
    const opts = { learner: spec.name, data: ds, ...small, evaluation: 'history' as const, threads: 2, parallelMinWork: 0 };
    const direct = await train({ ...opts, T: 40 });
    const checkpoints: Model[] = [];
    await train({ ...opts, T: 40, checkpointEvery: 14, onCheckpoint: (m) => void checkpoints.push(m) });
    expect(checkpoints.map((m) => m.header.resume?.t)).toEqual([14, 28]);
    for (const from of checkpoints) expect(bytesOf(await train({ init: from, data: ds, T: 40, evaluation: 'history', threads: 2, parallelMinWork: 0 })).equals(bytesOf(direct))).toBe(true);
  });

  it("refuses, saying why, a run whose default step depended on T (TSGS3VM's θ/T^{3/4}); an explicit step continues to the bytes of a run at once", async () => {
    const ds = await trainSet();
    const first = await train({ learner: 'tsgs3vm', data: ds, ...small, T: 10 });
    const refused = train({ init: first, data: ds, T: 20 });
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(/tsgs3vm's default for T = 10, and that default depends on T .*--step constant --eta/);
    // To its own T the default step is right: a checkpoint of a run to 20 continues to 20.
    expect(bytesOf(await train({ init: first, data: ds, T: 10 })).equals(bytesOf(first))).toBe(true);
    const checkpoints: Model[] = [];
    const to20 = await train({ learner: 'tsgs3vm', data: ds, ...small, T: 20, checkpointEvery: 7, onCheckpoint: (m) => void checkpoints.push(m) });
    expect(checkpoints.map((m) => m.header.resume?.t)).toEqual([7, 14]);
    expect(bytesOf(await train({ init: checkpoints[0], data: ds, T: 20 })).equals(bytesOf(to20))).toBe(true);
    await expect(train({ init: checkpoints[1], data: ds, T: 30 })).rejects.toThrow(/default for T = 20, and that default depends on T/);
    const step = first.header.hyperparameters.step as StepSize;
    const explicitFirst = await train({ learner: 'tsgs3vm', data: ds, ...small, T: 10, step: { kind: 'constant', eta: 0.03 } });
    const explicitDirect = await train({ learner: 'tsgs3vm', data: ds, ...small, T: 20, step: { kind: 'constant', eta: 0.03 } });
    expect(bytesOf(await train({ init: explicitFirst, data: ds, T: 20 })).equals(bytesOf(explicitDirect))).toBe(true);
    expect(step).not.toEqual(explicitDirect.header.hyperparameters.step);
  });

  it('continues every loop learner with every step kind to the bytes of a run at once (0 → 6 → 15 = 0 → 15)', async () => {
    const ds = await trainSet();
    const steps: StepSize[] = [{ kind: 'inverse', theta: 3 }, { kind: 'constant', eta: 0.05 }, { kind: 'decay', eta0: 0.4, eta1: 0.02 }];
    for (const spec of loop) {
      const data = spec.task === 'ordinal' ? await ordinalSet() : ds;
      for (const step of [undefined, ...steps]) {
        const opts = { learner: spec.name, data, ...small, m: 8, onWarning: () => {}, ...(step ? { step } : {}) };
        const direct = await train({ ...opts, T: 15 });
        const first = await train({ ...opts, T: 6 });
        const label = `${spec.name}, step ${JSON.stringify(step ?? 'default')}`;
        if (step === undefined && 'defaultStepHorizon' in spec) {
          await expect(train({ init: first, data, T: 15 }), label).rejects.toThrow(/depends on T/);
          continue;
        }
        expect(bytesOf(await train({ init: first, data, T: 15 })).equals(bytesOf(direct)), label).toBe(true);
      }
    }
  }, 120_000);

  it('refuses other settings, other data, a smaller T, and a model without resume state', async () => {
    const spec = loop[0];
    const ds = await trainSet();
    const first = await train({ learner: spec.name, data: ds, ...small, T: 10 });
    await expect(train({ init: first, data: ds, T: 20, lambda: 0.5 })).rejects.toThrow(/lambda = 0.5 differs from the model's lambda/);
    await expect(train({ init: first, data: ds, T: 5 })).rejects.toThrow(UsageError);
    await expect(train({ init: first, data: ds })).rejects.toThrow(/give T/);
    const otherRows = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 100, seed: 3 }).train;
    await expect(train({ init: first, data: otherRows, T: 20 })).rejects.toThrow(/training data differ/);
    const { resume: _r, ...stripped } = first.header;
    await expect(train({ init: new Model(stripped, first.predictor), data: ds, T: 20 })).rejects.toThrow(/no resume state/);
  });

  it('a model file whose resume state does not match its history is refused on load', async () => {
    const spec = loop[0];
    const first = await train({ learner: spec.name, data: await trainSet(), ...small, T: 10 });
    const forged = new Model({ ...first.header, resume: { ...first.header.resume!, t: 9 } }, first.predictor);
    expect(() => Model.fromBytes(forged.toBytes(), 'forged.dsg')).toThrow(ModelError);
    expect(() => Model.fromBytes(forged.toBytes(), 'forged.dsg')).toThrow(/forged\.dsg: corrupt model header \(resume/);
  });
});

/** The CLI's entry in a child process of its own (tsx, so the sources under test run). */
const ENTRY = "const { main } = await import('./src/cli/main.ts'); process.exitCode = await main(process.argv.slice(1));";

/** Runs the real CLI in a child process; `killWhen` is polled and the child SIGKILLed once it is true. */
function child(args: string[], killWhen?: () => boolean): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', ENTRY, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const poll = killWhen ? setInterval(() => { if (killWhen()) proc.kill('SIGKILL'); }, 2) : undefined;
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      clearInterval(poll);
      resolve({ code, signal, stderr });
    });
  });
}

describe('dsgkit train --checkpoint-every / --init', () => {
  it('a run killed with SIGKILL after a checkpoint resumes with --init to the bytes of an uninterrupted run', async () => {
    const spec = loop[0];
    const file = join(dir, 'bc-train.arrow');
    await writeArrow(file, await trainSet());
    const common = ['--data', file, '--random-features', '16', '--batch-size', '16', '--seed', '9', '--threads', '1'];
    const full = join(dir, 'full.dsg');
    expect(await main(['train', '--learner', spec.name, ...common, '--iterations', '160', '--out', full, '--quiet'], { stdout: { write: () => true }, stderr: { write: () => true } } as never)).toBe(0);

    const out = join(dir, 'killed.dsg');
    const ckpt = join(dir, 'killed.ckpt.dsg');
    // Kill as soon as the first checkpoint exists (checkpoints are renamed into place,
    // so one that exists is whole): the process gets no chance to clean up.
    const result = await child(['train', '--learner', spec.name, ...common, '--iterations', '160', '--out', out, '--checkpoint-every', '20', '--checkpoint', ckpt, '--quiet'], () => existsSync(ckpt));
    expect(result.signal, result.stderr).toBe('SIGKILL');
    expect(existsSync(out)).toBe(false);
    const saved = await load(ckpt);
    const t = saved.header.resume!.t;
    expect(t % 20).toBe(0);
    expect(t).toBeLessThan(160);

    const resumed = join(dir, 'resumed.dsg');
    const again = await child(['train', '--init', ckpt, '--data', file, '--iterations', '160', '--threads', '2', '--out', resumed, '--quiet']);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(resumed).equals(readFileSync(full))).toBe(true);
  }, 120_000);

  it('--init with a different setting is exit 2 naming the option', async () => {
    const spec = loop[0];
    const file = join(dir, 'bc-train-2.arrow');
    await writeArrow(file, await trainSet());
    const first = join(dir, 'first.dsg');
    const quiet = { stdout: { write: () => true }, stderr: { write: () => true } } as never;
    expect(await main(['train', '--learner', spec.name, '--data', file, '--iterations', '10', '--random-features', '8', '--out', first, '--quiet'], quiet)).toBe(0);
    let err = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) } } as never;
    expect(await main(['train', '--init', first, '--data', file, '--iterations', '20', '--lambda', '0.3', '--out', join(dir, 'x.dsg')], io)).toBe(2);
    expect(err).toMatch(/lambda = 0.3 differs/);
  });
});
