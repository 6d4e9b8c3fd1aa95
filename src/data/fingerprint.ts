/**
 * A fingerprint of a dataset's rows as a learner sees them: SHA-256 over the
 * features, labels and labeled flags. A continued run compares it with the
 * one saved in the model, so a model is never continued on other data.
 */
import { createHash } from 'node:crypto';
import type { Dataset } from './dataset.ts';

/**
 * SHA-256 (hex) of `n`, `d`, the feature values, the labels and the labeled flags.
 *
 * @example
 * datasetFingerprint(scaled); // 'a3f1…' (64 hex digits), the same for the same rows bit for bit
 */
export function datasetFingerprint(ds: Dataset): string {
  const hash = createHash('sha256');
  hash.update(new Uint8Array(Float64Array.of(ds.n, ds.d).buffer));
  hash.update(new Uint8Array(ds.X.buffer, ds.X.byteOffset, ds.n * ds.d * 8));
  hash.update(new Uint8Array(ds.y.buffer, ds.y.byteOffset, ds.n * 8));
  hash.update(ds.labeled.subarray(0, ds.n));
  return hash.digest('hex');
}
