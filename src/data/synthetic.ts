/**
 * A seeded generator of large semi-supervised binary problems, streamed to an
 * Arrow file batch by batch so memory stays flat however many rows are asked for.
 *
 * The problem ("noisy XOR of Gaussian blobs"): the first two features are
 * informative. Class +1 lives in two blobs centred at (¼, ¼) and (¾, ¾),
 * class −1 in two blobs at (¼, ¾) and (¾, ¼); each coordinate is the centre
 * plus `N(0, spread²)`, reflected at 0 and 1 into [0, 1]. The remaining
 * `dim − 2` features are uniform noise on [0, 1]. Labels are then flipped
 * with probability `labelNoise`. A linear model cannot beat chance on it (its
 * AUC is ~0.5); a Gaussian-kernel model gets close to the Bayes rate.
 *
 * Counts are exact, not just expected (in the default one-stream layout):
 * `round(rows · positiveFraction)` rows carry the observed label +1, and
 * exactly `labeled` rows keep their label, stratified by class
 * (largest-remainder rounding, see `split.ts`), all chosen by sequential
 * selection sampling so no row index set is ever held. The
 * other rows are written with a null label (= unlabeled). To get a labeled
 * test set from the same distribution, generate again with another seed and
 * `labeled = rows`.
 *
 * Rows are drawn from one `seedrandom.alea` stream in row order, so the same
 * options give the same rows and the same file bytes.
 *
 * **Prefix-stable files** (`labeledWithin: W`): row `i` is drawn from streams
 * keyed by `(seed, ⌊i / 4096⌋)` alone — its class from one, with probability
 * `positiveFraction` (so the count of positives is binomial, not exact), the
 * rest of the row from another — and the exactly `labeled` labeled rows lie
 * among the first `W` rows (stratified by the classes found there, chosen by
 * selection sampling on a stream keyed by the seed). Two files with the same
 * options but `rows` N < N′ are then row for row and label for label the
 * first N rows of one another: a small file is exactly the prefix of a big
 * one, with the same labeled rows (how `bench/bigdata.ts` compares training
 * on 20M rows with training on their first 2M).
 */
import { MAX_COLUMNS } from './validate.ts';
import seedrandom from 'seedrandom';
import type { RecordBatch } from 'apache-arrow';
import { writeBatchesStreaming } from './batch-writer.ts';
import { datasetSchema, formatForPath, makeBatch, type ArrowFormat } from './arrow.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import { stratifiedCounts } from './split.ts';

/** Options of the synthetic generator; defaults in brackets. */
export interface SyntheticOptions {
  /** Number of rows. */
  rows: number;
  /** Number of features, ≥ 2 (the first two are informative) [10]. */
  dim?: number;
  /** Fraction of rows with the observed label +1 [0.5]. */
  positiveFraction?: number;
  /** Number of rows that keep their label; the rest are unlabeled [min(rows, 1000)]. */
  labeled?: number;
  /** Seed [0]. */
  seed?: number | string;
  /** Probability that a row's label is flipped [0.05]. */
  labelNoise?: number;
  /** Standard deviation of the blobs around their centres [0.12]. */
  spread?: number;
  /** Rows per Arrow record batch [65536]. */
  batchRows?: number;
  /** Name of the label column ['label']. */
  labelColumn?: string;
  /**
   * When given: draw every row from `(seed, row index)` alone and put the
   * labeled rows among the first `labeledWithin` rows (`labeled ≤
   * labeledWithin ≤ rows`), so files that differ only in `rows` are prefixes
   * of one another (see the module comment). Unset: the one-stream layout.
   */
  labeledWithin?: number;
}

/** What was generated (exact counts). */
export interface SyntheticSummary {
  rows: number;
  dim: number;
  positives: number;
  labeled: number;
  labeledPositives: number;
  batches: number;
}

/** One generated batch, column-major: `label` (NaN = unlabeled) and `columns[k]`. */
export interface SyntheticBatch {
  label: Float64Array;
  columns: Float64Array[];
  /** Rows of this batch whose observed class is +1 (labeled or not). */
  positives: number;
}

interface Resolved {
  rows: number;
  dim: number;
  positives: number;
  labeledPos: number;
  labeledNeg: number;
  seed: string;
  labelNoise: number;
  spread: number;
  batchRows: number;
  labelColumn: string;
  /** Prefix-stable layout: the labeled rows lie in `[0, labeledWithin)`; undefined: one stream. */
  labeledWithin: number | undefined;
  labeled: number;
  positiveFraction: number;
}

function resolve(opts: SyntheticOptions): Resolved {
  const rows = opts.rows;
  const dim = opts.dim ?? 10;
  const p = opts.positiveFraction ?? 0.5;
  const labeled = opts.labeled ?? Math.min(rows, 1000);
  const labelNoise = opts.labelNoise ?? 0.05;
  const spread = opts.spread ?? 0.12;
  const batchRows = opts.batchRows ?? 65536;
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError(`synthetic: rows must be a whole number ≥ 1, got ${rows}`);
  if (!Number.isInteger(dim) || dim < 2) throw new RangeError(`synthetic: dim must be a whole number ≥ 2, got ${dim}`);
  if (dim > MAX_COLUMNS) throw new RangeError(`synthetic: dim is at most ${MAX_COLUMNS} (features are stored dense), got ${dim}`);
  if (!(p > 0 && p < 1)) throw new RangeError(`synthetic: positiveFraction must be in (0, 1), got ${p}`);
  if (!Number.isInteger(labeled) || labeled < 0 || labeled > rows) throw new RangeError(`synthetic: labeled must be a whole number in [0, rows], got ${labeled}`);
  if (!(labelNoise >= 0 && labelNoise < 0.5)) throw new RangeError(`synthetic: labelNoise must be in [0, 0.5), got ${labelNoise}`);
  if (!(spread > 0 && spread <= MAX_SPREAD)) throw new RangeError(`synthetic: spread must be in (0, ${MAX_SPREAD}], got ${spread}`);
  if (!Number.isInteger(batchRows) || batchRows < 1) throw new RangeError(`synthetic: batchRows must be a whole number ≥ 1, got ${batchRows}`);
  const within = opts.labeledWithin;
  if (within !== undefined && !(Number.isInteger(within) && within >= labeled && within <= rows)) {
    throw new RangeError(`synthetic: labeledWithin must be a whole number in [labeled, rows] = [${labeled}, ${rows}], got ${within}`);
  }
  const positives = Math.round(rows * p);
  const [labeledNeg, labeledPos] = stratifiedCounts([rows - positives, positives], labeled);
  return { rows, dim, positives, labeledPos, labeledNeg, seed: String(opts.seed ?? 0), labelNoise, spread, batchRows, labelColumn: opts.labelColumn ?? 'label', labeledWithin: within, labeled, positiveFraction: p };
}

/** Reflects `x` into [0, 1] (mirror at 0 and at 1, as often as needed). */
/**
 * Largest blob spread: far beyond 1 the reflected coordinates are uniform
 * noise already, and near 1e308 the blob's offsets overflow to ±∞ (features
 * NaN after the reflection: a file dsgkit itself refuses).
 */
export const MAX_SPREAD = 1e6;

function reflect(x: number): number {
  let v = Math.abs(x) % 2;
  if (v > 1) v = 2 - v;
  return v;
}

/**
 * Draws the features of one row whose observed class is `y` into `columns[·][i]`:
 * the true class (`y` flipped with probability `labelNoise`), a blob, the two
 * informative coordinates (Box–Muller) and `dim − 2` uniforms, in that order.
 */
function drawFeatures(rng: () => number, y: number, r: Resolved, columns: Float64Array[], i: number): void {
  const truth = rng() < r.labelNoise ? -y : y;
  const blob = rng() < 0.5 ? 0 : 1;
  const cu = blob === 0 ? 0.25 : 0.75;
  const cv = truth > 0 ? cu : 1 - cu;
  // Box–Muller: two standard normals from two uniforms.
  const u1 = 1 - rng();
  const u2 = rng();
  const rad = Math.sqrt(-2 * Math.log(u1));
  columns[0][i] = reflect(cu + r.spread * rad * Math.cos(2 * Math.PI * u2));
  columns[1][i] = reflect(cv + r.spread * rad * Math.sin(2 * Math.PI * u2));
  for (let k = 2; k < r.dim; k++) columns[k][i] = rng();
}

/** Rows per keyed stream of the prefix-stable layout (a constant: changing it changes every such file). */
const KEY_ROWS = 4096;

/** The streams of keyed block `b` (rows `b·KEY_ROWS …`) of the prefix-stable layout: classes and features. */
function keyedStreams(seed: string, b: number): { cls: () => number; row: () => number } {
  return { cls: seedrandom.alea(`dsgkit-synthetic-class:${seed}:${b}`), row: seedrandom.alea(`dsgkit-synthetic-row:${seed}:${b}`) };
}

/**
 * The observed classes of rows `[0, count)` in the prefix-stable layout, as
 * counts: `[negatives, positives]` (one draw a row, from the class streams alone).
 */
function keyedClassCounts(r: Resolved, count: number): [number, number] {
  let pos = 0;
  for (let b = 0; b * KEY_ROWS < count; b++) {
    const cls = keyedStreams(r.seed, b).cls;
    for (let i = b * KEY_ROWS, end = Math.min(count, i + KEY_ROWS); i < end; i++) if (cls() < r.positiveFraction) pos++;
  }
  return [count - pos, pos];
}

/**
 * The generated rows, batch by batch (see the module comment). Pure and lazy:
 * holds one batch at a time.
 *
 * @example
 * for (const { label, columns } of syntheticBatches({ rows: 1e6, dim: 10, labeled: 500, seed: 1 })) {
 *   // label.length ≤ 65536 rows per batch, columns.length = 10
 * }
 */
export function* syntheticBatches(opts: SyntheticOptions): Generator<SyntheticBatch> {
  const r = resolve(opts);
  if (r.labeledWithin !== undefined) {
    yield* keyedBatches(r, r.labeledWithin);
    return;
  }
  const rng = seedrandom.alea(r.seed);
  let posLeft = r.positives;
  let labPosLeft = r.labeledPos;
  let labNegLeft = r.labeledNeg;
  let negLeft = r.rows - r.positives;
  yield* batchesOf(r, (_row, label, columns, i) => {
    // Observed class (exact count of positives via selection sampling).
    const isPos = rng() * (posLeft + negLeft) < posLeft;
    let keep: boolean;
    if (isPos) {
      keep = rng() * posLeft < labPosLeft;
      posLeft--;
      if (keep) labPosLeft--;
    } else {
      keep = rng() * negLeft < labNegLeft;
      negLeft--;
      if (keep) labNegLeft--;
    }
    return writeRow(rng, isPos, keep, r, label, columns, i);
  });
}

/** The prefix-stable layout: row i from the streams of its keyed block; the labeled rows among the first `within`. */
function* keyedBatches(r: Resolved, within: number): Generator<SyntheticBatch> {
  // Stratified by the classes the first `within` rows hold, then chosen by selection sampling among them.
  const [negWithin, posWithin] = keyedClassCounts(r, within);
  const [labNeg, labPos] = stratifiedCounts([negWithin, posWithin], r.labeled);
  const left = [negWithin, posWithin];
  const labLeft = [labNeg, labPos];
  const pick = seedrandom.alea(`dsgkit-synthetic-labeled:${r.seed}`);
  let streams = keyedStreams(r.seed, 0);
  yield* batchesOf(r, (row, label, columns, i) => {
    if (row % KEY_ROWS === 0 && row > 0) streams = keyedStreams(r.seed, row / KEY_ROWS);
    const c = streams.cls() < r.positiveFraction ? 1 : 0;
    let keep = false;
    if (row < within) {
      keep = pick() * left[c] < labLeft[c];
      left[c]--;
      if (keep) labLeft[c]--;
    }
    return writeRow(streams.row, c === 1, keep, r, label, columns, i);
  });
}

/**
 * The batches of either layout: `drawRow(row, label, columns, i)` draws row
 * `row` (in order) into slot `i` of the batch and returns 1 if its observed
 * class is +1, else 0.
 */
function* batchesOf(r: Resolved, drawRow: (row: number, label: Float64Array, columns: Float64Array[], i: number) => number): Generator<SyntheticBatch> {
  for (let start = 0; start < r.rows; start += r.batchRows) {
    const len = Math.min(r.batchRows, r.rows - start);
    const label = new Float64Array(len);
    const columns = Array.from({ length: r.dim }, () => new Float64Array(len));
    let positives = 0;
    for (let i = 0; i < len; i++) positives += drawRow(start + i, label, columns, i);
    yield { label, columns, positives };
  }
}

/** Writes a row whose observed class and label choice are drawn: its label (NaN unless kept) and its features from `rng`; 1 if positive. */
function writeRow(rng: () => number, isPos: boolean, keep: boolean, r: Resolved, label: Float64Array, columns: Float64Array[], i: number): number {
  const y = isPos ? 1 : -1;
  label[i] = keep ? y : NaN;
  drawFeatures(rng, y, r, columns, i);
  return isPos ? 1 : 0;
}

/** Feature names of a generated dataset: `x1 … x<dim>`. */
function names(dim: number): string[] {
  return Array.from({ length: dim }, (_, k) => `x${k + 1}`);
}

/**
 * The generated rows in memory, as a {@link Dataset} (for tests and small runs).
 *
 * @example
 * const ds = syntheticDataset({ rows: 2000, dim: 4, labeled: 100, seed: 3 });
 */
export function syntheticDataset(opts: SyntheticOptions): Dataset {
  const r = resolve(opts);
  const X = new Float64Array(r.rows * r.dim);
  const y = new Float64Array(r.rows);
  let row = 0;
  for (const { label, columns } of syntheticBatches(opts)) {
    for (let i = 0; i < label.length; i++, row++) {
      y[row] = label[i];
      for (let k = 0; k < r.dim; k++) X[row * r.dim + k] = columns[k][i];
    }
  }
  return makeDataset({ X, d: r.dim, y, featureNames: names(r.dim), labelName: r.labelColumn });
}

/**
 * Streams the generated rows to an Arrow IPC file (format from the extension:
 * `.arrows` → stream, else file), one record batch at a time, through a
 * temporary file renamed at the end. Memory stays at about one batch.
 *
 * @example
 * const summary = await writeSynthetic('big.arrow', { rows: 2_000_000, dim: 10, labeled: 1000, seed: 1 });
 * summary.positives; // 1000000
 */
export async function writeSynthetic(path: string, opts: SyntheticOptions, format: ArrowFormat = formatForPath(path)): Promise<SyntheticSummary> {
  const r = resolve(opts);
  const schema = datasetSchema(r.labelColumn, names(r.dim));
  let positives = 0;
  let labeledPositives = 0;
  const batches = (function* (): Generator<RecordBatch> {
    for (const batch of syntheticBatches(opts)) {
      positives += batch.positives;
      for (const v of batch.label) if (v === 1) labeledPositives++;
      yield makeBatch(schema, batch.label, batch.columns);
    }
  })();
  const count = await writeBatchesStreaming(path, batches, format);
  return { rows: r.rows, dim: r.dim, positives, labeled: r.labeled, labeledPositives, batches: count };
}
