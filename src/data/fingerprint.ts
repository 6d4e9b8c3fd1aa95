/**
 * A fingerprint of a dataset's rows as a learner sees them: SHA-256 over the
 * features (scaled), labels and labeled flags. A continued run compares it
 * with the one saved in the model, so a model is never continued on other
 * data. {@link DataFingerprint} computes it block by block, so sample on read
 * (data/sample-on-read.ts) gives the same digest while streaming a file.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Dataset } from './dataset.ts';

/** Rows of labels hashed at a time when they are rebuilt from the labeled rows alone. */
const LABEL_CHUNK = 65_536;

/**
 * The fingerprint computed piece by piece: `n` and `d` first, then the
 * features in row order (any blocks), then the labels.
 *
 * @example
 * const fp = new DataFingerprint(n, d);
 * for await (const b of rows.batches()) fp.features(scaler.transformInPlace(b.X));
 * fp.sparseLabels(labeledRows, labels); // 64 hex digits, = datasetFingerprint(whole dataset)
 */
export class DataFingerprint {
  private readonly hash: Hash = createHash('sha256');

  constructor(readonly n: number, readonly d: number) {
    this.hash.update(new Uint8Array(Float64Array.of(n, d).buffer));
  }

  /** The next rows' features, row-major. */
  features(X: Float64Array): void {
    this.hash.update(new Uint8Array(X.buffer, X.byteOffset, X.byteLength));
  }

  /** Ends with the labels of all `n` rows (NaN = unlabeled) and the labeled flags. */
  labels(y: Float64Array, labeled: Uint8Array): string {
    this.hash.update(new Uint8Array(y.buffer, y.byteOffset, this.n * 8));
    this.hash.update(labeled.subarray(0, this.n));
    return this.hash.digest('hex');
  }

  /**
   * Ends with the labels given only for the labeled rows (`labeledRows`
   * ascending, `labels` theirs): the same digest as {@link labels} on the
   * full arrays, in O(labeled + chunk) memory.
   */
  sparseLabels(labeledRows: Int32Array, labels: Float64Array): string {
    const { n } = this;
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
        if (pass === 'y') this.hash.update(new Uint8Array(y.buffer, 0, (to - from) * 8));
        else this.hash.update(flags.subarray(0, to - from));
      }
    }
    return this.hash.digest('hex');
  }
}

/**
 * SHA-256 (hex) of `n`, `d`, the feature values, the labels and the labeled flags.
 *
 * @example
 * datasetFingerprint(scaled); // 'a3f1…' (64 hex digits), the same for the same rows bit for bit
 */
export function datasetFingerprint(ds: Dataset): string {
  const fp = new DataFingerprint(ds.n, ds.d);
  fp.features(ds.X.subarray(0, ds.n * ds.d));
  return fp.labels(ds.y, ds.labeled);
}
