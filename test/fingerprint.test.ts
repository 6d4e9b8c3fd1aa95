/**
 * The data fingerprint a model records (and a continued run checks) is
 * SHA-256 over n and d, the features, the labels and the labeled flags — the
 * same digest whether the rows are hashed whole, a slice at a time (a dataset
 * whose features pass 2³² − 1 bytes, 4 GiB, cannot be viewed as one byte
 * array), or streamed by blocks on a thread of its own (sample on read).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeDataset } from '../src/data/dataset.ts';
import { StreamedFingerprint, datasetFingerprint } from '../src/data/fingerprint.ts';

const bytes = (a: Float64Array | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

describe('the data fingerprint', () => {
  it('is the digest of n, d, the features, labels and flags, however the features are cut', async () => {
    // 2²¹ + 3 rows of 8 features: more values than one slice of the whole-dataset digest (2²⁴), so it hashes several.
    const n = 2 ** 21 + 3;
    const d = 8;
    const X = new Float64Array(n * d);
    for (let i = 0; i < X.length; i++) X[i] = ((i * 2_654_435_761) % 1_000_003) / 1_000_003;
    const y = new Float64Array(n).fill(NaN);
    const labeledRows = Int32Array.from([0, 17, 2 ** 20, n - 1]);
    for (const [k, r] of labeledRows.entries()) y[r] = k % 2 === 0 ? 1 : -1;
    const ds = makeDataset({ X, d, y });
    const expected = createHash('sha256').update(bytes(Float64Array.of(n, d))).update(bytes(X)).update(bytes(y)).update(ds.labeled).digest('hex');
    expect(datasetFingerprint(ds)).toBe(expected);
    // Streamed in uneven blocks, the labels given for the labeled rows only: the same digest.
    const fp = new StreamedFingerprint(n, d);
    try {
      for (let r = 0; r < n; r += 300_007) await fp.features(X.subarray(r * d, Math.min(n, r + 300_007) * d));
      expect(await fp.sparseLabels(labeledRows, Float64Array.from(labeledRows, (r) => y[r]))).toBe(expected);
    } finally {
      await fp.close();
    }
  });
});
