/**
 * The `.dsg` model file: self-describing and exact.
 *
 * Layout (little-endian):
 *   bytes 0..7   magic "DSGKIT\x00\x01" (format version 1 in the last byte)
 *   bytes 8..11  uint32 length H of the header
 *   H bytes      UTF-8 JSON header ({@link ModelHeader})
 *   zero padding to a multiple of 8
 *   Float64      stored coefficients α̃ of blocks [firstLive, t), 2m per block
 *
 * JSON numbers round-trip doubles exactly and the coefficients are raw bytes,
 * so a model survives save → load bit for bit.
 */
import { ModelError } from '../errors.ts';
import type { MinMaxScalerJSON } from '../data/scaler.ts';
import type { RandomFeatures } from '../engine/random-features.ts';

export const MODEL_FORMAT_VERSION = 1;
const MAGIC = [0x44, 0x53, 0x47, 0x4b, 0x49, 0x54, 0x00, MODEL_FORMAT_VERSION];

/** What the model predicts. */
export type ModelTask = { readonly kind: 'binary'; readonly positive: number; readonly negative: number; readonly threshold: number };

/** The header of a model file. */
export interface ModelHeader {
  readonly format: 'dsgkit-model';
  readonly version: number;
  /** Learner id, e.g. "qsg-s2auc". */
  readonly learner: string;
  /** The learner's hyperparameters as trained (λ, γ, step, batch size, T, …). */
  readonly hyperparameters: Readonly<Record<string, unknown>>;
  readonly features: RandomFeatures;
  /** Blocks per chunk: fixes the summation order of f. */
  readonly chunkSize: number;
  readonly task: ModelTask;
  readonly scaler: MinMaxScalerJSON;
  readonly featureNames: readonly string[];
  readonly labelName: string;
  readonly history: { readonly t: number; readonly firstLive: number; readonly scale: number };
  /** How training went: not part of the model's arithmetic. */
  readonly training: Readonly<Record<string, unknown>>;
}

/**
 * Serialises a header and the stored coefficients of blocks `[firstLive, t)`.
 *
 * @example
 * const bytes = encodeModel(header, history.stored.subarray(firstLive * 2 * m, t * 2 * m));
 */
export function encodeModel(header: ModelHeader, coefficients: Float64Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerEnd = 12 + json.length;
  const dataStart = Math.ceil(headerEnd / 8) * 8;
  const bytes = new Uint8Array(dataStart + coefficients.length * 8);
  bytes.set(MAGIC, 0);
  new DataView(bytes.buffer).setUint32(8, json.length, true);
  bytes.set(json, 12);
  const view = new DataView(bytes.buffer, dataStart);
  for (let j = 0; j < coefficients.length; j++) view.setFloat64(8 * j, coefficients[j], true);
  return bytes;
}

/**
 * Parses and checks a model file's bytes; `file` names it in errors.
 *
 * @example
 * const { header, coefficients } = decodeModel(await readFile('model.dsg'), 'model.dsg');
 */
export function decodeModel(bytes: Uint8Array, file: string): { header: ModelHeader; coefficients: Float64Array } {
  if (bytes.length < 12 || !MAGIC.slice(0, 7).every((b, i) => bytes[i] === b)) {
    throw new ModelError(`${file}: not a dsgkit model file (bad magic bytes)`);
  }
  if (bytes[7] !== MODEL_FORMAT_VERSION) throw new ModelError(`${file}: model format version ${bytes[7]} is not supported (this dsgkit reads version ${MODEL_FORMAT_VERSION})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > bytes.length) throw new ModelError(`${file}: truncated model file (header cut short)`);
  let header: ModelHeader;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + headerLength))) as ModelHeader;
  } catch (err) {
    throw new ModelError(`${file}: corrupt model header`, { cause: err });
  }
  checkHeader(header, file);
  const dataStart = Math.ceil((12 + headerLength) / 8) * 8;
  const count = (header.history.t - header.history.firstLive) * 2 * header.features.m;
  const expected = dataStart + 8 * count;
  if (bytes.length < expected) throw new ModelError(`${file}: truncated model file (${bytes.length} bytes, expected ${expected})`);
  if (bytes.length > expected) throw new ModelError(`${file}: ${bytes.length - expected} unexpected bytes after the coefficients`);
  const coefficients = new Float64Array(count);
  for (let j = 0; j < count; j++) coefficients[j] = view.getFloat64(dataStart + 8 * j, true);
  return { header, coefficients };
}

function checkHeader(h: ModelHeader, file: string): void {
  const bad = (what: string) => new ModelError(`${file}: corrupt model header (${what})`);
  if (h === null || typeof h !== 'object' || h.format !== 'dsgkit-model') throw bad('format');
  if (typeof h.learner !== 'string') throw bad('learner');
  const f = h.features;
  if (!f || typeof f.m !== 'number' || typeof f.d !== 'number' || typeof f.seed !== 'number' || !f.kernel) throw bad('features');
  const hist = h.history;
  if (!hist || !Number.isInteger(hist.t) || !Number.isInteger(hist.firstLive) || hist.firstLive > hist.t || typeof hist.scale !== 'number') throw bad('history');
  if (!Number.isInteger(h.chunkSize) || h.chunkSize < 1) throw bad('chunkSize');
  if (!Array.isArray(h.featureNames) || h.featureNames.length !== f.d) throw bad('featureNames');
  if (!h.scaler || h.scaler.kind !== 'minmax') throw bad('scaler');
  if (!h.task || h.task.kind !== 'binary') throw bad('task');
}
