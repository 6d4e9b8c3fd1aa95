/**
 * Fixed chunking of a history: chunk `c` holds items `[c·S, (c+1)·S)` —
 * blocks of a random-feature history, entries of a support-vector history.
 * Boundaries depend on the item index and the chunk size `S` only — never on
 * the thread count — and partial sums are added in chunk order, which is what
 * makes a model bit-identical on 1 or 56 threads.
 */

/** Blocks per chunk when nothing else is known (an evaluator built by hand). */
export const DEFAULT_CHUNK_SIZE = 16;

/**
 * Blocks per chunk of every training run: the same for every T, so chunk `c`
 * always holds blocks `[4c, 4c + 4)` — a function of the block index alone.
 * That is what lets a run be continued: training to T and then on to T′ sums
 * f in exactly the order a run trained to T′ directly does (the layout does
 * not know where the run will stop). Small chunks also balance threads (a
 * thread's share differs from another's by at most one chunk); the cost of
 * more chunks is the partial-sum buffer, `chunks × points` doubles per call,
 * which {@link rowsPerCall} bounds for large evaluations (prediction,
 * threshold fitting). A training batch of 192 points at T = 100,000 needs
 * 25,000 × 192 × 8 B = 38 MB. Stored in the model, since it fixes the order of summation.
 */
export const TRAINING_CHUNK_SIZE = 4;

/** Most partial sums (doubles) one engine call should need: 2²² = 32 MiB. */
export const MAX_PARTIAL_SUMS = 2 ** 22;

/**
 * Rows per engine call that keep the partial-sum buffer (`chunks × rows`
 * doubles) within {@link MAX_PARTIAL_SUMS}: at most `maxRows`, at least 1.
 * Never changes a value: each row's sum is the same whichever call computes it.
 *
 * @example
 * rowsPerCall(100, 4096);    // 4096 (T = 400 at 4 blocks per chunk)
 * rowsPerCall(25_000, 4096); // 167  (T = 100,000)
 */
export function rowsPerCall(nChunks: number, maxRows: number): number {
  return Math.max(1, Math.min(maxRows, Math.floor(MAX_PARTIAL_SUMS / Math.max(1, nChunks))));
}

/**
 * Support-vector entries per chunk when nothing else is known. An entry costs
 * about what one random feature of a block costs (a d-term distance and one
 * exp against a d-term dot product and a sincos), so 256 entries are about 4
 * blocks of m = 64 — the work of a random-feature chunk at T = 400.
 */
export const DEFAULT_SV_CHUNK_SIZE = 256;

/** Most chunks of a support-vector history (bounds its partial-sum buffer, `chunks × points` doubles). */
export const MAX_CHUNKS = 2048;

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

/** Most point slices a chunk is cut into for one parallel call (see {@link slicesFor}). */
export const MAX_SLICES = 4;

/** Fewest points in a slice: four of the kernels' 4-point tiles. */
export const MIN_SLICE_POINTS = 16;

/** Units per thread below which a parallel call cuts its chunks into point slices. */
export const UNITS_PER_THREAD = 8;

/**
 * Point slices per chunk for a parallel call over `chunks` chunks at
 * `nPoints` points on `parts` threads: 1 while the chunks alone give every
 * thread {@link UNITS_PER_THREAD} units, else 2 or 4 (each slice keeping at
 * least {@link MIN_SLICE_POINTS} points), so that a call over a short history
 * on many threads still has units small enough that the last one does not
 * hold the others (a 4-block chunk at 192 points is about 0.26 ms; on 56
 * threads, T = 1,000, a call has about 4 chunks a thread). A slice is the
 * same chunk's sum at fewer points, and a point's sum never depends on the
 * others: slicing never changes a value.
 *
 * @example
 * slicesFor(100, 192, 2);  // 1 (50 chunks a thread)
 * slicesFor(250, 192, 56); // 2 (about 9 units a thread)
 * slicesFor(20, 192, 56);  // 4
 * slicesFor(20, 40, 56);   // 2 (slices of 20 points)
 */
export function slicesFor(chunks: number, nPoints: number, parts: number): number {
  let S = 1;
  while (S < MAX_SLICES && chunks * S < UNITS_PER_THREAD * parts && nPoints / (2 * S) >= MIN_SLICE_POINTS) S *= 2;
  return S;
}

/**
 * The first point of slice `s` when `nPoints` points are cut into `S` slices
 * of a whole number of 4-point tiles each, clipped to `nPoints`: slice `s` is
 * `[sliceStart(s), sliceStart(s + 1))`, the last one shorter (possibly empty).
 * A number, not a span, because the chunk runner calls it for every chunk of
 * every unit.
 *
 * @example
 * sliceStart(1, 4, 192); // 48 (slice 1 is [48, 96))
 * sliceStart(3, 4, 50);  // 48 (slice 3 is [48, 50): sliceStart(4, 4, 50) = 50)
 */
export function sliceStart(s: number, S: number, nPoints: number): number {
  return Math.min(nPoints, s * Math.ceil(nPoints / S / 4) * 4);
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
