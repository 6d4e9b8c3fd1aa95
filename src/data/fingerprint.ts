/**
 * A fingerprint of a dataset's rows as a learner sees them: SHA-256 over the
 * features (scaled), labels and labeled flags. A continued run compares it
 * with the one saved in the model, so a model is never continued on other
 * data. {@link StreamedFingerprint} computes it block by block, so sample on read
 * (data/sample-on-read.ts) gives the same digest while streaming a file.
 */
import { createHash } from 'node:crypto';
import type { Dataset } from './dataset.ts';
import { BackgroundHash } from './background-hash.ts';

/** Rows of labels hashed at a time when they are rebuilt from the labeled rows alone. */
const LABEL_CHUNK = 65_536;

/** The digest's first bytes: `n` and `d` as doubles. */
function headerBytes(n: number, d: number): Uint8Array {
  return new Uint8Array(Float64Array.of(n, d).buffer);
}

/**
 * The digest's last bytes when the labels are given only for the labeled rows
 * (`labeledRows` ascending, `labels` theirs): the bytes of the full label
 * array (NaN = unlabeled) then of the labeled flags, {@link LABEL_CHUNK} rows
 * at a time (each piece is overwritten by the next).
 */
function* sparseLabelBytes(n: number, labeledRows: Int32Array, labels: Float64Array): Generator<Uint8Array> {
  const y = new Float64Array(Math.min(n, LABEL_CHUNK));
  const flags = new Uint8Array(Math.min(n, LABEL_CHUNK));
  for (const pass of ['y', 'flags'] as const) {
    let j = 0;
    for (let from = 0; from < n; from += LABEL_CHUNK) {
      const to = Math.min(n, from + LABEL_CHUNK);
      y.fill(NaN);
      flags.fill(0);
      for (; j < labeledRows.length && labeledRows[j] < to; j++) {
        y[labeledRows[j] - from] = labels[j];
        flags[labeledRows[j] - from] = 1;
      }
      yield pass === 'y' ? new Uint8Array(y.buffer, 0, (to - from) * 8) : flags.subarray(0, to - from);
    }
  }
}

/** Values of X hashed at a time by {@link datasetFingerprint} (128 MiB of bytes). */
const HASH_SLICE = 2 ** 24;

/** A block of rows' features as the digest reads them. */
const featureBytes = (X: Float64Array) => new Uint8Array(X.buffer, X.byteOffset, X.byteLength);

/**
 * The fingerprint computed piece by piece, on a thread of its own
 * (data/background-hash.ts): `n` and `d` first, then the features in row order
 * (any blocks), then the labels — the digest {@link datasetFingerprint} gives
 * for the whole dataset, while the caller goes on reading. For a pass over a large
 * file (sample on read's second pass); close it when done, or on an error.
 *
 * @example
 * const fp = new StreamedFingerprint(n, d);
 * try {
 *   for await (const b of rows.batches(undefined, { reuse: true, scale })) await fp.features(b.X);
 *   return await fp.sparseLabels(labeledRows, labels);
 * } finally {
 *   await fp.close();
 * }
 */
export class StreamedFingerprint {
  private readonly hash = new BackgroundHash();
  private started: Promise<void>;

  constructor(readonly n: number, readonly d: number) {
    this.started = this.hash.update(headerBytes(n, d));
  }

  /** The next rows' features, row-major (copied before this resolves). */
  async features(X: Float64Array): Promise<void> {
    await this.started;
    await this.hash.update(featureBytes(X));
  }

  /**
   * Ends with the labels given only for the labeled rows (`labeledRows`
   * ascending, `labels` theirs), in O(labeled + chunk) memory, and gives the
   * digest: the one of the full label array and labeled flags.
   */
  async sparseLabels(labeledRows: Int32Array, labels: Float64Array): Promise<string> {
    await this.started;
    for (const bytes of sparseLabelBytes(this.n, labeledRows, labels)) await this.hash.update(bytes);
    return this.hash.digest();
  }

  /** Stops the hashing thread. */
  close(): Promise<void> {
    return this.hash.close();
  }
}

/**
 * SHA-256 (hex) of `n`, `d`, the feature values, the labels and the labeled flags.
 *
 * @example
 * datasetFingerprint(scaled); // 'a3f1…' (64 hex digits), the same for the same rows bit for bit
 */
export function datasetFingerprint(ds: Dataset): string {
  const hash = createHash('sha256').update(headerBytes(ds.n, ds.d));
  // The features a slice at a time (the same digest): a byte view of more than 2³² − 1 bytes cannot be made.
  const values = ds.n * ds.d;
  for (let at = 0; at < values; at += HASH_SLICE) hash.update(featureBytes(ds.X.subarray(at, Math.min(values, at + HASH_SLICE))));
  hash.update(new Uint8Array(ds.y.buffer, ds.y.byteOffset, ds.n * 8));
  hash.update(ds.labeled.subarray(0, ds.n));
  return hash.digest('hex');
}
