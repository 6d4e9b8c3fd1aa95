// Row kernel of the file readers, WebAssembly SIMD (f64x2), AssemblyScript.
//
// A wide Arrow file is read a few thousand rows at a time, column by column
// (src/data/arrow.ts); every value is then turned into a row, checked and,
// on the second pass of a sample on read, scaled. `toRows` does the three in
// one pass over the block, while its rows are in cache:
//
//   X[i·d + k] = V[k·stride + i]                              (columns → rows)
//   then, with `scale`: (X − lo[k])·inv[k], clipped into [0, 1] when `clip`
//   returns 1 when every value read was finite, else 0
//
// A pass that needs no rows (the first pass of a sample on read: per-column
// statistics) only checks the block where it lies, with `finite`.
//
// Every pointer is a byte offset into this module's memory, laid out by the
// host (src/data/row-kernel.ts), which keeps `stride` off powers of two so the
// columns of a tile do not share cache sets.
//
// Bit-reproducibility: the scaling is the arithmetic of MinMaxScaler.transformRow
// (one subtraction, one multiplication, then v < 0 → 0, v > 1 → 1, NaN and −0
// kept as they are), so a row has the same bits whichever path scaled it.

import { heapBase } from './heap';

export { heapBase };

/** Rows of X a tile writes at a time (measured: 16 to 256 rows within 10% at d = 129; the block is L3-bound). */
const TILE: i32 = 64;

@inline function scaled(v: v128, lo: v128, inv: v128, scale: bool, clip: bool): v128 {
  if (!scale) return v;
  let s = f64x2.mul(f64x2.sub(v, lo), inv);
  if (clip) {
    s = v128.bitselect(f64x2.splat(0.0), s, f64x2.lt(s, f64x2.splat(0.0)));
    s = v128.bitselect(f64x2.splat(1.0), s, f64x2.gt(s, f64x2.splat(1.0)));
  }
  return s;
}

@inline function scaledOne(v: f64, lo: f64, inv: f64, scale: bool, clip: bool): f64 {
  if (!scale) return v;
  let s = (v - lo) * inv;
  if (clip) {
    if (s < 0) s = 0;
    else if (s > 1) s = 1;
  }
  return s;
}

@inline function rowsOf(V: usize, stride: i32, n: i32, d: i32, X: usize, LO: usize, INV: usize, scale: bool, clip: bool): i32 {
  const rowBytes = <usize>d << 3;
  const colBytes = <usize>stride << 3;
  const zero = f64x2.splat(0.0);
  let a0 = zero;
  let a1 = zero;
  let tail: f64 = 0;
  for (let r0 = 0; r0 < n; r0 += TILE) {
    const r1 = min(n, r0 + TILE);
    // Pairs of rows × pairs of columns: two loads, two shuffles, two stores.
    let k = 0;
    for (; k + 1 < d; k += 2) {
      const c0 = V + <usize>k * colBytes;
      const c1 = c0 + colBytes;
      const lo = v128.load(LO + (<usize>k << 3));
      const inv = v128.load(INV + (<usize>k << 3));
      let i = r0;
      for (; i + 1 < r1; i += 2) {
        const a = v128.load(c0 + (<usize>i << 3));
        const b = v128.load(c1 + (<usize>i << 3));
        // v·0 is ±0 for a finite v and NaN for ±∞ or NaN: a sum of them is NaN iff one is.
        a0 = f64x2.add(a0, f64x2.mul(a, zero));
        a1 = f64x2.add(a1, f64x2.mul(b, zero));
        const at = X + <usize>i * rowBytes + (<usize>k << 3);
        v128.store(at, scaled(v128.shuffle<i64>(a, b, 0, 2), lo, inv, scale, clip));
        v128.store(at + rowBytes, scaled(v128.shuffle<i64>(a, b, 1, 3), lo, inv, scale, clip));
      }
      if (i < r1) {
        const at = X + <usize>i * rowBytes + (<usize>k << 3);
        const u = load<f64>(c0 + (<usize>i << 3));
        const w = load<f64>(c1 + (<usize>i << 3));
        tail += u * 0.0 + w * 0.0;
        store<f64>(at, scaledOne(u, load<f64>(LO + (<usize>k << 3)), load<f64>(INV + (<usize>k << 3)), scale, clip));
        store<f64>(at, scaledOne(w, load<f64>(LO + (<usize>k << 3), 8), load<f64>(INV + (<usize>k << 3), 8), scale, clip), 8);
      }
    }
    if (k < d) {
      const c0 = V + <usize>k * colBytes;
      const lo = load<f64>(LO + (<usize>k << 3));
      const inv = load<f64>(INV + (<usize>k << 3));
      for (let i = r0; i < r1; i++) {
        const u = load<f64>(c0 + (<usize>i << 3));
        tail += u * 0.0;
        store<f64>(X + <usize>i * rowBytes + (<usize>k << 3), scaledOne(u, lo, inv, scale, clip));
      }
    }
  }
  const s = f64x2.extract_lane(a0, 0) + f64x2.extract_lane(a0, 1) + f64x2.extract_lane(a1, 0) + f64x2.extract_lane(a1, 1) + tail;
  return s == s ? 1 : 0;
}

/**
 * Rows `0 … n − 1` of the first `d` columns of V (column k at V + 8·k·stride)
 * into row-major X, scaled by lo/inv when `mode` is 1 (2: and clipped into
 * [0, 1]); 1 when every value read was finite, else 0.
 */
export function toRows(V: usize, stride: i32, n: i32, d: i32, X: usize, LO: usize, INV: usize, mode: i32): i32 {
  if (mode == 2) return rowsOf(V, stride, n, d, X, LO, INV, true, true);
  if (mode == 1) return rowsOf(V, stride, n, d, X, LO, INV, true, false);
  return rowsOf(V, stride, n, d, X, LO, INV, false, false);
}

/**
 * 1 when every value of rows `0 … n − 1` of the first `d` columns of V
 * (column k at V + 8·k·stride) is finite, else 0: the check of {@link toRows}
 * without making rows.
 */
export function finite(V: usize, stride: i32, n: i32, d: i32): i32 {
  const colBytes = <usize>stride << 3;
  const zero = f64x2.splat(0.0);
  let a0 = zero;
  let a1 = zero;
  let tail: f64 = 0;
  for (let k = 0; k < d; k++) {
    const c = V + <usize>k * colBytes;
    let i = 0;
    // v·0 is ±0 for a finite v and NaN for ±∞ or NaN: a sum of them is NaN iff one is.
    for (; i + 3 < n; i += 4) {
      a0 = f64x2.add(a0, f64x2.mul(v128.load(c + (<usize>i << 3)), zero));
      a1 = f64x2.add(a1, f64x2.mul(v128.load(c + (<usize>i << 3), 16), zero));
    }
    for (; i < n; i++) tail += load<f64>(c + (<usize>i << 3)) * 0.0;
  }
  const s = f64x2.extract_lane(a0, 0) + f64x2.extract_lane(a0, 1) + f64x2.extract_lane(a1, 0) + f64x2.extract_lane(a1, 1) + tail;
  return s == s ? 1 : 0;
}
