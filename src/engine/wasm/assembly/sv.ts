// Exact-kernel (support-vector) evaluation kernel, WebAssembly SIMD (f64x2), AssemblyScript.
//
// For points x_p (row-major, d per row) and a chunk of E support vectors —
// entry i is training row I[i] of the row-major matrix at R, with
// coefficient B[i]:
//   dist_pi = Σ_k (x_{I[i]},k − x_pk)²   (rbf)   or   Σ_k |x_{I[i]},k − x_pk|   (laplacian)
//   out[p] += Σ_i B[i]·exp(−σ·dist_pi)
//
// The module IMPORTS its memory: one shared WebAssembly.Memory holding the
// training rows (written once by the coordinator) and, past them, a scratch
// region per thread (points, indices, coefficients, sums) that the host
// (src/engine/sv-kernel.ts) claims with an atomic grow. Every pointer is a
// byte offset into it. The rows are read in place: never copied per call.
// E must be a multiple of 4 (the host pads the chunk with zero coefficients).
//
// Distances are summed over k = 0..d−1 in order from direct differences, with a
// separate multiply and add (no FMA), exactly like the plain reference
// (exactKernel in src/features/kernel-spec.ts), so dist_pi is the same bits as
// there; only exp differs (see below). The sum runs over the columns listed in
// C (nc byte offsets k·8, ascending): the host leaves out the columns that are
// zero in every row and every point of the call (a constant feature scales to
// 0, so images' blank borders and absent one-hot levels are such columns). A
// left-out column's term is (±0 − ±0)² or |±0 − ±0| = +0, and adding +0 to a
// sum of non-negative terms leaves its bits as they are: the same distances,
// without their work. ‖c‖² + ‖x‖² − 2c·x would save a
// subtraction per component but cancels catastrophically for near points.
//
// Lanes run over entries: lane pair A holds entries ≡ 0,1 (mod 4), pair B
// entries ≡ 2,3; a point's sum is ((accA + accB) lane 0 + lane 1). Points go in
// 4-point register tiles, the remaining 0–3 one at a time through the same
// per-point operations, so a point's result never depends on the other points.
//
// exp: x = k·ln2 + r with k = round(x/ln2) (the 1.5·2^52 trick), ln2 split in
// a 32-bit head and a tail (k·LN2_HI exact for |k| < 2^21), |r| ≤ ln2/2, then
// the degree-13 Taylor polynomial (truncation < 5e-18) in Horner form, times
// 2^k built in the exponent bits. Arguments here are ≤ 0; below ln(2^−1022)
// ≈ −708.4 (exp < 2.3e-308) the result is 0 instead of a subnormal. NaN gives
// NaN. Measured max relative error vs Math.exp on [−708.39, 0]: 2.2e-16.

const LOG2E: f64 = 1.4426950408889634;
const MAGIC: f64 = 6755399441055744.0; // 1.5 * 2^52
const LN2_HI: f64 = 6.93147180369123816490e-1; // ln 2 with 32 significant bits
const LN2_LO: f64 = 1.90821492927058770002e-10; // ln 2 − LN2_HI
const EXP_MIN: f64 = -708.3964185322641; // ln(2^−1022)

// 1/j! for j = 2..13
const E2: f64 = 0.5;
const E3: f64 = 0.16666666666666666;
const E4: f64 = 0.041666666666666664;
const E5: f64 = 0.008333333333333333;
const E6: f64 = 0.001388888888888889;
const E7: f64 = 0.0001984126984126984;
const E8: f64 = 0.0000248015873015873;
const E9: f64 = 0.0000027557319223985893;
const E10: f64 = 2.755731922398589e-7;
const E11: f64 = 2.505210838544172e-8;
const E12: f64 = 2.08767569878681e-9;
const E13: f64 = 1.6059043836821613e-10;

// @ts-ignore: decorator
@inline function K(c: f64): v128 {
  return f64x2.splat(c);
}

/** exp(x) lane-wise for x ≤ 0 (see the header). */
// @ts-ignore: decorator
@inline function expNeg(x: v128): v128 {
  const under = f64x2.lt(x, K(EXP_MIN));
  const xc = f64x2.max(x, K(EXP_MIN));
  const u = f64x2.add(f64x2.mul(xc, K(LOG2E)), K(MAGIC));
  const kf = f64x2.sub(u, K(MAGIC));
  const r = f64x2.sub(f64x2.sub(xc, f64x2.mul(kf, K(LN2_HI))), f64x2.mul(kf, K(LN2_LO)));
  let p = K(E13);
  p = f64x2.add(f64x2.mul(p, r), K(E12));
  p = f64x2.add(f64x2.mul(p, r), K(E11));
  p = f64x2.add(f64x2.mul(p, r), K(E10));
  p = f64x2.add(f64x2.mul(p, r), K(E9));
  p = f64x2.add(f64x2.mul(p, r), K(E8));
  p = f64x2.add(f64x2.mul(p, r), K(E7));
  p = f64x2.add(f64x2.mul(p, r), K(E6));
  p = f64x2.add(f64x2.mul(p, r), K(E5));
  p = f64x2.add(f64x2.mul(p, r), K(E4));
  p = f64x2.add(f64x2.mul(p, r), K(E3));
  p = f64x2.add(f64x2.mul(p, r), K(E2));
  p = f64x2.add(f64x2.mul(p, r), K(1.0));
  p = f64x2.add(f64x2.mul(p, r), K(1.0));
  // 2^k: u's low mantissa bits hold k, so bits(u) − bits(MAGIC) = k as an integer.
  const k = i64x2.sub(u, i64x2.splat(0x4338000000000000));
  const two = i64x2.shl(i64x2.add(k, i64x2.splat(1023)), 52);
  return v128.andnot(f64x2.mul(p, two), under);
}

/** One component's contribution to a distance: diff² (rbf) or |diff| (laplacian). */
// @ts-ignore: decorator
@inline function part(diff: v128, laplace: bool): v128 {
  return laplace ? f64x2.abs(diff) : f64x2.mul(diff, diff);
}

/** Horizontal sum in a fixed order: lane 0 + lane 1. */
// @ts-ignore: decorator
@inline function hsum(v: v128): f64 {
  return f64x2.extract_lane(v, 0) + f64x2.extract_lane(v, 1);
}

/** Byte address of the row that entry i refers to (I holds u32 row indices). */
// @ts-ignore: decorator
@inline function rowAt(R: usize, I: usize, i: i32, row: usize): usize {
  return R + <usize>load<u32>(I + (<usize>i << 2)) * row;
}

/** Component k (byte offset) of the rows at r0 and r1, as one vector. */
// @ts-ignore: decorator
@inline function pair(r0: usize, r1: usize, k: usize): v128 {
  return v128.load64_lane(r1 + k, v128.load64_zero(r0 + k), 1);
}

// @ts-ignore: decorator
@inline function accumulateKind(X: usize, n: i32, d: i32, R: usize, I: usize, B: usize, E: i32, C: usize, nc: i32, negSigma: f64, out: usize, laplace: bool): void {
  const row: usize = <usize>d << 3;
  const cEnd: usize = C + (<usize>nc << 2);
  const zero = f64x2.splat(0.0);
  const ns = K(negSigma);
  let p = 0;
  for (; p + 4 <= n; p += 4) {
    const x0 = X + <usize>p * row;
    const x1 = x0 + row;
    const x2 = x1 + row;
    const x3 = x2 + row;
    let a0 = zero, b0 = zero, a1 = zero, b1 = zero, a2 = zero, b2 = zero, a3 = zero, b3 = zero;
    for (let i = 0; i < E; i += 4) {
      const r0 = rowAt(R, I, i, row), r1 = rowAt(R, I, i + 1, row);
      const r2 = rowAt(R, I, i + 2, row), r3 = rowAt(R, I, i + 3, row);
      let d0a = zero, d0b = zero, d1a = zero, d1b = zero;
      let d2a = zero, d2b = zero, d3a = zero, d3b = zero;
      for (let c = C; c < cEnd; c += 4) {
        const k = <usize>load<u32>(c);
        const ca = pair(r0, r1, k);
        const cb = pair(r2, r3, k);
        let xb = v128.load64_splat(x0 + k);
        d0a = f64x2.add(d0a, part(f64x2.sub(ca, xb), laplace));
        d0b = f64x2.add(d0b, part(f64x2.sub(cb, xb), laplace));
        xb = v128.load64_splat(x1 + k);
        d1a = f64x2.add(d1a, part(f64x2.sub(ca, xb), laplace));
        d1b = f64x2.add(d1b, part(f64x2.sub(cb, xb), laplace));
        xb = v128.load64_splat(x2 + k);
        d2a = f64x2.add(d2a, part(f64x2.sub(ca, xb), laplace));
        d2b = f64x2.add(d2b, part(f64x2.sub(cb, xb), laplace));
        xb = v128.load64_splat(x3 + k);
        d3a = f64x2.add(d3a, part(f64x2.sub(ca, xb), laplace));
        d3b = f64x2.add(d3b, part(f64x2.sub(cb, xb), laplace));
      }
      const io: usize = <usize>i << 3;
      const ba = v128.load(B + io);
      const bb = v128.load(B + io, 16);
      a0 = f64x2.add(a0, f64x2.mul(ba, expNeg(f64x2.mul(d0a, ns))));
      b0 = f64x2.add(b0, f64x2.mul(bb, expNeg(f64x2.mul(d0b, ns))));
      a1 = f64x2.add(a1, f64x2.mul(ba, expNeg(f64x2.mul(d1a, ns))));
      b1 = f64x2.add(b1, f64x2.mul(bb, expNeg(f64x2.mul(d1b, ns))));
      a2 = f64x2.add(a2, f64x2.mul(ba, expNeg(f64x2.mul(d2a, ns))));
      b2 = f64x2.add(b2, f64x2.mul(bb, expNeg(f64x2.mul(d2b, ns))));
      a3 = f64x2.add(a3, f64x2.mul(ba, expNeg(f64x2.mul(d3a, ns))));
      b3 = f64x2.add(b3, f64x2.mul(bb, expNeg(f64x2.mul(d3b, ns))));
    }
    const o = out + (<usize>p << 3);
    store<f64>(o, load<f64>(o) + hsum(f64x2.add(a0, b0)));
    store<f64>(o, load<f64>(o, 8) + hsum(f64x2.add(a1, b1)), 8);
    store<f64>(o, load<f64>(o, 16) + hsum(f64x2.add(a2, b2)), 16);
    store<f64>(o, load<f64>(o, 24) + hsum(f64x2.add(a3, b3)), 24);
  }
  // Tail: one point at a time, the same per-point operation sequence.
  for (; p < n; p++) {
    const x0 = X + <usize>p * row;
    let a0 = zero, b0 = zero;
    for (let i = 0; i < E; i += 4) {
      const r0 = rowAt(R, I, i, row), r1 = rowAt(R, I, i + 1, row);
      const r2 = rowAt(R, I, i + 2, row), r3 = rowAt(R, I, i + 3, row);
      let d0a = zero, d0b = zero;
      for (let c = C; c < cEnd; c += 4) {
        const k = <usize>load<u32>(c);
        const xb = v128.load64_splat(x0 + k);
        d0a = f64x2.add(d0a, part(f64x2.sub(pair(r0, r1, k), xb), laplace));
        d0b = f64x2.add(d0b, part(f64x2.sub(pair(r2, r3, k), xb), laplace));
      }
      const io: usize = <usize>i << 3;
      a0 = f64x2.add(a0, f64x2.mul(v128.load(B + io), expNeg(f64x2.mul(d0a, ns))));
      b0 = f64x2.add(b0, f64x2.mul(v128.load(B + io, 16), expNeg(f64x2.mul(d0b, ns))));
    }
    const o = out + (<usize>p << 3);
    store<f64>(o, load<f64>(o) + hsum(f64x2.add(a0, b0)));
  }
}

/**
 * out[p] += Σ_i B[i]·exp(−σ‖x_{I[i]} − x_p‖²) for p < n (E a multiple of 4), the distance over
 * the nc columns at C (byte offsets, see the header); negSigma = −σ.
 * @example accumulateRbf(X, 256, 8, R, I, B, 256, C, 8, -1.0, out)
 */
export function accumulateRbf(X: usize, n: i32, d: i32, R: usize, I: usize, B: usize, E: i32, C: usize, nc: i32, negSigma: f64, out: usize): void {
  accumulateKind(X, n, d, R, I, B, E, C, nc, negSigma, out, false);
}

/**
 * out[p] += Σ_i B[i]·exp(−σ‖x_{I[i]} − x_p‖₁) for p < n (E a multiple of 4), over the nc columns at C; negSigma = −σ.
 * @example accumulateLaplacian(X, 256, 8, R, I, B, 256, C, 8, -1.0, out)
 */
export function accumulateLaplacian(X: usize, n: i32, d: i32, R: usize, I: usize, B: usize, E: i32, C: usize, nc: i32, negSigma: f64, out: usize): void {
  accumulateKind(X, n, d, R, I, B, E, C, nc, negSigma, out, true);
}

/**
 * exp(x) through the kernel's vector code (lane 0), for accuracy checks (x ≤ 0).
 * @example expFast(-1.0) // ≈ Math.exp(-1.0)
 */
export function expFast(x: f64): f64 {
  return f64x2.extract_lane(expNeg(f64x2.splat(x)), 0);
}

export { heapBase } from './heap';
