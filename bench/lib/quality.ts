/**
 * The quality benchmark's definitions and the arithmetic of its summary
 * (bench/quality.ts; bench/unlabeled-effect.ts runs on the same sets and
 * splits): its sets, each learner's protocol and supervised special case, the
 * split of a set for a seed, one finished cell per set × protocol × seed ×
 * method and the cells file they are read from, the newest cell per key, a
 * method's paired gap to the best peer,
 * and the wins / ties / losses tally (kept apart so it is tested).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';
import { selectRows, splitDataset, type Dataset } from '../../src/data/index.ts';
import { shuffleInPlace } from '../../src/data/split.ts';
import { accuracy, auc, mean, meanAbsoluteError, ordinalMeanAuc, sampleSd } from '../../src/metrics/index.ts';
import { learnerSpec, type LearnerName } from '../../src/api.ts';

/** Largest set the `hide` protocol runs on: bigger sets are cut to a seeded sample of this many rows first (5,000 training rows, 1,000 labeled). */
export const HIDE_MAX_ROWS = 6250;

/**
 * The scikit-learn peers of the quality benchmark (bench/peers/run_peers.py):
 * the ones a learner's gap to the best peer is taken over.
 *
 * @example
 * gapToBestPeer(cells, 'tune qsg-s2auc', 'metric', PEERS);
 */
export const PEERS: readonly string[] = ['svc', 'label-spreading-rbf', 'label-spreading-knn', 'self-training-svc', 'rbf-sampler-sgd'];

/**
 * The benchmark's split of set `name` for `seed` (bench/quality.ts, bench/tune-cost.ts):
 * `labeled`: 20% held out, 200 labeled training rows; `hide`: on a seeded sample
 * of at most {@link HIDE_MAX_ROWS} rows, 20% held out and 80% of the training labels hidden.
 *
 * @example
 * const { train, test, rows } = qualitySplit(await readDataset('bench/data-public/letter.arrow'), 'letter', 'hide', 1); // rows = 6,250
 */
export function qualitySplit(raw: Dataset, name: string, protocol: 'labeled' | 'hide', seed: number): { train: Dataset; test: Dataset; rows: number } {
  if (protocol === 'labeled') {
    const { train: tr, test } = splitDataset(raw, { labeled: 200, test: 0.2, seed });
    return { train: tr, test: test!, rows: raw.n };
  }
  let ds = raw;
  if (raw.n > HIDE_MAX_ROWS) {
    const order = shuffleInPlace(Array.from({ length: raw.n }, (_, i) => i), seedrandom(`quality-hide-${name}-${seed}`));
    ds = selectRows(raw, order.slice(0, HIDE_MAX_ROWS).sort((a, b) => a - b));
  }
  const testCount = Math.round(0.2 * ds.n);
  const labeled = Math.round(0.2 * (ds.n - testCount));
  const { train: tr, test } = splitDataset(ds, { labeled, test: 0.2, seed });
  return { train: tr, test: test!, rows: ds.n };
}

/** One finished cell, as one line of bench/results/quality-cells.jsonl. */
export interface QualityCell {
  set: string;
  task: 'binary' | 'ordinal';
  /** `labeled`: 200 labeled training rows; `hide`: 80% of the training labels hidden. */
  protocol: 'labeled' | 'hide';
  seed: number;
  method: string;
  kind: 'peer' | 'dsgkit';
  /** Held-out AUC (binary, larger label positive) or mean threshold AUC (ordinal). */
  metric: number;
  accuracy: number;
  mae?: number;
  /** Wall time of training (with its search) and scoring the test rows. */
  seconds: number;
  /** Chosen hyperparameters (peers, tune). */
  params?: Record<string, unknown>;
  rows: number;
  trainRows: number;
  labeledTrainRows: number;
  testRows: number;
  /** Set when the run was stopped by `--cell-timeout` after this many seconds (its metrics are NaN, written null). */
  timedOut?: number;
  /** `git rev-parse HEAD:src` when the cell was made. */
  srcTree: string;
  /** Where the cell ran when not on the benchmark's own machine (e.g. a lent 16-core machine, one thread per cell): times compare only within one machine. */
  machine?: string;
  /** Set when the cell's seconds are no timing (its process was stopped for a while, e.g. to keep another measurement quiet): the summary shows no time for it. */
  untimed?: string;
  loadavg: number[];
  date: string;
}

/**
 * The committed src/ tree a result is made from (`git rev-parse HEAD:src`), or
 * `DSGKIT_SRC_TREE` where the copy has no .git (a lent machine is told its
 * tree by the machine that made it): results of one tree compare.
 *
 * @example
 * srcTreeOf('/work/main'); // 'a413668988326f179fb2e2e4cb48d31fb77ad04a'
 */
export function srcTreeOf(repo: string): string {
  return process.env.DSGKIT_SRC_TREE ?? execFileSync('git', ['rev-parse', 'HEAD:src'], { cwd: repo, encoding: 'utf8' }).trim();
}

/** What identifies a cell: a later cell with the same key replaces an earlier one. */
export function cellKey(c: Pick<QualityCell, 'set' | 'protocol' | 'seed' | 'method'>): string {
  return `${c.set}|${c.protocol}|${c.seed}|${c.method}`;
}

/** The benchmark's cells file (bench/quality.ts appends to it; `--cells` names another). */
export const QUALITY_CELLS = fileURLToPath(new URL('../results/quality-cells.jsonl', import.meta.url));

/**
 * Every cell of a cells file (JSON Lines, one cell a line), oldest first;
 * none when the file does not exist yet. {@link latestCells} keeps the newest
 * per key.
 *
 * @example
 * const cells = latestCells(readCells(QUALITY_CELLS));
 */
export function readCells(file: string): QualityCell[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as QualityCell);
}

/**
 * The newest cell per key, in order of first appearance.
 *
 * @example
 * latestCells([a1, b1, a2]); // [a2, b1] when a1 and a2 share a key
 */
export function latestCells<C extends Pick<QualityCell, 'set' | 'protocol' | 'seed' | 'method'>>(cells: readonly C[]): C[] {
  const latest = new Map<string, C>();
  for (const c of cells) latest.set(cellKey(c), c);
  return [...latest.values()];
}

/** A method against the best peer on one set. */
export interface PeerGap {
  /** The peer with the highest mean of the measure on the method's seeds. */
  peer: string;
  peerMean: number;
  /** The method's mean. */
  value: number;
  /** Mean over the method's seeds of (method − that peer), paired seed by seed. */
  gap: number;
  /** Sample sd of those differences (0 for one seed). */
  sdGap: number;
  seeds: number;
}

/**
 * `method`'s paired gap to the best of `peers` on one set's cells, by
 * `measure`, on the seeds the method and the peers share: the seeds of the
 * method's that the peers ran on (on the largest sets the slow peers ran on
 * seed 1 alone), and of those peers the one of highest mean competes.
 * Undefined when the method has no cell or no peer ran on any of its seeds.
 *
 * @example
 * gapToBestPeer(cellsOfSpam, 'tune qsg-s2auc', 'metric', ['svc', 'label-spreading-knn']);
 * // { peer: 'svc', peerMean: 0.943, value: 0.931, gap: -0.012, sdGap: 0.004, seeds: 3 }
 */
export function gapToBestPeer(cells: readonly QualityCell[], method: string, measure: 'metric' | 'accuracy', peers: readonly string[]): PeerGap | undefined {
  const bySeed = (m: string) => new Map(cells.filter((c) => c.method === m).map((c) => [c.seed, c[measure]]));
  const mine = bySeed(method);
  if (mine.size === 0) return undefined;
  const ran = peers.map((p) => bySeed(p)).filter((theirs) => theirs.size > 0);
  // The seeds of the method's that every peer that ran on the set ran on.
  const seeds = [...mine.keys()].filter((s) => ran.every((theirs) => theirs.has(s)));
  if (seeds.length === 0) return undefined;
  let best: { peer: string; mean: number; diffs: number[] } | undefined;
  for (const p of peers) {
    const theirs = bySeed(p);
    if (!seeds.every((s) => theirs.has(s))) continue;
    const m = mean(seeds.map((s) => theirs.get(s)!));
    if (!best || m > best.mean) best = { peer: p, mean: m, diffs: seeds.map((s) => mine.get(s)! - theirs.get(s)!) };
  }
  if (!best) return undefined;
  return { peer: best.peer, peerMean: best.mean, value: mean(seeds.map((s) => mine.get(s)!)), gap: mean(best.diffs), sdGap: best.diffs.length > 1 ? sampleSd(best.diffs) : 0, seeds: seeds.length };
}

/** Wins, ties and losses of per-set gaps, their mean and the worst set. */
export interface Tally {
  wins: number;
  ties: number;
  losses: number;
  meanGap: number;
  worst: { set: string; gap: number };
}

/**
 * Counts per-set gaps as wins (> tie), ties (|gap| ≤ tie) and losses (< −tie).
 *
 * @example
 * tally([{ set: 'a', gap: 0.01 }, { set: 'b', gap: -0.005 }, { set: 'c', gap: -0.03 }], 0.005);
 * // { wins: 1, ties: 1, losses: 1, meanGap: -0.00833, worst: { set: 'c', gap: -0.03 } }
 */
export function tally(gaps: readonly { set: string; gap: number }[], tie: number): Tally {
  if (gaps.length === 0) throw new RangeError('tally: no sets');
  // A gap within rounding of ±tie counts as a tie (0.905 − 0.900 is 0.00500000000000006 in binary).
  const eps = 1e-12;
  return {
    wins: gaps.filter((g) => g.gap > tie + eps).length,
    ties: gaps.filter((g) => Math.abs(g.gap) <= tie + eps).length,
    losses: gaps.filter((g) => g.gap < -tie - eps).length,
    meanGap: mean(gaps.map((g) => g.gap)),
    worst: gaps.reduce((a, b) => (b.gap < a.gap ? b : a)),
  };
}

export type Task = 'binary' | 'ordinal';
export type Protocol = 'labeled' | 'hide';

/** One benchmark set: a file, its task, and how many seeds it runs by default. */
export interface BenchSet {
  name: string;
  path: string;
  task: Task;
  /** Seeds 1…n by default: {@link SMALL_SET_SEEDS} for a set of fewer than 200 held-out rows, else 3. */
  seeds: number;
}

/**
 * Seeds of a set whose 20% held out is fewer than 200 rows (ionosphere 70,
 * diabetes 88, musk 95, boston 101, breast cancer 114, pima 154): one
 * held-out row moves a seed's accuracy by 0.006–0.014, so three seeds leave
 * a set's mean too noisy to judge against a ±0.005 tie or a −0.02 bound; ten
 * bring its standard error near that of the larger sets at three. The same
 * holds for a set whose held-out rows have fewer than 200 of its rare class
 * (hmda 57, lending 103): an AUC's noise is that of its rarer class.
 */
export const SMALL_SET_SEEDS = 10;
const SMALL_SETS = new Set(['ionosphere', 'musk', 'breast_cancer', 'pima', 'diabetes', 'boston', 'hmda', 'lending']);
const seedsOf = (name: string): number => (SMALL_SETS.has(name) ? SMALL_SET_SEEDS : 3);

/** The 20 sets, smallest first within each task but for the two whose positive class is rare, which come after them (provenance: bench/README.md § Public datasets, data/README.md). */
export const SETS: BenchSet[] = [
  ...['ionosphere', 'musk', 'breast_cancer', 'pima', 'cells', 'dna', 'spam', 'satellite', 'churn', 'grants', 'mnist', 'letter', 'fertility', 'hmda', 'lending'].map((name) => ({
    name,
    path: ['spam', 'breast_cancer'].includes(name) ? `data/${name}.arrow` : `bench/data-public/${name}.arrow`,
    task: 'binary' as const,
    seeds: seedsOf(name),
  })),
  ...['diabetes', 'boston', 'ames', 'diamonds', 'insteval'].map((name) => ({
    name,
    path: name === 'diabetes' ? 'data/diabetes.arrow' : `bench/data-public/${name}.arrow`,
    task: 'ordinal' as const,
    seeds: seedsOf(name),
  })),
];

/**
 * The benchmark set called `name` (its file and task), for the scripts that run
 * on the quality benchmark's sets one name at a time.
 *
 * @example
 * benchSet('spam');     // { name: 'spam', path: 'data/spam.arrow', task: 'binary' }
 * benchSet('diamonds'); // { name: 'diamonds', path: 'bench/data-public/diamonds.arrow', task: 'ordinal' }
 */
export function benchSet(name: string): BenchSet {
  const set = SETS.find((s) => s.name === name);
  if (!set) throw new Error(`unknown benchmark set '${name}' (the sets: ${SETS.map((s) => s.name).join(', ')})`);
  return set;
}

/** Each learner's protocol and its supervised special case (the parameter that switches off the unlabeled term). */
export const LEARNERS: { learner: LearnerName; task: Task; protocol: Protocol; special?: { label: string; fixed: Record<string, unknown> } }[] = [
  { learner: 'qsg-s2auc', task: 'binary', protocol: 'labeled', special: { label: 'γ=1', fixed: { gamma: 1 } } },
  { learner: 'dsg', task: 'binary', protocol: 'labeled' },
  { learner: 'tsgs3vm', task: 'binary', protocol: 'labeled', special: { label: 'C*=0', fixed: { Cstar: 0 } } },
  { learner: 'frs3vm', task: 'binary', protocol: 'labeled', special: { label: 'C*=0', fixed: { Cstar: 0 } } },
  { learner: 'gkm', task: 'binary', protocol: 'hide', special: { label: "C'=0", fixed: { Cprime: 0 } } },
  { learner: 'lapsvm', task: 'binary', protocol: 'hide', special: { label: "C'=0", fixed: { Cprime: 0 } } },
  { learner: 'qs3orao', task: 'ordinal', protocol: 'labeled', special: { label: 'γ=1', fixed: { gamma: 1 } } },
  { learner: 'sorao', task: 'ordinal', protocol: 'labeled' },
];

/**
 * A comma-separated option's values, each checked against `known` (all of them when not given).
 *
 * @example
 * listOption('spam,pima', SETS.map((s) => s.name), 'sets'); // ['spam', 'pima']
 */
export function listOption(value: string | undefined, known: readonly string[], option: string): string[] {
  if (value === undefined) return [...known];
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const v of list) if (!known.includes(v)) throw new Error(`--${option}: unknown '${v}' (known: ${known.join(', ')})`);
  return list;
}

/**
 * A model's held-out figures: AUC (positive = the larger label) or the mean
 * threshold AUC, accuracy, and MAE for ordinal sets.
 *
 * @example
 * heldOut('binary', test, model.decisionFunction(test), model.predict(test)); // { metric, accuracy }
 */
export function heldOut(task: Task, test: Dataset, scores: ArrayLike<number>, predicted: ArrayLike<number>): Pick<QualityCell, 'metric' | 'accuracy' | 'mae'> {
  if (task === 'ordinal') return { metric: ordinalMeanAuc(test.y, scores).meanAuc, accuracy: accuracy(test.y, predicted), mae: meanAbsoluteError(test.y, predicted) };
  let positive = -Infinity;
  for (let i = 0; i < test.n; i++) positive = Math.max(positive, test.y[i]);
  return { metric: auc(test.y, scores, { positive }), accuracy: accuracy(test.y, predicted) };
}

/**
 * The figure a learner is judged by: `accuracy` for a learner whose metric is accuracy, else `metric` (AUC or mean threshold AUC).
 *
 * @example
 * measureOf('gkm'); // 'accuracy'
 */
export function measureOf(learner: string): 'metric' | 'accuracy' {
  return learnerSpec(learner).metric === 'accuracy' ? 'accuracy' : 'metric';
}
