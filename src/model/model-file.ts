/**
 * The `.dsg` model file: self-describing, exact and checked.
 *
 * Layout of format 2 (little-endian):
 *   bytes 0..7   magic "DSGKIT\x00\x02" (format version in the last byte)
 *   bytes 8..11  uint32 length H of the header
 *   H bytes      UTF-8 JSON header ({@link ModelHeader}: learner, task, predictor, scaler, …)
 *   zero padding to a multiple of 8
 *   Float64      the predictor's payload (see predictor.ts: stored history
 *                coefficients, or expansion centres then coefficients)
 *   32 bytes     SHA-256 of every byte before it
 *
 * JSON numbers round-trip doubles exactly and the payload is raw bytes, so a
 * model survives save → load bit for bit. On load the checksum is verified
 * first (a flipped bit anywhere is "corrupt"), then the header's fields are
 * checked against each other and against the file's size before anything is
 * allocated, and a non-finite coefficient is refused. The checks hold for a
 * header forged with a valid checksum too: nesting deeper than
 * {@link MAX_HEADER_DEPTH}, a scaler with min > max or an infinite range, a
 * sampling state alea cannot be in, and a history scale the engine never
 * stores are each a ModelError naming the file.
 *
 * Format 1 (no checksum, random-feature binary models only) still loads, with a warning.
 */
import { createHash } from 'node:crypto';
import { ModelError } from '../errors.ts';
import { badRange, type MinMaxScalerJSON } from '../data/scaler.ts';
import { checkStepSize, type StepSize } from '../coordinator/step-size.ts';
import { payloadLength, type PredictorHeader } from './predictor.ts';
import { METRICS, TASK_KINDS, type MetricName, type Task } from './task.ts';

export const MODEL_FORMAT_VERSION = 2;
const MAGIC = [0x44, 0x53, 0x47, 0x4b, 0x49, 0x54, 0x00];
const CHECKSUM_BYTES = 32;

/** The header of a model file (format 2). */
export interface ModelHeader {
  readonly format: 'dsgkit-model';
  readonly version: number;
  /** Learner id: its name in the registry. */
  readonly learner: string;
  /** The learner's hyperparameters as trained (λ, γ, step, batch size, T, …). */
  readonly hyperparameters: Hyperparameters;
  /** The learner's own metric: what `score` returns. */
  readonly metric: MetricName;
  /** What the model predicts and how scores become labels. */
  readonly task: Task;
  /** The function f. */
  readonly predictor: PredictorHeader;
  readonly scaler: MinMaxScalerJSON;
  readonly featureNames: readonly string[];
  readonly labelName: string;
  /** How training went: not part of the model's arithmetic. */
  readonly training: TrainingRecord;
  /** Random-feature loop models: what continuing the run needs (`train({ init })`, `--init`). */
  readonly resume?: ResumeState;
}

/**
 * A model's hyperparameters: the learner's parameters as trained (every
 * default filled), its step schedule (learners with one) and the values a fit
 * computed (e.g. GKM's C′ and support-vector count, FRS3VM's iterations).
 */
export type Hyperparameters = Readonly<Record<string, HyperparameterValue>>;

/** One hyperparameter's value: a number, a name, a list of numbers (learners/params.ts: ParamValue), or a step schedule. */
export type HyperparameterValue = number | string | readonly number[] | StepSize | undefined;

type ParamValue = number | string | readonly number[];

/** How a model was trained, as its header records it (written by `train`, extended by `tune`). */
export interface TrainingRecord {
  /** Training rows read (with a stream: every row read, of which the reservoir kept some). */
  readonly rows: number;
  readonly labeledRows: number;
  /** Data from a stream: the unlabeled rows its reservoir kept. */
  readonly reservoir?: number;
  /**
   * σ when it was not given: the median heuristic σ₀ and the ratio σ/σ₀ the
   * default rule chose (train/defaults.ts, defaultKernelScale). Absent when σ was given.
   */
  readonly defaultSigma?: { readonly sigma0: number; readonly ratio: number };
  /** A loop learner trained without a given T: how its budget rule derived T, e.g. `T = 400 from n_l = 200 labeled rows`. */
  readonly budget?: string;
  /** Validation trace `[t, value]` of the task's ranking metric. */
  readonly validation?: ReadonlyArray<readonly [number, number]>;
  /** Learners on the loop: how f at the batches was obtained. */
  readonly evaluation?: 'history' | 'rows';
  /** The training file's path, when it came from one. */
  readonly data?: string;
  /** A model refit by `tune`: the search that chose it (tune.ts: TuneRecord). */
  readonly tune?: TuneRecord;
}

/** What `tune` records in its refit model's header (see tune.ts for each field's meaning). */
export interface TuneRecord {
  readonly folds: number;
  readonly repeats?: number;
  readonly metric: string;
  readonly select?: string;
  readonly sigma0: number;
  /** The chosen σ over σ₀ (learners with a kernel scale). */
  readonly sigmaRatio?: number;
  readonly space: Readonly<Record<string, readonly ParamValue[]>>;
  /**
   * The successive halving: over iterations, continued (loop learners), or with
   * `budget` over the fraction t/T of the budget, restarted, the field cut by
   * `cut` per round, the rounds before the last on the first `earlyFolds` folds
   * (learners with `tuneBudget`).
   */
  readonly halving?: { readonly eta: number; readonly t0: number; readonly T: number; readonly budget?: true; readonly cut?: number; readonly earlyFolds?: number };
  readonly table: readonly TuneTableRow[];
  readonly rounds: readonly TuneRoundRecord[];
  readonly blockEvaluations?: { readonly halving: number; readonly fullGrid: number; readonly fraction: number; readonly refit: number };
  /** The guard between the search's pick and the defaults (tune.ts: TuneRunOptions.guard). */
  readonly guard?: string;
  /** The search's pick against the defaults: CV gain and its standard error. */
  readonly overDefaults?: { readonly gain: number; readonly se: number };
  /** Semi-supervised learners: false when the chosen setting is the learner's supervised special case (CV judged the unlabeled rows not to help). */
  readonly usesUnlabeled?: boolean;
  /** Learners with the class-share cut: the minority shares tried, the winner's CV accuracy at each, the one refit with (tune.ts: MinorityShareChoice). */
  readonly minorityShare?: { readonly shares: readonly number[]; readonly accuracies: readonly number[]; readonly chosen: number };
}

/** One candidate's line of `tune`'s CV table. */
export interface TuneTableRow {
  /** Candidate id (its index in the grid, parameters varied last-key-fastest). */
  readonly id: number;
  /** The searched parameters' values. */
  readonly params: Readonly<Record<string, ParamValue>>;
  /**
   * What candidates are ranked by, at the last round it ran: the learner's metric
   * over the out-of-fold scores of all folds pooled (every labeled row scored by
   * the fold model that did not see its label). For AUC this compares every
   * positive with every negative of the labeled rows, not only pairs within a
   * fold of n_l/k rows: a steadier estimate when labels are few. For accuracy
   * it equals the mean weighted by fold size. With repeats, the mean of that
   * score over the repeated draws of the folds.
   */
  readonly score: number;
  /**
   * With selection `neighbourhood`: the mean {@link score} of the candidate and its grid
   * neighbours in its last round, what it was ranked by there.
   */
  readonly neighbourhood?: number;
  /** Mean and sample sd over the folds (of every repeat, in repeat order) of the metric ranked by (the learner's own, its `tuneMetric` or the one asked for), fold by fold. */
  readonly mean: number;
  readonly sd: number;
  readonly folds: readonly number[];
  /** Iterations it reached (loop learners), or undefined. */
  readonly t?: number;
  /**
   * 'best'; 'kept' (ran the last round but lost); 'reference' (the learner's
   * defaults, run to T after the halving so the winner is never worse in CV
   * than them); or the round it was dropped after.
   */
  readonly status: 'best' | 'kept' | 'reference' | `dropped after round ${number}`;
}

/** One round of `tune`'s halving as it ran. */
export interface TuneRoundRecord {
  readonly round: number;
  readonly from: number;
  readonly t: number;
  readonly candidates: readonly number[];
  /** Pooled out-of-fold score per candidate (see {@link TuneTableRow.score}), in `candidates` order. */
  readonly scores: readonly number[];
  /** With selection `neighbourhood`: what the round ranked by (see {@link TuneTableRow.neighbourhood}), in `candidates` order. */
  readonly neighbourhood?: readonly number[];
  /** The defaults' reference round after the halving (see {@link TuneTableRow.status}). */
  readonly reference?: true;
}

/**
 * The state a stopped loop run continues from, besides its history (the
 * payload): the iteration reached, the sampling stream's state after it, and
 * a fingerprint of the scaled training data (continuing on other data is refused).
 */
export interface ResumeState {
  /** Iterations done; equals the predictor's history.t. */
  readonly t: number;
  /** seedrandom alea state of the sampling stream after iteration t. */
  readonly rng: { readonly c: number; readonly s0: number; readonly s1: number; readonly s2: number };
  /** SHA-256 (hex) of the training rows as the loop saw them (scaled features, labels, labeled flags). */
  readonly data: string;
  /** Learners with a bias: the running b after iteration t (the model's final b may differ, e.g. under a class balance). */
  readonly bias?: number;
}

/** A decoded model file. */
export interface DecodedModel {
  readonly header: ModelHeader;
  readonly payload: Float64Array;
  /** Things a user should know (an old format without a checksum). */
  readonly warnings: readonly string[];
}

/**
 * Serialises a header and a predictor payload, with the checksum trailer.
 *
 * @example
 * const bytes = encodeModel(header, predictor.payload());
 */
export function encodeModel(header: ModelHeader, payload: Float64Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const dataStart = Math.ceil((12 + json.length) / 8) * 8;
  const end = dataStart + payload.length * 8;
  const bytes = new Uint8Array(end + CHECKSUM_BYTES);
  bytes.set(MAGIC, 0);
  bytes[7] = MODEL_FORMAT_VERSION;
  const view = new DataView(bytes.buffer);
  view.setUint32(8, json.length, true);
  bytes.set(json, 12);
  for (let j = 0; j < payload.length; j++) view.setFloat64(dataStart + 8 * j, payload[j], true);
  bytes.set(sha256(bytes.subarray(0, end)), end);
  return bytes;
}

/**
 * Parses and checks a model file's bytes; `file` names it in every ModelError.
 *
 * @example
 * const { header, payload, warnings } = decodeModel(await readFile('model.dsg'), 'model.dsg');
 */
export function decodeModel(bytes: Uint8Array, file: string): DecodedModel {
  if (bytes.length < 12 || !MAGIC.every((b, i) => bytes[i] === b)) throw new ModelError(`${file}: not a dsgkit model file (bad magic bytes)`);
  const version = bytes[7];
  if (version !== 1 && version !== MODEL_FORMAT_VERSION) {
    throw new ModelError(`${file}: model format version ${version} is not supported (this dsgkit reads versions 1 and ${MODEL_FORMAT_VERSION})`);
  }
  const warnings: string[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > bytes.length) throw new ModelError(`${file}: truncated model file (header cut short)`);
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + headerLength)));
  } catch (err) {
    raw = undefined;
    if (version === 1) throw new ModelError(`${file}: corrupt model header (not JSON)`, { cause: err });
  }
  let body = bytes;
  if (version === MODEL_FORMAT_VERSION) {
    body = bytes.subarray(0, Math.max(12, bytes.length - CHECKSUM_BYTES));
    const stored = bytes.subarray(body.length);
    const expected = sha256(body);
    if (stored.length !== CHECKSUM_BYTES || !expected.every((b, i) => b === stored[i])) {
      // Say "truncated" when the (unverified) header describes a longer file, "corrupt" otherwise.
      const size = raw === undefined ? undefined : describedSize(raw as ModelHeader, headerLength);
      if (size !== undefined && bytes.length < size + CHECKSUM_BYTES) throw new ModelError(`${file}: truncated model file (${bytes.length} bytes, the header describes ${size + CHECKSUM_BYTES})`);
      throw new ModelError(`${file}: corrupt model file (checksum mismatch: the file was changed or damaged after it was saved)`);
    }
    if (raw === undefined) throw new ModelError(`${file}: corrupt model header (not JSON)`);
  } else {
    warnings.push(`${file}: model format 1 has no checksum, so damage to it cannot be detected; save it again to upgrade it to format ${MODEL_FORMAT_VERSION}`);
  }
  const header = version === 1 ? upgradeV1(raw, file) : (raw as ModelHeader);
  const count = checkHeader(header, file);
  const dataStart = Math.ceil((12 + headerLength) / 8) * 8;
  const expected = dataStart + 8 * count;
  if (body.length < expected) throw new ModelError(`${file}: truncated model file (${bytes.length} bytes, the header describes ${expected + (version === 1 ? 0 : CHECKSUM_BYTES)})`);
  if (body.length > expected) throw new ModelError(`${file}: ${body.length - expected} unexpected bytes after the coefficients`);
  checkAgainstFeatures(header, (what) => new ModelError(`${file}: corrupt model header (${what})`));
  const payload = new Float64Array(count);
  for (let j = 0; j < count; j++) {
    const v = view.getFloat64(dataStart + 8 * j, true);
    if (!Number.isFinite(v)) throw new ModelError(`${file}: corrupt model file (stored value ${j} is ${v})`);
    payload[j] = v;
  }
  return { header, payload, warnings };
}

/** The size (bytes, without checksum) a header describes, or undefined when it cannot be told. */
function describedSize(h: ModelHeader, headerLength: number): number | undefined {
  try {
    return Math.ceil((12 + headerLength) / 8) * 8 + 8 * payloadLength(h.predictor, '');
  } catch {
    return undefined;
  }
}

function sha256(bytes: Uint8Array): Uint8Array {
  return createHash('sha256').update(bytes).digest();
}

/** A format-1 header (random-feature binary models) in format-2 shape. */
function upgradeV1(raw: unknown, file: string): ModelHeader {
  const h = raw as Record<string, unknown> | null;
  if (h === null || typeof h !== 'object') throw new ModelError(`${file}: corrupt model header (not an object)`);
  const { features, chunkSize, history, ...rest } = h;
  return { ...(rest as object), version: 1, metric: 'auc', predictor: { kind: 'random-features', features, chunkSize, history } } as unknown as ModelHeader;
}

/**
 * How deeply a model header's JSON may nest. dsgkit writes at most 6 levels
 * (a tune table inside `training`); a deeper header is forged or damaged, and
 * the code that prints it (`describe`) must not recurse 5,000 levels deep.
 */
export const MAX_HEADER_DEPTH = 16;

/** The nesting depth of a JSON value (0 for a number or string), counted without recursion. */
function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const inner = depth + 1;
    if (inner > max) max = inner;
    if (max > MAX_HEADER_DEPTH) return max;
    for (const child of Object.values(v as object)) if (child !== null && typeof child === 'object') stack.push([child, inner]);
  }
  return max;
}

/** Whether `x` is a number the model file may hold (finite). */
const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Checks the header's fields against each other; returns the payload length in doubles. */
function checkHeader(h: ModelHeader, file: string): number {
  const bad = (what: string) => new ModelError(`${file}: corrupt model header (${what})`);
  if (h === null || typeof h !== 'object' || h.format !== 'dsgkit-model') throw bad('format');
  if (jsonDepth(h) > MAX_HEADER_DEPTH) throw bad(`nested more than ${MAX_HEADER_DEPTH} levels deep`);
  if (typeof h.learner !== 'string') throw bad('learner');
  if (typeof h.metric !== 'string' || !Object.hasOwn(METRICS, h.metric)) throw bad('metric');
  const count = payloadLength(h.predictor, file);
  const d = h.predictor.kind === 'random-features' ? h.predictor.features.d : h.predictor.d;
  if (!Array.isArray(h.featureNames) || h.featureNames.length !== d || !h.featureNames.every((n) => typeof n === 'string')) throw bad('featureNames');
  if (typeof h.labelName !== 'string') throw bad('labelName');
  const s = h.scaler;
  if (!s || s.kind !== 'minmax' || !Array.isArray(s.min) || !Array.isArray(s.max) || s.min.length !== d || s.max.length !== d) throw bad('scaler');
  if (!s.min.every(finite) || !s.max.every(finite)) throw bad('scaler: a minimum or maximum is not a finite number');
  if (!Array.isArray(s.featureNames) || s.featureNames.length !== d || !s.featureNames.every((n) => typeof n === 'string')) throw bad('scaler: featureNames');
  const k = badRange(s.min, s.max);
  if (k >= 0) throw bad(`scaler: feature ${k + 1} has min ${s.min[k]} and max ${s.max[k]}; min must not exceed max and max − min must be finite`);
  checkTask(h.task, bad);
  if (h.hyperparameters === null || typeof h.hyperparameters !== 'object' || Array.isArray(h.hyperparameters)) throw bad('hyperparameters');
  if (h.hyperparameters.step !== undefined) checkStep(h.hyperparameters.step, bad);
  if (h.training === null || typeof h.training !== 'object') throw bad('training');
  if (h.resume !== undefined) checkResume(h, bad);
  return count;
}

/**
 * The hyperparameters a random-feature history was built with must be the
 * history's own (`--init` continues with the hyperparameters, the history
 * holds the blocks): m, the seed, the kernel and σ, and T at least the
 * iterations done.
 */
function checkAgainstFeatures(h: ModelHeader, bad: (what: string) => ModelError): void {
  if (h.predictor.kind !== 'random-features') return;
  const hp = h.hyperparameters;
  const { features, history } = h.predictor;
  const differs = (name: string, saved: unknown, own: unknown) => {
    if (saved !== undefined && saved !== own) throw bad(`hyperparameters: ${name} = ${JSON.stringify(saved)}, but the random features have ${JSON.stringify(own)}`);
  };
  if (h.resume !== undefined) {
    // A run to continue: the settings that fix its history must be there (a missing one would be taken from the defaults).
    for (const key of ['m', 'seed', 'T']) if (hp[key] === undefined) throw bad(`hyperparameters: ${key} is missing from a resumable run`);
  }
  differs('m', hp.m, features.m);
  if (hp.seed !== undefined && (typeof hp.seed === 'object' || String(hp.seed) !== String(features.seed))) differs('seed', hp.seed, features.seed);
  differs('kernel', hp.kernel, (features.kernel as { kind: string }).kind);
  if (typeof hp.sigma === 'number') differs('sigma', hp.sigma, (features.kernel as { sigma?: number }).sigma);
  if (hp.T !== undefined && !(Number.isSafeInteger(hp.T) && (hp.T as number) >= history.t)) throw bad(`hyperparameters: T = ${JSON.stringify(hp.T)}, below the ${history.t} iterations the history holds`);
}

function checkResume(h: ModelHeader, bad: (what: string) => ModelError): void {
  const r = h.resume!;
  if (r === null || typeof r !== 'object' || h.predictor.kind !== 'random-features' || r.t !== h.predictor.history.t) throw bad('resume: t must equal the history\'s t');
  const rng = r.rng as Record<string, unknown> | null;
  // seedrandom's alea keeps s0, s1, s2 in [0, 1) and the carry c a whole number in [0, 2091639].
  const inUnit = (k: string) => typeof rng![k] === 'number' && (rng![k] as number) >= 0 && (rng![k] as number) < 1;
  if (rng === null || typeof rng !== 'object' || !['s0', 's1', 's2'].every(inUnit) || !(Number.isInteger(rng.c) && (rng.c as number) >= 0 && (rng.c as number) <= 2091639)) {
    throw bad('resume: sampling state (alea needs s0, s1, s2 in [0, 1) and a whole c in [0, 2091639])');
  }
  if (typeof r.data !== 'string' || !/^[0-9a-f]{64}$/.test(r.data)) throw bad('resume: data fingerprint');
  if (r.bias !== undefined && !(typeof r.bias === 'number' && Number.isFinite(r.bias))) throw bad('resume: bias');
}

/**
 * A loop learner's step schedule as saved (what `--init` continues with):
 * positive finite numbers of the kinds `stepAt` knows. Its values are not in
 * the learner's parameter table (they are set by `--step`/θ), so they are
 * checked here, against a file forged to make every step NaN.
 */
function checkStep(step: unknown, bad: (what: string) => ModelError): void {
  const s = step as Record<string, unknown> | null;
  const kinds = ['inverse', 'constant', 'decay'];
  const numbers = s !== null && typeof s === 'object' && kinds.includes(s.kind as string) && Object.entries(s).every(([k, v]) => k === 'kind' || finite(v));
  try {
    if (!numbers) throw new RangeError('not a schedule');
    checkStepSize(s as unknown as StepSize);
  } catch (err) {
    throw bad(`hyperparameters: step (${(err as Error).message}; a schedule {kind: inverse|constant|decay} with positive finite numbers)`);
  }
}

function checkTask(task: Task, bad: (what: string) => ModelError): void {
  if (!task || !TASK_KINDS.includes(task.kind)) throw bad('task');
  const names = task.classNames;
  if (names !== undefined && (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))) throw bad('task class names');
  const isLabel = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && (names === undefined || (Number.isInteger(v) && v >= 0 && v < names.length));
  if (task.kind === 'binary') {
    if (!isLabel(task.positive) || !isLabel(task.negative) || task.positive === task.negative || !Number.isFinite(task.threshold)) throw bad('binary task');
    return;
  }
  const { classes, thresholds } = task;
  if (!Array.isArray(classes) || classes.length < 2 || !classes.every(isLabel) || new Set(classes).size !== classes.length) throw bad('ordinal classes');
  if (!Array.isArray(thresholds) || thresholds.length !== classes.length - 1 || !thresholds.every((b) => Number.isFinite(b))) throw bad('ordinal thresholds');
}
