/**
 * Training on an Arrow file without reading it into memory (sample on read):
 * which path `train` takes ({@link chooseSampleOnRead}), and the rows a run
 * of a loop learner keeps ({@link readPlannedRows}).
 *
 * A loop learner's draws depend on the sampling stream and the sizes of its
 * sources alone (learners/spec.ts), so a learner created on a RowRecorder and
 * sampled for the run's iterations, with the run's own sampling stream, names
 * every row the run will touch before a feature is read. The file is then
 * read again keeping only those rows (data/sample-on-read.ts): memory is the
 * labeled rows + the drawn rows (at most `T · B` per source) × d × 8 bytes +
 * one record batch, and the model is the same bytes as training in memory.
 */
import { freemem } from 'node:os';
import { UsageError } from './errors.ts';
import { formatOf, type ReadDatasetOptions } from './data/index.ts';
import { keepRows, scanArrow, type ArrowScan, type ReadProgress } from './data/sample-on-read.ts';
import { labelsOnly, RowRecorder, type KeptRows } from './data/training-rows.ts';
import { openArrowRows } from './data/arrow.ts';
import { MEDIAN_HEURISTIC_SAMPLE, sampleRowIndices } from './features/median-heuristic.ts';
import type { SamplingState } from './coordinator/loop.ts';
import type { StepSize } from './coordinator/step-size.ts';
import type { LearnerSpec, Params } from './learners/spec.ts';
import { taskClasses, type TaskClasses } from './model/task.ts';

/** Share of the available memory the in-memory path may plan to use before the automatic choice reads a sample instead. */
export const IN_MEMORY_SHARE = 0.5;

/**
 * Bytes the in-memory path needs for `n` rows of `d` features: the feature
 * matrix, the labels and flags, and a quarter more for the reader's batches
 * and the run.
 *
 * @example
 * inMemoryBytes(20_000_000, 20); // ≈ 4.2e9
 */
export function inMemoryBytes(n: number, d: number): number {
  return 1.25 * n * (d * 8 + 8 + 1);
}

/**
 * Memory this process may still use, in bytes: the system's available memory,
 * or the cgroup limit when it is lower.
 *
 * @example
 * availableMemory(); // e.g. 6.1e9
 */
export function availableMemory(): number {
  // Node ≥ 20.13 knows the cgroup limit and the system's free memory together.
  const node = (process as { availableMemory?: () => number }).availableMemory;
  if (typeof node === 'function') return node();
  const limit = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : 0;
  const free = freemem();
  return limit !== undefined && limit > 0 ? Math.min(free, Math.max(0, limit - process.memoryUsage.rss())) : free;
}

/**
 * Whether `train` reads a sample of `data` (true) or the whole of it (false):
 * `forced` when given (a UsageError when sample on read cannot apply: data
 * that is not an Arrow file path, or a learner that is not on the stochastic
 * loop); otherwise sample on read exactly when the data is an Arrow file, the
 * learner a loop learner, and the in-memory path would need more than
 * {@link IN_MEMORY_SHARE} of the available memory.
 *
 * @example
 * await chooseSampleOnRead(learnerSpec('qsg-s2auc'), 'big.arrow', {}, undefined); // true on a 40 GB file
 */
export async function chooseSampleOnRead(spec: LearnerSpec, data: unknown, read: ReadDatasetOptions, forced: unknown, memory: number = availableMemory()): Promise<boolean> {
  if (forced !== undefined && typeof forced !== 'boolean') throw new UsageError(`sampleOnRead must be true, false or left out (automatic), got ${String(forced)}`);
  const isArrowPath = typeof data === 'string' && formatOf(data) === 'arrow';
  if (forced === true) {
    if (!isArrowPath) throw new UsageError('sample on read needs data given as the path of an Arrow IPC file (CSV and LIBSVM: `dsgkit convert` them first)');
    if (!spec.capabilities.samplesOnRead) throw new UsageError(`sample on read applies to learners on the stochastic loop; ${spec.name} fits on the whole data in memory`);
    return true;
  }
  if (forced === false || !isArrowPath || !spec.capabilities.samplesOnRead) return false;
  const file = await openArrowRows(data, read);
  return inMemoryBytes(file.n, file.featureNames.length) > IN_MEMORY_SHARE * memory;
}

/** The training rows of a run read by sample on read, with what the in-memory path derives from the whole data. */
export interface PlannedRows {
  readonly scan: ArrowScan;
  /** The labeled rows, the σ₀ sample and the rows the run draws, scaled. */
  readonly rows: KeptRows;
  readonly classes: TaskClasses;
  /** The fingerprint of the scaled data, as {@link datasetFingerprint} gives it in memory. */
  readonly fingerprint: string;
}

/** What {@link readPlannedRows} needs to know of the run. */
export interface RunPlan {
  /** A learner that samples on read (it replays its draws: LearnerSpec.replayDraws). */
  readonly spec: LearnerSpec;
  /** The learner's parameters; `sigma` may still be undefined (then σ₀'s sample is kept too). */
  readonly params: Params;
  readonly step: StepSize;
  readonly positive?: number | string;
  /** A continued run: the iterations done and the sampling stream's state after them. */
  readonly start?: { readonly t: number; readonly rng: SamplingState };
  readonly onProgress?: (p: ReadProgress) => void;
  /** The feature scaling's clip quantile (0: min–max), fitted in the first pass as a whole read fits it. */
  readonly clipQuantile?: number;
  /** T not given: the run's parameters and step from the labeled rows the scan counted (train/data.ts LoadPlan.budgetFor). */
  readonly budgetFor?: (labeledRows: number) => { readonly params: Params; readonly step: StepSize | undefined };
}

/**
 * Reads the Arrow file `path` twice in flat memory and keeps the rows the run
 * described by `plan` uses (see the module comment).
 *
 * @example
 * const { rows, scan } = await readPlannedRows('big.arrow', {}, { spec, params, step });
 * const fitted = await spec.fit({ rows, classes, params, step, engine }); // draws only kept rows
 */
export async function readPlannedRows(path: string, read: ReadDatasetOptions, plan: RunPlan): Promise<PlannedRows> {
  const { spec } = plan;
  const scan = await scanArrow(path, read, plan.onProgress, plan.clipQuantile ?? 0);
  const { meta } = scan;
  // The first pass has counted the labeled rows: a T from the budget rule is known before the draws are planned.
  const resolved = plan.budgetFor?.(meta.labeledRows.length);
  const params = resolved?.params ?? plan.params;
  const step = resolved?.step ?? plan.step;
  const classes = taskClasses(spec.task, labelsOnly(meta), plan.positive !== undefined ? { positive: plan.positive } : {});
  const recorder = new RowRecorder(meta);
  recorder.add(meta.labeledRows);
  if ('sigma' in spec.params && params.sigma === undefined) recorder.add(sampleRowIndices(meta.n, MEDIAN_HEURISTIC_SAMPLE, 0));
  if (!spec.replayDraws) throw new UsageError(`sample on read applies to learners on the stochastic loop; ${spec.name} fits on the whole data in memory`);
  // σ does not change what a learner draws; a placeholder stands in for σ₀ until the rows are read.
  spec.replayDraws(recorder, classes, params.sigma === undefined ? { ...params, sigma: 1 } : params, step, params.T as number, plan.start);
  const { rows, fingerprint } = await keepRows(scan, recorder.rows(), plan.onProgress);
  return { scan, rows, classes, fingerprint };
}
