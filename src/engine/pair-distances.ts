/**
 * The pair distances of the data-driven kernel scales (the median heuristic
 * σ₀ and the default σ's kernel–target alignment) in the WebAssembly kernel
 * module: the same values, bit for bit, as `pairDistances` of
 * features/pair-distances.ts (each pair summed over k = 0 … d−1 in order),
 * two pairs a SIMD vector. Half a million pairs of 784-wide rows — the σ₀ of
 * every `train` on wide data — take a fraction of the JavaScript loop's time.
 * Passed to `medianHeuristicSigma` and `alignedSigma` (their `distances`
 * option) by the layers above the engine; features/ keeps the plain loop as
 * their default and as the reference.
 */
import type { PairDistances } from '../features/pair-distances.ts';
import { RFF_WASM_BASE64 } from './wasm/rff-wasm.generated.ts';
import { instantiate, memoryEnsure, regions, type WasmMemory } from './wasm-host.ts';

interface PairExports {
  memory: WasmMemory;
  heapBase(): number;
  pairDistances(XT: number, n: number, d: number, l1: number, out: number): void;
}

/** This thread's instance of the module (its own memory, grown as needed and kept). */
let instance: PairExports | undefined;

/**
 * The distances ‖x_i − x_j‖² (`norm: 'l1'`: ‖x_i − x_j‖₁) of all pairs i < j
 * of the `n` rows of the row-major `X`, packed row after row as
 * `pairDistances` packs them, with its bits.
 *
 * @example
 * wasmPairDistances(new Float64Array([0, 1, 3]), 3, 1); // Float64Array [1, 9, 4]
 */
export const wasmPairDistances: PairDistances = (X, n, d, norm = 'l2sq') => {
  if (X.length < n * d) throw new RangeError(`wasmPairDistances: X holds ${X.length} values, fewer than n·d = ${n}·${d}`);
  const pairs = (n * (n - 1)) / 2;
  if (pairs === 0 || d === 0) return new Float64Array(pairs);
  const ex = (instance ??= instantiate<PairExports>(RFF_WASM_BASE64));
  const { take, end } = regions(ex.heapBase());
  const xt = take(n * d);
  const out = take(pairs);
  memoryEnsure(ex.memory, end(), () => `pair distances of ${n} rows × ${d} features`);
  // Column-major: coordinate k of all rows side by side, so one vector holds it for two rows.
  const XT = new Float64Array(ex.memory.buffer, xt, n * d);
  for (let j = 0; j < n; j++) for (let k = 0; k < d; k++) XT[k * n + j] = X[j * d + k];
  ex.pairDistances(xt, n, d, norm === 'l1' ? 1 : 0, out);
  return new Float64Array(ex.memory.buffer, out, pairs).slice();
};
