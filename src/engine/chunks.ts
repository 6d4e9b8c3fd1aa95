/**
 * Fixed chunking of a history: chunk `c` holds items `[c·S, (c+1)·S)` —
 * blocks of a random-feature history, entries of a support-vector history.
 * Boundaries depend on the item index and the chunk size `S` only — never on
 * the thread count — and partial sums are added in chunk order, which is what
 * makes a model bit-identical on 1 or 56 threads.
 */

/** Blocks per chunk when nothing else is known (an evaluator built by hand). */
export const DEFAULT_CHUNK_SIZE = 16;

/** Most chunks a training run's history is cut into (bounds the per-call partial-sum buffer). */
export const MAX_CHUNKS = 2048;

/**
 * Blocks per chunk for a run of `T` iterations: as small as possible (a
 * thread's share differs from another's by at most one chunk, so small chunks
 * balance threads; 4 at T = 400) while the history never has more than
 * {@link MAX_CHUNKS} chunks. A function of `T` only — never of the thread
 * count — and stored in the model, since it fixes the order of summation.
 *
 * @example
 * chunkSizeFor(400);     // 4
 * chunkSizeFor(100_000); // 49
 */
export function chunkSizeFor(T: number): number {
  return Math.max(4, Math.ceil(T / MAX_CHUNKS));
}

/**
 * Support-vector entries per chunk when nothing else is known. An entry costs
 * about what one random feature of a block costs (a d-term distance and one
 * exp against a d-term dot product and a sincos), so 256 entries are about 4
 * blocks of m = 64 — the work of a random-feature chunk at T = 400.
 */
export const DEFAULT_SV_CHUNK_SIZE = 256;

/**
 * Entries per chunk for a support-vector history of `capacity` entries:
 * {@link DEFAULT_SV_CHUNK_SIZE}, or more so that the history never has more
 * than {@link MAX_CHUNKS} chunks. A function of the capacity only — never of
 * the thread count — and to be stored with a model, since it fixes the order
 * of summation.
 *
 * @example
 * svChunkSizeFor(3000);      // 256
 * svChunkSizeFor(3_000_000); // 1465
 */
export function svChunkSizeFor(capacity: number): number {
  return Math.max(DEFAULT_SV_CHUNK_SIZE, Math.ceil(capacity / MAX_CHUNKS));
}

/**
 * Chunk indices `[c0, c1)` that intersect items `[first, last)`.
 *
 * @example
 * chunkSpan(5, 40, 16); // { c0: 0, c1: 3 }
 */
export function chunkSpan(first: number, last: number, chunkSize: number): { c0: number; c1: number } {
  if (last <= first) return { c0: 0, c1: 0 };
  return { c0: Math.floor(first / chunkSize), c1: Math.ceil(last / chunkSize) };
}

/**
 * Splits chunks `[c0, c1)` into at most `parts` contiguous runs of near-equal size.
 * (Which thread computes a chunk never changes its partial sum.)
 *
 * @example
 * splitChunks(0, 10, 3); // [[0,4],[4,7],[7,10]]
 */
export function splitChunks(c0: number, c1: number, parts: number): Array<[number, number]> {
  const n = c1 - c0;
  const k = Math.max(1, Math.min(parts, n));
  const runs: Array<[number, number]> = [];
  let start = c0;
  for (let r = 0; r < k; r++) {
    const len = Math.floor(n / k) + (r < n % k ? 1 : 0);
    runs.push([start, start + len]);
    start += len;
  }
  return runs;
}

/**
 * Adds the per-chunk partial sums `results[c][p]` (rows `0..nChunks-1`) into `out` in chunk order.
 *
 * @example
 * reduceChunks(results, nChunks, nPoints, out); // out[p] = ((0 + r0[p]) + r1[p]) + …
 */
export function reduceChunks(results: Float64Array, nChunks: number, nPoints: number, out: Float64Array): void {
  out.fill(0, 0, nPoints);
  for (let c = 0; c < nChunks; c++) {
    const row = c * nPoints;
    for (let p = 0; p < nPoints; p++) out[p] += results[row + p];
  }
}
