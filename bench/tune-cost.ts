/**
 * What `tune` costs against one `train` at defaults, per learner and set, on
 * the benchmark's own splits (bench/lib/quality.ts `qualitySplit`: 200 labeled
 * training rows for the binary and ordinal learners, 80% of the labels hidden
 * for GKM and LapSVM), and what it finds: the winner's CV score, the
 * defaults' CV score, the held-out metric of the tuned model and of the
 * default one, and where tune's time went (seconds per halving round, the
 * defaults' reference round (with the refit) or the refit, with how many fits each ran).
 *
 * Each entry is kept in bench/results/tune-cost.json under
 * `set|learner|label`; a re-run replaces the entries it makes. `--full-grid`
 * runs tune without halving (every setting in full on every fold), to see
 * whether the halving drops the settings a full grid would pick.
 *
 * @example
 * // npx tsx bench/tune-cost.ts --sets letter,fertility                       (every learner of the sets' task)
 * // npx tsx bench/tune-cost.ts --sets spam,pima --learners gkm --full-grid --label full-grid --no-train
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { train, type LearnerName } from '../src/api.ts';
import { readDataset, type Dataset } from '../src/data/index.ts';
import { availableCores } from '../src/engine/cores.ts';
import { auc, ordinalMeanAuc } from '../src/metrics/index.ts';
import { tuneModel } from '../src/tune.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';
import { benchSet, qualitySplit } from './lib/quality.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(REPO, 'bench/results/tune-cost.json');

const ORDINAL = ['diabetes', 'boston', 'ames', 'diamonds', 'insteval'];
const LEARNERS: { learner: LearnerName; ordinal: boolean; protocol: 'labeled' | 'hide' }[] = [
  { learner: 'qsg-s2auc', ordinal: false, protocol: 'labeled' },
  { learner: 'dsg', ordinal: false, protocol: 'labeled' },
  { learner: 'tsgs3vm', ordinal: false, protocol: 'labeled' },
  { learner: 'frs3vm', ordinal: false, protocol: 'labeled' },
  { learner: 'gkm', ordinal: false, protocol: 'hide' },
  { learner: 'lapsvm', ordinal: false, protocol: 'hide' },
  { learner: 'qs3orao', ordinal: true, protocol: 'labeled' },
  { learner: 'sorao', ordinal: true, protocol: 'labeled' },
];

const { values: opt } = parseArgs({
  options: {
    sets: { type: 'string', default: 'letter' },
    learners: { type: 'string' },
    seed: { type: 'string', default: '1' },
    threads: { type: 'string' },
    label: { type: 'string', default: 'default' },
    'full-grid': { type: 'boolean', default: false },
    'no-train': { type: 'boolean', default: false },
  },
});
const seed = Number(opt.seed);
const threads = opt.threads === undefined ? availableCores() : Number(opt.threads);
const chosen = opt.learners?.split(',').map((s) => s.trim()).filter(Boolean);
for (const l of chosen ?? []) if (!LEARNERS.some((x) => x.learner === l)) throw new Error(`--learners: unknown '${l}' (known: ${LEARNERS.map((x) => x.learner).join(', ')})`);

/** One measured (set, learner, label). */
interface Entry {
  set: string;
  learner: string;
  label: string;
  protocol: 'labeled' | 'hide';
  seed: number;
  trainRows: number;
  labeledRows: number;
  threads: number;
  fullGrid: boolean;
  /** One `train` at defaults (seconds; absent with --no-train). */
  trainSeconds?: number;
  tuneSeconds: number;
  ratio?: number;
  /** CPU seconds of the process (all its threads) for the train and the tune, and their ratio: steadier than wall time on a shared machine. */
  trainCpu?: number;
  tuneCpu: number;
  cpuRatio?: number;
  candidates: number;
  /** The block evaluations the search spent, as a share of running every setting to T on every fold (`TuneResult.cost.fraction`; loop learners). */
  blockFraction?: number;
  /** Per round: its end iteration / budget rung, how many settings ran, how many fits, seconds. Then the reference round and the refit. */
  rounds: { round: number | 'reference + refit' | 'refit'; t?: number; settings?: number; fits?: number; seconds: number }[];
  cvBest: number;
  cvDefaults: number;
  overDefaults: { gain: number; se: number };
  best: Record<string, unknown>;
  sigmaRatio?: number;
  testTune: number;
  testDefaults?: number;
  loadavg: { before: number[]; after: number[] };
  date: string;
}

/** CPU seconds (user + system, every thread of this process) since `from`. */
function cpuSeconds(from: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1e6;
}

function heldOutMetric(ordinal: boolean, test: Dataset, f: ArrayLike<number>): number {
  if (ordinal) return ordinalMeanAuc(test.y, f).meanAuc;
  let positive = -Infinity;
  for (let i = 0; i < test.n; i++) positive = Math.max(positive, test.y[i]);
  return auc(test.y, f, { positive });
}

const entries: Entry[] = existsSync(OUT) ? ((JSON.parse(readFileSync(OUT, 'utf8')) as { entries?: Entry[] }).entries ?? []) : [];
for (const set of opt.sets.split(',').map((s) => s.trim()).filter(Boolean)) {
  const { path } = benchSet(set);
  if (!existsSync(join(REPO, path))) throw new Error(`${path} is missing: run \`bash bench/public-data.sh\` first`);
  const raw = await readDataset(join(REPO, path));
  const ordinal = ORDINAL.includes(set);
  for (const { learner, protocol } of LEARNERS.filter((l) => l.ordinal === ordinal && (chosen === undefined || chosen.includes(l.learner)))) {
    const { train: tr, test } = qualitySplit(raw, set, protocol, seed);
    let labeledRows = 0;
    for (let i = 0; i < tr.n; i++) labeledRows += tr.labeled[i];
    const before = loadavg();
    let trainSeconds: number | undefined;
    let testDefaults: number | undefined;
    let trainCpu: number | undefined;
    if (!opt['no-train']) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const model = await train({ learner, data: tr, seed, threads } as Parameters<typeof train>[0]);
      trainSeconds = (performance.now() - t0) / 1000;
      trainCpu = cpuSeconds(c0);
      testDefaults = heldOutMetric(ordinal, test, await model.decisionFunction(test, { threads }));
    }
    // Seconds per round: the progress reports carry the round and the elapsed time.
    const marks: { round: number; at: number }[] = [];
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    const r = await tuneModel({
      learner, data: tr, seed, threads, ...(opt['full-grid'] ? { fullGrid: true } : {}),
      onWarning: () => undefined,
      onProgress: (p) => {
        if (marks.length === 0 || marks[marks.length - 1].round !== p.round) marks.push({ round: p.round, at: p.elapsedMs / 1000 });
      },
    });
    const tuneSeconds = (performance.now() - t1) / 1000;
    const tuneCpu = cpuSeconds(c1);
    const testTune = heldOutMetric(ordinal, test, await r.model.decisionFunction(test, { threads }));
    // A round's time runs from its first report to the next round's first report (the first round from 0).
    const ends = marks.map((m, i) => (i + 1 < marks.length ? marks[i + 1].at : tuneSeconds));
    const startOf = (i: number): number => (i === 0 ? 0 : ends[i - 1]);
    const rounds: Entry['rounds'] = marks.map((m, i) => {
      const rec = r.rounds.find((x) => x.round === m.round);
      const seconds = ends[i] - startOf(i);
      if (!rec) return { round: 'refit' as const, seconds };
      // The defaults' reference round and the refit share a round number (a refit of a learner that does not continue reports only at its end).
      if (rec.reference) return { round: 'reference + refit' as const, t: rec.t, settings: 1, fits: r.folds + 1, seconds };
      const fitsPer = (rec as { t: number }).t < (r.model.header.training.tune?.halving?.T ?? 0) && r.model.header.training.tune?.halving?.budget ? (r.model.header.training.tune.halving.earlyFolds ?? r.folds) : r.folds;
      return { round: rec.round, t: rec.t, settings: rec.candidates.length, fits: rec.candidates.length * fitsPer, seconds };
    });
    const row = (id: number) => r.table.find((x) => x.id === id)!;
    const winner = r.table.find((x) => x.status === 'best')!;
    const e: Entry = {
      set, learner, label: opt.label, protocol, seed, trainRows: tr.n, labeledRows, threads, fullGrid: opt['full-grid'],
      ...(trainSeconds !== undefined ? { trainSeconds, ratio: tuneSeconds / trainSeconds } : {}),
      ...(trainCpu !== undefined ? { trainCpu, cpuRatio: tuneCpu / trainCpu } : {}),
      tuneSeconds, tuneCpu, candidates: r.table.length, rounds, blockFraction: r.cost.fraction,
      cvBest: winner.score, cvDefaults: row(r.defaultsId).score, overDefaults: r.overDefaults,
      best: Object.fromEntries(Object.keys(winner.params).map((k) => [k, r.best[k]])),
      ...(r.sigmaRatio !== undefined ? { sigmaRatio: r.sigmaRatio } : {}),
      testTune, ...(testDefaults !== undefined ? { testDefaults } : {}),
      loadavg: { before, after: loadavg() }, date: new Date().toISOString(),
    };
    const at = entries.findIndex((x) => x.set === set && x.learner === learner && x.label === opt.label);
    if (at >= 0) entries[at] = e;
    else entries.push(e);
    console.log(`${set} ${learner} [${opt.label}]: train ${trainSeconds?.toFixed(1) ?? '—'} s, tune ${tuneSeconds.toFixed(1)} s${e.ratio !== undefined ? ` (${e.ratio.toFixed(1)}×; CPU ${e.cpuRatio!.toFixed(1)}×)` : ''}; CV ${winner.score.toFixed(4)} (defaults ${e.cvDefaults.toFixed(4)}); test ${testTune.toFixed(4)}${testDefaults !== undefined ? ` (defaults ${testDefaults.toFixed(4)})` : ''}; σ/σ₀ ${r.sigmaRatio ?? '—'}; best ${JSON.stringify(e.best)}; load ${before.map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`  rounds: ${rounds.map((x) => `${x.round}${x.t !== undefined ? `@${x.t}` : ''}${x.settings !== undefined ? ` ${x.settings}×${x.fits! / x.settings}` : ''} ${x.seconds.toFixed(1)}s`).join(' | ')}`);
    writeBenchOutputs('tune-cost', { meta: { cpu: cpus()[0]?.model, cores: availableCores(), note: 'tune / one train at defaults, same split, same threads; loadavg before and after each entry' }, entries });
  }
}
console.log(markdownTable(entries.map((e) => ({ set: e.set, learner: e.learner, label: e.label, train: e.trainSeconds ?? NaN, tune: e.tuneSeconds, ratio: e.ratio ?? NaN, cpuRatio: e.cpuRatio ?? NaN, cvBest: e.cvBest, cvDefaults: e.cvDefaults, test: e.testTune, blocks: e.blockFraction ?? NaN })), { digits: 3 }));
