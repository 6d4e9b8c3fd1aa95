/**
 * The training rows of a run, scaled to [0, 1], and what is derived from the
 * whole data with them (the scaler, the task's classes, the fingerprint a
 * continued run is checked against) — read one of three ways: a stream of
 * unknown length (a seeded reservoir), an Arrow file read by sample on read
 * (only the rows the run draws), or the whole data in memory.
 */
import { Table } from 'apache-arrow';
import { UsageError } from '../errors.ts';
import { arraysToDataset, isArrayData } from '../data/arrays.ts';
import { isByteStream, openArrowStream } from '../data/arrow.ts';
import type { Dataset } from '../data/dataset.ts';
import { datasetFingerprint } from '../data/fingerprint.ts';
import { readDataset, tableToDataset, type ReadDatasetOptions } from '../data/index.ts';
import { reservoirSample } from '../data/sample-on-read.ts';
import { MinMaxScaler } from '../data/scaler.ts';
import type { TrainingRows } from '../data/training-rows.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import type { Validation } from '../coordinator/loop.ts';
import type { LearnerSpec, Params } from '../learners/spec.ts';
import type { ResumeState } from '../model/model-file.ts';
import { checkEvaluable, rankingMetric, taskClasses, type TaskClasses } from '../model/task.ts';
import { chooseSampleOnRead, readPlannedRows } from '../sample-plan.ts';
import type { RunOptions } from './options.ts';

/**
 * A Dataset from any form `train` accepts; a UsageError naming `option` otherwise.
 *
 * @example
 * const ds = await toDataset('train.arrow', 'data', {});
 */
export async function toDataset(data: unknown, option: string, read: ReadDatasetOptions = {}): Promise<Dataset> {
  if (typeof data === 'string') return readDataset(data, read);
  if (isArrayData(data)) return arraysToDataset(data, option);
  if (data instanceof Table) return tableToDataset(data, 'table', read);
  const ds = data as Dataset | null;
  if (ds !== null && typeof ds === 'object' && ds.X instanceof Float64Array && ds.y instanceof Float64Array && ds.labeled instanceof Uint8Array) return ds;
  throw new UsageError(`${option} must be a Dataset, a file path, an Arrow Table or { X, y } arrays, got ${data === null ? 'null' : typeof data === 'object' ? 'another object' : `${typeof data} ${String(data)}`}`);
}

/** A run's training rows, scaled, with what comes from the whole data. */
export interface LoadedRows {
  readonly rows: Dataset | TrainingRows;
  readonly scaler: MinMaxScaler;
  readonly classes: TaskClasses;
  /** The scaled data's fingerprint (learners that continue: what a continued run must match). */
  readonly fingerprint: string | undefined;
  /** Rows read from a stream (its reservoir keeps fewer); undefined otherwise. */
  readonly rowsRead: number | undefined;
}

/** What reading a run's rows needs to know of the run. */
export interface LoadPlan {
  readonly spec: LearnerSpec;
  readonly params: Params;
  readonly step: StepSize | undefined;
  readonly positive: number | string | undefined;
  /** A continued run's resume state: sample on read then reads only the rows the rest of the run draws. */
  readonly resume: ResumeState | undefined;
  /**
   * T not given: the run's parameters and step once the labeled rows n_l are
   * known (the budget rule, train/budget.ts). Sample on read calls it after its
   * first pass has counted them; a stream keeps `params` (n_l unknown).
   */
  readonly budgetFor?: (labeledRows: number) => { readonly params: Params; readonly step: StepSize | undefined };
  /** The feature scaling's clip quantile (RunOptions.clipQuantile, or a continued model's): 0 = min and max. */
  readonly clipQuantile: number;
}

/**
 * Reads the training rows of a run (see the module comment) and scales them.
 *
 * @example
 * const { rows, scaler, classes } = await loadTrainingRows(opts, { spec, params, step, positive: undefined, resume: undefined });
 */
export async function loadTrainingRows(opts: RunOptions, plan: LoadPlan): Promise<LoadedRows> {
  const { spec, params, positive } = plan;
  const classesOf = (ds: Dataset) => taskClasses(spec.task, ds, positive !== undefined ? { positive } : {});
  const clip = plan.clipQuantile;
  if (isByteStream(opts.data)) {
    // An Arrow stream of unknown length (a pipe): the labeled rows and a seeded reservoir
    // of T·B unlabeled rows, the scaler fitted on every row. A different, equally valid,
    // deterministic model than training on the whole data.
    if (!spec.capabilities.samplesOnRead) throw new UsageError(`data from a stream applies to learners on the stochastic loop; ${spec.name} fits on the whole data in memory (write the stream to a file)`);
    if (opts.sampleOnRead === false) throw new UsageError('data from a stream of unknown length is read by a reservoir sample (sampleOnRead cannot be false); write it to a file to read it whole');
    const path = (opts.data as unknown as { path?: unknown }).path;
    const name = typeof path === 'string' ? path : opts.data === process.stdin ? 'stdin' : 'stream';
    const sample = await reservoirSample(await openArrowStream(opts.data, name, opts.read ?? {}), (params.T as number) * (params.batchSize as number), params.seed as number, clip);
    const classes = classesOf(sample.ds);
    sample.scaler.transformInPlace(sample.ds.X);
    return { rows: sample.ds, scaler: sample.scaler, classes, fingerprint: datasetFingerprint(sample.ds), rowsRead: sample.n };
  }
  if (await chooseSampleOnRead(spec, opts.data, opts.read ?? {}, opts.sampleOnRead)) {
    const { resume } = plan;
    const planned = await readPlannedRows(opts.data as string, opts.read ?? {}, {
      spec,
      params,
      step: plan.step!,
      ...(plan.budgetFor ? { budgetFor: plan.budgetFor } : {}),
      ...(positive !== undefined ? { positive } : {}),
      ...(resume ? { start: { t: resume.t, rng: resume.rng } } : {}),
      ...(opts.onReadProgress ? { onProgress: opts.onReadProgress } : {}),
      clipQuantile: clip,
    });
    return { rows: planned.rows, scaler: planned.scan.scaler, classes: planned.classes, fingerprint: planned.fingerprint, rowsRead: undefined };
  }
  const raw = await toDataset(opts.data, 'data', opts.read);
  const classes = classesOf(raw);
  const scaler = MinMaxScaler.fit(raw, undefined, { clipQuantile: clip });
  // Rows read from a path are ours: scale them in place (one copy of X fewer, which is a
  // gigabyte at tens of millions of values). A caller's Dataset only when it says so.
  const inPlace = typeof opts.data === 'string' || opts.data instanceof Table || opts.scaleInPlace === true;
  const ds = inPlace ? (scaler.transformInPlace(raw.X), raw) : scaler.transform(raw);
  return { rows: ds, scaler, classes, fingerprint: spec.capabilities.continues ? datasetFingerprint(ds) : undefined, rowsRead: undefined };
}

/**
 * The validation set of a run, scaled like the training rows, with the task's
 * ranking metric, traced every `every` iterations.
 *
 * @example
 * const validation = await validationFor(opts, classes, scaler, rows, 20);
 */
export async function validationFor(opts: RunOptions, classes: TaskClasses, scaler: MinMaxScaler, train: Pick<TrainingRows, 'classNames' | 'd'>, every: number | undefined): Promise<Validation> {
  const read = { ...opts.read, ...(train.classNames ? { classes: train.classNames } : {}) } as ReadDatasetOptions;
  const val = scaler.transform(await toDataset(opts.validation, 'validation', read));
  if (val.d !== train.d) throw new UsageError(`validation has ${val.d} features, the training data ${train.d}`);
  checkEvaluable(classes, val);
  return { X: val.X, nPoints: val.n, ...(every !== undefined ? { every } : {}), name: classes.kind === 'binary' ? 'AUC' : 'mean AUC', metric: (f: Float64Array) => rankingMetric(classes, val.y, f) };
}
