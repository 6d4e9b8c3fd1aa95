// Random-feature evaluation kernel, WebAssembly SIMD (f64x2), AssemblyScript.
//
// For points x_p (row-major, d per row) and a block of m frequencies stored
// transposed (W[k*m + j] = component k of ω_j):
//   z_pj = ω_j·x_p
//   accumulate: out[p] += Σ_j A[j]·cos(z_pj) + A[m+j]·sin(z_pj)
//   project:    G[j] = Σ_p w_p·cos(z_pj),  G[m+j] = Σ_p w_p·sin(z_pj)
//
// Every pointer is a byte offset into this module's memory, which the host
// (src/engine/kernel.ts) lays out and grows. `m` here must be a multiple of
// JW = 4 features (the host pads the block when the caller's m is not).
//
// Bit-reproducibility: a point's z is summed in the order k = 0..d-1 with a
// separate multiply and add (no FMA), exactly like the plain reference; its
// sincos and its sum over j use the same operation sequence whichever tile the
// point sits in (a short last tile runs the same code, its absent points read
// as zeros), so a point's result never depends on the other points in the call.
//
// sincos: Cody–Waite reduction by π (q = round(z/π) via the 1.5·2^52 trick,
// π split in a 32-bit head and a tail, so q·PI_HI is exact for |q| < 2^21),
// r = z − qπ ∈ [−π/2, π/2], then minimax polynomials of degree 17 (sin) and 18
// (cos) in r (fitted for this file, max error ~2e-16 before rounding);
// cos z = (−1)^q cos r, sin z = (−1)^q sin r, and the sign (q's parity bit
// shifted into the sign bit) is applied with one xor to the whole weighted term.
// Measured max |error| vs Math.sin/Math.cos: 3.4e-16 for |z| ≤ 6.5e6. Beyond
// that the reduction is no longer exact and the error is about half an ulp of
// z (as uncertain as z itself); for |z| ≥ 2^51 the result is meaningless (as is
// sin/cos of such a double); NaN and ±Infinity give NaN.

const INV_PI: f64 = 0.3183098861837907;
const MAGIC: f64 = 6755399441055744.0; // 1.5 * 2^52
const PI_HI: f64 = 3.1415926534682512; // π with 32 significant bits
const PI_LO: f64 = 1.2154201013012384e-10; // π − PI_HI

// sin r ≈ r + r·s·(S1 + s·(S2 + … + s·S7)), s = r², |r| ≤ π/2
const S1: f64 = -0.1666666666666581;
const S2: f64 = 0.008333333333262883;
const S3: f64 = -0.00019841269820095053;
const S4: f64 = 2.755731607709908e-6;
const S5: f64 = -2.5051851502125142e-8;
const S6: f64 = 1.6047301339757652e-10;
const S7: f64 = -7.364648034682983e-13;
// cos r ≈ 1 + s·(C1 + s·(C2 + … + s·C8))
const C1: f64 = -0.49999999999999983;
const C2: f64 = 0.04166666666666437;
const C3: f64 = -0.0013888888888785665;
const C4: f64 = 2.4801587279150815e-5;
const C5: f64 = -2.7557316525379904e-7;
const C6: f64 = 2.087656774817959e-9;
const C7: f64 = -1.146303954483838e-11;
const C8: f64 = 4.6102959119446173e-14;

// @ts-ignore: decorator
@inline function K(c: f64): v128 {
  return f64x2.splat(c);
}

/** u = z/π + 1.5·2^52: q = u − MAGIC is round(z/π) and u's low bit is q's parity. */
// @ts-ignore: decorator
@inline function quot(z: v128): v128 {
  return f64x2.add(f64x2.mul(z, K(INV_PI)), K(MAGIC));
}

/** r = z − q·π for the q held in u. */
// @ts-ignore: decorator
@inline function rem(z: v128, u: v128): v128 {
  const q = f64x2.sub(u, K(MAGIC));
  return f64x2.sub(f64x2.sub(z, f64x2.mul(q, K(PI_HI))), f64x2.mul(q, K(PI_LO)));
}

/** Sign bit set where q is odd. */
// @ts-ignore: decorator
@inline function sgn(u: v128): v128 {
  return i64x2.shl(u, 63);
}

// @ts-ignore: decorator
@inline function sinPoly(r: v128, s: v128): v128 {
  let p = K(S7);
  p = f64x2.add(f64x2.mul(p, s), K(S6));
  p = f64x2.add(f64x2.mul(p, s), K(S5));
  p = f64x2.add(f64x2.mul(p, s), K(S4));
  p = f64x2.add(f64x2.mul(p, s), K(S3));
  p = f64x2.add(f64x2.mul(p, s), K(S2));
  p = f64x2.add(f64x2.mul(p, s), K(S1));
  return f64x2.add(r, f64x2.mul(f64x2.mul(r, s), p));
}

// @ts-ignore: decorator
@inline function cosPoly(s: v128): v128 {
  let p = K(C8);
  p = f64x2.add(f64x2.mul(p, s), K(C7));
  p = f64x2.add(f64x2.mul(p, s), K(C6));
  p = f64x2.add(f64x2.mul(p, s), K(C5));
  p = f64x2.add(f64x2.mul(p, s), K(C4));
  p = f64x2.add(f64x2.mul(p, s), K(C3));
  p = f64x2.add(f64x2.mul(p, s), K(C2));
  p = f64x2.add(f64x2.mul(p, s), K(C1));
  return f64x2.add(K(1.0), f64x2.mul(s, p));
}

/** a_c·cos z + a_s·sin z for two features at once. */
// @ts-ignore: decorator
@inline function term(z: v128, ac: v128, as: v128): v128 {
  const u = quot(z);
  const r = rem(z, u);
  const s = f64x2.mul(r, r);
  const t = f64x2.add(f64x2.mul(ac, cosPoly(s)), f64x2.mul(as, sinPoly(r, s)));
  return v128.xor(t, sgn(u));
}

/** Horizontal sum in a fixed order: lane 0 + lane 1. */
// @ts-ignore: decorator
@inline function hsum(v: v128): f64 {
  return f64x2.extract_lane(v, 0) + f64x2.extract_lane(v, 1);
}

/**
 * sin x through the kernel's vector code (lane 0), for accuracy checks.
 * @example sinFast(1.0) // ≈ Math.sin(1.0), within 4e-16
 */
export function sinFast(x: f64): f64 {
  const z = f64x2.splat(x);
  const u = quot(z);
  const r = rem(z, u);
  const s = f64x2.mul(r, r);
  return f64x2.extract_lane(v128.xor(sinPoly(r, s), sgn(u)), 0);
}

/**
 * cos x through the kernel's vector code (lane 0), for accuracy checks.
 * @example cosFast(1.0) // ≈ Math.cos(1.0), within 4e-16
 */
export function cosFast(x: f64): f64 {
  const z = f64x2.splat(x);
  const u = quot(z);
  const r = rem(z, u);
  const s = f64x2.mul(r, r);
  return f64x2.extract_lane(v128.xor(cosPoly(s), sgn(u)), 0);
}

/**
 * Copies a rows×m matrix into a rows×mp one (mp ≥ m), zero-filling columns
 * m..mp-1. Used to pad a block whose m is not a multiple of 4.
 * @example padColumns(omega, omegaPad, d, 3, 4) // d rows of 3 → d rows of 4
 */
export function padColumns(src: usize, dst: usize, rows: i32, m: i32, mp: i32): void {
  for (let k = 0; k < rows; k++) {
    const s = src + ((<usize>k * <usize>m) << 3);
    const t = dst + ((<usize>k * <usize>mp) << 3);
    for (let j = 0; j < m; j++) store<f64>(t + (<usize>j << 3), load<f64>(s + (<usize>j << 3)));
    for (let j = m; j < mp; j++) store<f64>(t + (<usize>j << 3), 0.0);
  }
}

// ---------------------------------------------------------------------------
// Dense (Gaussian/Laplacian) blocks. Points go through in tiles of 4: a tile's
// rows are first packed k-major (P[4k + p] = x_p[k]; absent points of the last
// tile read zeros), the columns where all four are zero left out, so one
// pointer with constant offsets walks all four; then
//   tileDots (every column kept) or tileDotsAt (some left out, W's row of each
//     from a list): Z = the tile's z for all m features, 4 points × 4
//     features per pass over k (8 f64x2 accumulators, which V8 keeps in
//     registers);
//   the sincos pass reads Z, 8 independent terms per step (4 points × 2
//     feature pairs), enough independent polynomial chains to keep the
//     multipliers busy (the chains are latency-bound one or two at a time).
// Z holds m/2 groups of 4 vectors (group v: features 2v, 2v+1 of points 0…3).
// The scratch T (laid out by the host) is 4·d + 4·m doubles, P then Z, and
// d u32 after them: the packed columns' offsets C (packTileNonzero).
// Each z, term and sum sees exactly the operations of the plain one point at
// a time order (k ascending, features ascending), so a point's result never
// depends on its tile mates, and z equals the reference's bit for bit.
// accumulate's loops are do-while, which lets V8 hoist the polynomial's
// constants out of them; project's stay for loops, where V8's code for the
// hoisted constants (spilled and reloaded around each term) runs slower.

/** P[4k + p] = x_p[k] for p < np, 0 for np ≤ p < 4 (every column). */
// @ts-ignore: decorator
@inline function packTile(X: usize, row: usize, np: i32, d: i32, P: usize): void {
  for (let p = 0; p < 4; p++) {
    const x = X + <usize>p * row;
    let at = P + (<usize>p << 3);
    if (p < np) {
      for (let k = 0; k < d; k++) {
        store<f64>(at, load<f64>(x + (<usize>k << 3)));
        at += 32;
      }
    } else {
      for (let k = 0; k < d; k++) {
        store<f64>(at, 0.0);
        at += 32;
      }
    }
  }
}

/**
 * Packs the tile's points k-major (P[4k + p] = x_p[k]; absent points of the
 * last tile read zeros), only the columns where some point of the tile is
 * nonzero (a −0 counts as zero), in ascending order; column k's byte offset
 * into W's rows (k·m·8, below 2³² in a 32-bit memory) goes to the u32 list
 * C. Returns how many columns it kept. A skipped column would add w·(±0) = ±0 to each of the
 * tile's z, and a sum that starts at +0 is never −0, so adding ±0 leaves its
 * bits: the packed columns give the full loop's z exactly. Branch-free (every
 * column is written to the next free slot, which advances when one is nonzero).
 */
// @ts-ignore: decorator
@inline function packTileNonzero(X: usize, row: usize, np: i32, d: i32, wStride: usize, P: usize, C: usize): i32 {
  let nc = 0;
  const zero = f64x2.splat(0.0);
  for (let k = 0; k < d; k++) {
    const off: usize = <usize>k << 3;
    const x0 = load<f64>(X + off);
    const x1 = np > 1 ? load<f64>(X + row + off) : 0.0;
    const x2 = np > 2 ? load<f64>(X + 2 * row + off) : 0.0;
    const x3 = np > 3 ? load<f64>(X + 3 * row + off) : 0.0;
    const at = P + (<usize>nc << 5);
    const lo = f64x2.replace_lane(f64x2.splat(x0), 1, x1);
    const hi = f64x2.replace_lane(f64x2.splat(x2), 1, x3);
    v128.store(at, lo);
    v128.store(at, hi, 16);
    store<u32>(C + (<usize>nc << 2), <u32>(<usize>k * wStride));
    // nonzero lanes: x != 0 is false for ±0, true for NaN (kept, as the full loop keeps it).
    nc += i32(v128.any_true(v128.or(f64x2.ne(lo, zero), f64x2.ne(hi, zero))));
  }
  return nc;
}

/**
 * Z = z of the `count` columns packed in P (4 points a column) for features
 * 0…m−1 (m a multiple of 4): 4 points × 4 features per pass over the columns
 * (8 f64x2 accumulators, which V8 keeps in registers). `listed` (a constant
 * where it is inlined, so each caller gets its own loop): column i's
 * frequencies start at W + C[i] (the packed nonzero columns), else the
 * columns are 0…count−1 in order, i·m·8 bytes apart.
 */
// @ts-ignore: decorator
@inline function dotsOf(P: usize, count: i32, C: usize, W: usize, m: i32, Z: usize, listed: bool): void {
  const wStride: usize = <usize>m << 3;
  const pEnd: usize = P + (<usize>count << 5);
  const zero = f64x2.splat(0.0);
  let j = 0;
  do {
    let z00 = zero, z01 = zero, z10 = zero, z11 = zero;
    let z20 = zero, z21 = zero, z30 = zero, z31 = zero;
    let w = W + (<usize>j << 3);
    let x = P;
    let c = C;
    while (x < pEnd) {
      const wk = listed ? W + (<usize>j << 3) + <usize>load<u32>(c) : w;
      const w0 = v128.load(wk);
      const w1 = v128.load(wk, 16);
      let b = v128.load64_splat(x);
      z00 = f64x2.add(z00, f64x2.mul(w0, b));
      z01 = f64x2.add(z01, f64x2.mul(w1, b));
      b = v128.load64_splat(x, 8);
      z10 = f64x2.add(z10, f64x2.mul(w0, b));
      z11 = f64x2.add(z11, f64x2.mul(w1, b));
      b = v128.load64_splat(x, 16);
      z20 = f64x2.add(z20, f64x2.mul(w0, b));
      z21 = f64x2.add(z21, f64x2.mul(w1, b));
      b = v128.load64_splat(x, 24);
      z30 = f64x2.add(z30, f64x2.mul(w0, b));
      z31 = f64x2.add(z31, f64x2.mul(w1, b));
      if (listed) c += 4;
      else w += wStride;
      x += 32;
    }
    const zj = Z + (<usize>j << 5);
    v128.store(zj, z00);
    v128.store(zj, z10, 16);
    v128.store(zj, z20, 32);
    v128.store(zj, z30, 48);
    v128.store(zj, z01, 64);
    v128.store(zj, z11, 80);
    v128.store(zj, z21, 96);
    v128.store(zj, z31, 112);
    j += 4;
  } while (j < m);
}

/** Z = z of the packed tile P, every column (see {@link dotsOf}). */
function tileDots(P: usize, d: i32, W: usize, m: i32, Z: usize): void {
  dotsOf(P, d, 0, W, m, Z, false);
}

/** Z = z of the nc columns packed by {@link packTileNonzero}, W's row of each from C (see {@link dotsOf}). */
function tileDotsAt(P: usize, nc: i32, C: usize, W: usize, m: i32, Z: usize): void {
  dotsOf(P, nc, C, W, m, Z, true);
}

/** Tiles packed whole, without looking for zero columns, after a tile that had none. */
const DENSE_RUN = 15;

/**
 * Z = z of the tile of np points at X for features 0…m−1: through the packed
 * nonzero columns when fewer than d of them are (sparse rows: one-hot
 * columns, image borders), else every column — the same z either way. On
 * dense rows looking costs a few percent, so after a tile with no zero column
 * the next {@link DENSE_RUN} are packed whole; returns how many tiles are
 * still to be packed so (pass it back in `dense`). P is 4·d doubles, C d u32.
 */
// @ts-ignore: decorator
@inline function tileZ(X: usize, row: usize, np: i32, d: i32, W: usize, m: i32, P: usize, C: usize, Z: usize, dense: i32): i32 {
  if (dense > 0) {
    packTile(X, row, np, d, P);
    tileDots(P, d, W, m, Z);
    return dense - 1;
  }
  const nc = packTileNonzero(X, row, np, d, <usize>m << 3, P, C);
  if (nc == d) {
    tileDots(P, d, W, m, Z);
    return DENSE_RUN;
  }
  tileDotsAt(P, nc, C, W, m, Z);
  return 0;
}

/**
 * out[p] += Σ_j A[j] cos(z_pj) + A[m+j] sin(z_pj) for p < n (m a multiple of
 * 4); T is scratch of 4·d + 4·m doubles and d u32.
 * @example accumulate(X, 256, 8, W, A, 128, out, T)
 */
export function accumulate(X: usize, n: i32, d: i32, W: usize, A: usize, m: i32, out: usize, T: usize): void {
  const row: usize = <usize>d << 3;
  const aS: usize = A + (<usize>m << 3);
  const P = T;
  const Z = T + (<usize>d << 5);
  const zEnd = Z + (<usize>m << 5);
  const C = zEnd;
  const zero = f64x2.splat(0.0);
  let dense = 0;
  if (n <= 0) return;
  let p = 0;
  do {
    const np = min(4, n - p);
    dense = tileZ(X + <usize>p * row, row, np, d, W, m, P, C, Z, dense);
    let acc0 = zero, acc1 = zero, acc2 = zero, acc3 = zero;
    let a: usize = A;
    let z = Z;
    do {
      let ac = v128.load(a);
      let as = v128.load(a + (aS - A));
      const t0 = term(v128.load(z), ac, as);
      const t1 = term(v128.load(z, 16), ac, as);
      const t2 = term(v128.load(z, 32), ac, as);
      const t3 = term(v128.load(z, 48), ac, as);
      ac = v128.load(a, 16);
      as = v128.load(a + (aS - A), 16);
      acc0 = f64x2.add(f64x2.add(acc0, t0), term(v128.load(z, 64), ac, as));
      acc1 = f64x2.add(f64x2.add(acc1, t1), term(v128.load(z, 80), ac, as));
      acc2 = f64x2.add(f64x2.add(acc2, t2), term(v128.load(z, 96), ac, as));
      acc3 = f64x2.add(f64x2.add(acc3, t3), term(v128.load(z, 112), ac, as));
      a += 32;
      z += 128;
    } while (z < zEnd);
    const o = out + (<usize>p << 3);
    store<f64>(o, load<f64>(o) + hsum(acc0));
    if (np > 1) store<f64>(o, load<f64>(o, 8) + hsum(acc1), 8);
    if (np > 2) store<f64>(o, load<f64>(o, 16) + hsum(acc2), 16);
    if (np > 3) store<f64>(o, load<f64>(o, 24) + hsum(acc3), 24);
    p += 4;
  } while (p < n);
}

/** g += (w ^ sign)·cos, gs += (w ^ sign)·sin for one point's z (two features). */
// @ts-ignore: decorator
@inline function projTerm(z: v128, wv: v128, gc: usize, gs: usize): void {
  const u = quot(z);
  const r = rem(z, u);
  const s = f64x2.mul(r, r);
  const ws = v128.xor(wv, sgn(u));
  v128.store(gc, f64x2.add(v128.load(gc), f64x2.mul(ws, cosPoly(s))));
  v128.store(gs, f64x2.add(v128.load(gs), f64x2.mul(ws, sinPoly(r, s))));
}

/**
 * G[j] = Σ_p wt[p]·cos(z_pj), G[m+j] = Σ_p wt[p]·sin(z_pj) (overwrites G),
 * summed over p in increasing order (m a multiple of 4); T as for accumulate.
 * @example project(X, 256, 8, W, weights, 128, G, T)
 */
export function project(X: usize, n: i32, d: i32, W: usize, wt: usize, m: i32, G: usize, T: usize): void {
  const row: usize = <usize>d << 3;
  const gS: usize = G + (<usize>m << 3);
  const P = T;
  const Z = T + (<usize>d << 5);
  const zEnd = Z + (<usize>m << 5);
  const C = zEnd;
  const zero = f64x2.splat(0.0);
  let dense = 0;
  for (let j = 0; j < m; j += 2) {
    v128.store(G + (<usize>j << 3), zero);
    v128.store(gS + (<usize>j << 3), zero);
  }
  for (let p = 0; p < n; p += 4) {
    const np = min(4, n - p);
    dense = tileZ(X + <usize>p * row, row, np, d, W, m, P, C, Z, dense);
    const wp = wt + (<usize>p << 3);
    if (np == 4) {
      const w0 = v128.load64_splat(wp);
      const w1 = v128.load64_splat(wp, 8);
      const w2 = v128.load64_splat(wp, 16);
      const w3 = v128.load64_splat(wp, 24);
      let g: usize = G;
      for (let z = Z; z < zEnd; z += 64) {
        const u0 = v128.load(z), u1 = v128.load(z, 16), u2 = v128.load(z, 32), u3 = v128.load(z, 48);
        projTerm(u0, w0, g, g + (gS - G));
        projTerm(u1, w1, g, g + (gS - G));
        projTerm(u2, w2, g, g + (gS - G));
        projTerm(u3, w3, g, g + (gS - G));
        g += 16;
      }
    } else {
      for (let q = 0; q < np; q++) {
        const wq = v128.load64_splat(wp + (<usize>q << 3));
        let g: usize = G;
        for (let z = Z + (<usize>q << 4); z < zEnd; z += 64) {
          projTerm(v128.load(z), wq, g, g + (gS - G));
          g += 16;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Structured (SORF) blocks: z = c·Hu·D₁·Hu·D₂·Hu·D₃·x, rows r < m of each group
// of N = 2^k rows (Hu the ±1 Walsh–Hadamard matrix, D the random ±1 diagonals,
// x zero-padded from d to N). A block in memory (S): [c, first row, then per
// group D₁ (N), D₂ (N), D₃ (N)] as ±1.0 doubles; a sign is applied by xor-ing the
// sign bit, which is exact. Blocks that own their groups (2m > N) go through
// accumulateSorf/projectSorf below; blocks that share a group (2m ≤ N) through
// sorfTransform (all N rows of the group at a set of points, kept by the host
// while blocks of the same group follow) and accumulateRows/projectRows. Two points travel together, one per lane of every
// vector: the butterflies are plain f64x2 add/sub and a point's lane sees the
// same operations whichever point shares the vector (or none, in the tail),
// so a point's result never depends on the other points in the call.
// Cost per point and group: two full transforms (2·N·log₂N additions), a fold
// of N values and one transform of size m′ (m′ = m rounded up to a power of
// two): the last Hu is only needed at m rows, and for r < m′,
// (Hu_N·v)_r = (Hu_m′·u)_r with u_l = Σ_h v[h·m′ + l].
// Scratch Y holds N vectors (the two points' y), then the m′ folded vectors.

const SIGN: v128 = i64x2.splat(0x8000000000000000);

/** The sign of a stored ±1.0 as a mask for xor. */
// @ts-ignore: decorator
@inline function signOf(at: usize): v128 {
  return v128.and(v128.load64_splat(at), SIGN);
}

/** What the last pass of {@link fwht} does to each value it stores: nothing, the sign of a stored ±1.0 diagonal, or a scale. */
const POST_NONE = 0;
const POST_SIGNS = 1;
const POST_SCALE = 2;

/** `v`, the value of vector `k` of a transform, after `post` (POST_SIGNS: xor with the sign of D[k]; POST_SCALE: times cv). */
// @ts-ignore: decorator
@inline function posted(v: v128, k: usize, post: i32, D: usize, cv: v128): v128 {
  if (post == POST_SIGNS) return v128.xor(v, signOf(D + (k << 3)));
  if (post == POST_SCALE) return f64x2.mul(v, cv);
  return v;
}

/**
 * Three radix-2 stages on the eight vectors a0 … a7 (a_i at a + i·hb, vector k + i·kh of the
 * transform), stored there, each after `post`: the additions of stages h, 2h, 4h in their order.
 */
// @ts-ignore: decorator
@inline function butterfly8(a: usize, hb: usize, k: usize, kh: usize, a0: v128, a1: v128, a2: v128, a3: v128, a4: v128, a5: v128, a6: v128, a7: v128, post: i32, D: usize, cv: v128): void {
  const b0 = f64x2.add(a0, a1);
  const b1 = f64x2.sub(a0, a1);
  const b2 = f64x2.add(a2, a3);
  const b3 = f64x2.sub(a2, a3);
  const b4 = f64x2.add(a4, a5);
  const b5 = f64x2.sub(a4, a5);
  const b6 = f64x2.add(a6, a7);
  const b7 = f64x2.sub(a6, a7);
  const c0 = f64x2.add(b0, b2);
  const c1 = f64x2.add(b1, b3);
  const c2 = f64x2.sub(b0, b2);
  const c3 = f64x2.sub(b1, b3);
  const c4 = f64x2.add(b4, b6);
  const c5 = f64x2.add(b5, b7);
  const c6 = f64x2.sub(b4, b6);
  const c7 = f64x2.sub(b5, b7);
  v128.store(a, posted(f64x2.add(c0, c4), k, post, D, cv));
  v128.store(a + hb, posted(f64x2.add(c1, c5), k + kh, post, D, cv));
  v128.store(a + 2 * hb, posted(f64x2.add(c2, c6), k + 2 * kh, post, D, cv));
  v128.store(a + 3 * hb, posted(f64x2.add(c3, c7), k + 3 * kh, post, D, cv));
  v128.store(a + 4 * hb, posted(f64x2.sub(c0, c4), k + 4 * kh, post, D, cv));
  v128.store(a + 5 * hb, posted(f64x2.sub(c1, c5), k + 5 * kh, post, D, cv));
  v128.store(a + 6 * hb, posted(f64x2.sub(c2, c6), k + 6 * kh, post, D, cv));
  v128.store(a + 7 * hb, posted(f64x2.sub(c3, c7), k + 7 * kh, post, D, cv));
}

/** Three radix-2 stages h, 2h, 4h of Hu over `len` vectors at Y in one pass (the same additions in the same order), each stored value after `post`. */
// @ts-ignore: decorator
@inline function pass8(Y: usize, len: i32, h: i32, post: i32, D: usize, cv: v128): void {
  const hb: usize = <usize>h << 4;
  for (let i = 0; i < len; i += h << 3) {
    let a: usize = Y + (<usize>i << 4);
    const stop = a + hb;
    for (; a < stop; a += 16) {
      const a0 = v128.load(a);
      const a1 = v128.load(a + hb);
      const a2 = v128.load(a + 2 * hb);
      const a3 = v128.load(a + 3 * hb);
      const a4 = v128.load(a + 4 * hb);
      const a5 = v128.load(a + 5 * hb);
      const a6 = v128.load(a + 6 * hb);
      const a7 = v128.load(a + 7 * hb);
      butterfly8(a, hb, (a - Y) >> 4, <usize>h, a0, a1, a2, a3, a4, a5, a6, a7, post, D, cv);
    }
  }
}

/** Vector k of D₃·x for the point pair (x0 in lane 0, x1 in lane 1, or zeros there), zero past d (the padding). */
// @ts-ignore: decorator
@inline function signedInput(x0: usize, x1: usize, zeroLane1: bool, d: i32, D3: usize, k: i32): v128 {
  if (k >= d) return f64x2.splat(0.0);
  const ko: usize = <usize>k << 3;
  const xv = zeroLane1 ? f64x2.replace_lane(f64x2.splat(0.0), 0, load<f64>(x0 + ko)) : f64x2.replace_lane(v128.load64_splat(x0 + ko), 1, load<f64>(x1 + ko));
  return v128.xor(xv, signOf(D3 + ko));
}

/**
 * Stages 1, 2, 4 of Hu on D₃·x (zero-padded from d to len > 8) as {@link pass8} at h = 1,
 * its inputs read from the points instead of from Y: the same values, one pass fewer.
 */
// @ts-ignore: decorator
@inline function firstPass8(Y: usize, len: i32, x0: usize, x1: usize, zeroLane1: bool, d: i32, D3: usize): void {
  const none = f64x2.splat(0.0);
  for (let k = 0; k < len; k += 8) {
    butterfly8(
      Y + (<usize>k << 4), 16, <usize>k, 1,
      signedInput(x0, x1, zeroLane1, d, D3, k),
      signedInput(x0, x1, zeroLane1, d, D3, k + 1),
      signedInput(x0, x1, zeroLane1, d, D3, k + 2),
      signedInput(x0, x1, zeroLane1, d, D3, k + 3),
      signedInput(x0, x1, zeroLane1, d, D3, k + 4),
      signedInput(x0, x1, zeroLane1, d, D3, k + 5),
      signedInput(x0, x1, zeroLane1, d, D3, k + 6),
      signedInput(x0, x1, zeroLane1, d, D3, k + 7),
      POST_NONE, 0, none,
    );
  }
}

/** Two radix-2 stages h, 2h in one pass, as {@link pass8}. */
// @ts-ignore: decorator
@inline function pass4(Y: usize, len: i32, h: i32, post: i32, D: usize, cv: v128): void {
  const hb: usize = <usize>h << 4;
  for (let i = 0; i < len; i += h << 2) {
    let a: usize = Y + (<usize>i << 4);
    const stop = a + hb;
    for (; a < stop; a += 16) {
      const k: usize = (a - Y) >> 4;
      const kh: usize = <usize>h;
      const a0 = v128.load(a);
      const a1 = v128.load(a + hb);
      const a2 = v128.load(a + 2 * hb);
      const a3 = v128.load(a + 3 * hb);
      const b0 = f64x2.add(a0, a1);
      const b1 = f64x2.sub(a0, a1);
      const b2 = f64x2.add(a2, a3);
      const b3 = f64x2.sub(a2, a3);
      v128.store(a, posted(f64x2.add(b0, b2), k, post, D, cv));
      v128.store(a + hb, posted(f64x2.add(b1, b3), k + kh, post, D, cv));
      v128.store(a + 2 * hb, posted(f64x2.sub(b0, b2), k + 2 * kh, post, D, cv));
      v128.store(a + 3 * hb, posted(f64x2.sub(b1, b3), k + 3 * kh, post, D, cv));
    }
  }
}

/** One radix-2 stage h, as {@link pass8}. */
// @ts-ignore: decorator
@inline function pass2(Y: usize, len: i32, h: i32, post: i32, D: usize, cv: v128): void {
  const hb: usize = <usize>h << 4;
  for (let i = 0; i < len; i += h << 1) {
    let a: usize = Y + (<usize>i << 4);
    const stop = a + hb;
    for (; a < stop; a += 16) {
      const k: usize = (a - Y) >> 4;
      const u = v128.load(a);
      const v = v128.load(a + hb);
      v128.store(a, posted(f64x2.add(u, v), k, post, D, cv));
      v128.store(a + hb, posted(f64x2.sub(u, v), k + <usize>h, post, D, cv));
    }
  }
}

/**
 * In-place Hu on `len` (a power of two) vectors at Y, Sylvester order, then
 * `post` on every value (POST_SIGNS: the signs of the ±1.0 diagonal at D;
 * POST_SCALE: times c), done as the last pass stores it. Stages go three at
 * a time (radix 8), the last pass taking what is left of log₂len (3, 2 or 1
 * stages): the same additions in the same order as plain radix-2 stages and
 * a separate pass for `post`, so the same bits, with 4 passes over Y
 * instead of 11 at len = 1,024.
 */
// @ts-ignore: decorator
@inline function fwht(Y: usize, len: i32, post: i32, D: usize, c: f64, h0: i32 = 1): void {
  const cv = f64x2.splat(c);
  let h = h0;
  for (; h << 3 < len; h <<= 3) pass8(Y, len, h, POST_NONE, D, cv);
  if (h << 3 == len) pass8(Y, len, h, post, D, cv);
  else if (h << 2 == len) pass4(Y, len, h, post, D, cv);
  else if (h << 1 == len) pass2(Y, len, h, post, D, cv);
  else if (post != POST_NONE) v128.store(Y, posted(v128.load(Y), 0, post, D, cv)); // len = 1: no stage
}

/**
 * z of group `g` for the point pair (x0 in lane 0, x1 in lane 1; x1 = 0 means
 * lane 1 is unused and reads zeros from Zero): leaves c·(rows 0…mg−1) in Y[0…mg).
 */
function sorfGroup(x0: usize, x1: usize, zeroLane1: bool, d: i32, N: i32, D: usize, mg: i32, c: f64, Y: usize): void {
  const D1 = D, D2 = D + (<usize>N << 3), D3 = D + (<usize>N << 4);
  // Hu·D₃·x (x zero-padded), its first three stages read from the points, then D₂
  if (N > 8) {
    firstPass8(Y, N, x0, x1, zeroLane1, d, D3);
    fwht(Y, N, POST_SIGNS, D2, 0.0, 8);
  } else {
    for (let k = 0; k < N; k++) v128.store(Y + (<usize>k << 4), signedInput(x0, x1, zeroLane1, d, D3, k));
    fwht(Y, N, POST_SIGNS, D2, 0.0);
  }
  fwht(Y, N, POST_SIGNS, D1, 0.0);
  // D₁y (signs applied by the transform's last pass), folded to m′ vectors: u_l = Σ_h (D₁y)[h·m′ + l], h increasing
  let mp = 1;
  while (mp < mg) mp <<= 1;
  if (mp < N) {
    for (let l = 0; l < mp; l++) {
      let u = v128.load(Y + (<usize>l << 4));
      for (let k = l + mp; k < N; k += mp) u = f64x2.add(u, v128.load(Y + (<usize>k << 4)));
      v128.store(Y + (<usize>l << 4), u);
    }
  }
  fwht(Y, mp, POST_SCALE, 0, c);
}

/**
 * out[p] += Σ_j A[j] cos(z_pj) + A[m+j] sin(z_pj) for p < n, z from the
 * structured block S (see above); Y is scratch of N vectors (16·N bytes).
 * @example accumulateSorf(X, 256, 784, 1024, S, A, 64, out, Y)
 */
export function accumulateSorf(X: usize, n: i32, d: i32, N: i32, S: usize, A: usize, m: i32, out: usize, Y: usize): void {
  const row: usize = <usize>d << 3;
  const c = load<f64>(S);
  const aS: usize = A + (<usize>m << 3);
  for (let p = 0; p < n; p += 2) {
    const x0 = X + <usize>p * row;
    const single = p + 1 >= n;
    let acc = f64x2.splat(0.0);
    for (let g = 0; g * N < m; g++) {
      const mg = min(N, m - g * N);
      sorfGroup(x0, x0 + row, single, d, N, S + 16 + <usize>g * (<usize>(3 * N) << 3), mg, c, Y);
      const j0: usize = <usize>(g * N) << 3;
      for (let r = 0; r < mg; r++) {
        const jo = j0 + (<usize>r << 3);
        acc = f64x2.add(acc, term(v128.load(Y + (<usize>r << 4)), v128.load64_splat(A + jo), v128.load64_splat(aS + jo)));
      }
    }
    const o = out + (<usize>p << 3);
    store<f64>(o, load<f64>(o) + f64x2.extract_lane(acc, 0));
    if (!single) store<f64>(o, load<f64>(o, 8) + f64x2.extract_lane(acc, 1), 8);
  }
}

/**
 * G[j] = Σ_p wt[p]·cos(z_pj), G[m+j] = Σ_p wt[p]·sin(z_pj) over p < n in
 * increasing order (overwrites G), z from the structured block S.
 * @example projectSorf(X, 256, 784, 1024, S, weights, 64, G, Y)
 */
export function projectSorf(X: usize, n: i32, d: i32, N: i32, S: usize, wt: usize, m: i32, G: usize, Y: usize): void {
  const row: usize = <usize>d << 3;
  const c = load<f64>(S);
  const gS: usize = G + (<usize>m << 3);
  for (let j = 0; j < m; j++) {
    store<f64>(G + (<usize>j << 3), 0.0);
    store<f64>(gS + (<usize>j << 3), 0.0);
  }
  for (let p = 0; p < n; p += 2) {
    const x0 = X + <usize>p * row;
    const single = p + 1 >= n;
    const w0 = load<f64>(wt + (<usize>p << 3));
    const w1 = single ? 0.0 : load<f64>(wt + (<usize>p << 3), 8);
    const wv = f64x2.replace_lane(f64x2.splat(w0), 1, w1);
    for (let g = 0; g * N < m; g++) {
      const mg = min(N, m - g * N);
      sorfGroup(x0, x0 + row, single, d, N, S + 16 + <usize>g * (<usize>(3 * N) << 3), mg, c, Y);
      const j0: usize = <usize>(g * N) << 3;
      for (let r = 0; r < mg; r++) {
        const z = v128.load(Y + (<usize>r << 4));
        const u = quot(z);
        const rr = rem(z, u);
        const s = f64x2.mul(rr, rr);
        const ws = v128.xor(wv, sgn(u));
        const gc = f64x2.mul(ws, cosPoly(s));
        const gs = f64x2.mul(ws, sinPoly(rr, s));
        const jo = j0 + (<usize>r << 3);
        let a = G + jo;
        store<f64>(a, load<f64>(a) + f64x2.extract_lane(gc, 0));
        if (!single) store<f64>(a, load<f64>(a) + f64x2.extract_lane(gc, 1));
        a = gS + jo;
        store<f64>(a, load<f64>(a) + f64x2.extract_lane(gs, 0));
        if (!single) store<f64>(a, load<f64>(a) + f64x2.extract_lane(gs, 1));
      }
    }
  }
}

/**
 * All N rows of the group in S (one group: a block that shares it) at points
 * p < n, held pair by pair: points 2q and 2q + 1 share N vectors at
 * Z + 16·N·q (row r of point 2q + lane in Z[2N·q + 2r + lane]), the
 * transform run in place there — a pair's rows lie together, so the blocks
 * that read them later go through memory in order. The same operations as a
 * block's own group, no fold: a point's z does not depend on the other point
 * of its pair or on n (an odd n leaves lane 1 of the last pair unused).
 * @example sorfTransform(X, 192, 784, 1024, S, Z)
 */
export function sorfTransform(X: usize, n: i32, d: i32, N: i32, S: usize, Z: usize): void {
  const row: usize = <usize>d << 3;
  const c = load<f64>(S);
  const pairBytes: usize = <usize>N << 4;
  for (let p = 0; p < n; p += 2) {
    const x0 = X + <usize>p * row;
    sorfGroup(x0, x0 + row, p + 1 >= n, d, N, S + 16, N, c, Z + <usize>(p >> 1) * pairBytes);
  }
}

/** Σ_j A[j] cos(z_j) + A[m+j] sin(z_j), j = 0 … m−1 in order from 0, for the one point whose z_j lie 16 bytes apart from zr. */
function rowsTermsOne(zr: usize, A: usize, m: i32): f64 {
  const aS: usize = A + (<usize>m << 3);
  let acc = 0.0;
  for (let j = 0; j < m; j++) {
    const jo: usize = <usize>j << 3;
    acc = acc + f64x2.extract_lane(term(v128.load64_splat(zr + (<usize>j << 4)), v128.load64_splat(A + jo), v128.load64_splat(aS + jo)), 0);
  }
  return acc;
}

/**
 * out[i] += Σ_j A[j] cos(z_ij) + A[m+j] sin(z_ij) for i < n, the points held
 * from slot s0 of Z (sorfTransform's layout: slot s in lane s & 1 of pair
 * s >> 1), z_ij their row r0 + j. A point's terms are summed in order
 * j = 0 … m−1 from 0, then added to out[i] once, whatever point shares its
 * vector.
 * @example accumulateRows(Z, 0, 192, 1024, 128, A, 64, out)
 */
export function accumulateRows(Z: usize, s0: i32, n: i32, N: i32, r0: i32, A: usize, m: i32, out: usize): void {
  const pairBytes: usize = <usize>N << 4;
  const rows: usize = <usize>r0 << 4;
  const aS: usize = A + (<usize>m << 3);
  let i = 0;
  let s = s0;
  if (n > 0 && (s & 1) != 0) {
    store<f64>(out, load<f64>(out) + rowsTermsOne(Z + <usize>(s >> 1) * pairBytes + rows + 8, A, m));
    i = 1;
    s++;
  }
  for (; i + 1 < n; i += 2, s += 2) {
    const zr = Z + <usize>(s >> 1) * pairBytes + rows;
    let acc = f64x2.splat(0.0);
    for (let j = 0; j < m; j++) {
      const jo: usize = <usize>j << 3;
      acc = f64x2.add(acc, term(v128.load(zr + (<usize>j << 4)), v128.load64_splat(A + jo), v128.load64_splat(aS + jo)));
    }
    const o = out + (<usize>i << 3);
    store<f64>(o, load<f64>(o) + f64x2.extract_lane(acc, 0));
    store<f64>(o, load<f64>(o, 8) + f64x2.extract_lane(acc, 1), 8);
  }
  if (i < n) {
    const o = out + (<usize>i << 3);
    store<f64>(o, load<f64>(o) + rowsTermsOne(Z + <usize>(s >> 1) * pairBytes + rows, A, m));
  }
}

/** G[j] += w·cos(z_j), G[m+j] += w·sin(z_j) for j < m, for the one point whose z_j lie 16 bytes apart from zr. */
function projectRowsOne(zr: usize, w: f64, m: i32, G: usize): void {
  const gS: usize = G + (<usize>m << 3);
  const wv = f64x2.splat(w);
  for (let j = 0; j < m; j++) {
    const jo: usize = <usize>j << 3;
    const z = v128.load64_splat(zr + (<usize>j << 4));
    const u = quot(z);
    const rr = rem(z, u);
    const s = f64x2.mul(rr, rr);
    const ws = v128.xor(wv, sgn(u));
    store<f64>(G + jo, load<f64>(G + jo) + f64x2.extract_lane(f64x2.mul(ws, cosPoly(s)), 0));
    store<f64>(gS + jo, load<f64>(gS + jo) + f64x2.extract_lane(f64x2.mul(ws, sinPoly(rr, s)), 0));
  }
}

/**
 * G[j] += Σ_i wt[i]·cos(z_ij), G[m+j] += Σ_i wt[i]·sin(z_ij) over i < n in
 * increasing order, the points held from slot s0 of Z as in accumulateRows.
 * @example projectRows(Z, 0, 192, 1024, 128, weights, 64, G)
 */
export function projectRows(Z: usize, s0: i32, n: i32, N: i32, r0: i32, wt: usize, m: i32, G: usize): void {
  const pairBytes: usize = <usize>N << 4;
  const rows: usize = <usize>r0 << 4;
  const gS: usize = G + (<usize>m << 3);
  let i = 0;
  let s = s0;
  if (n > 0 && (s & 1) != 0) {
    projectRowsOne(Z + <usize>(s >> 1) * pairBytes + rows + 8, load<f64>(wt), m, G);
    i = 1;
    s++;
  }
  for (; i + 1 < n; i += 2, s += 2) {
    const zr = Z + <usize>(s >> 1) * pairBytes + rows;
    const wv = v128.load(wt + (<usize>i << 3));
    for (let j = 0; j < m; j++) {
      const jo: usize = <usize>j << 3;
      const z = v128.load(zr + (<usize>j << 4));
      const u = quot(z);
      const rr = rem(z, u);
      const sq = f64x2.mul(rr, rr);
      const ws = v128.xor(wv, sgn(u));
      const c = f64x2.mul(ws, cosPoly(sq));
      const sn = f64x2.mul(ws, sinPoly(rr, sq));
      store<f64>(G + jo, load<f64>(G + jo) + f64x2.extract_lane(c, 0) + f64x2.extract_lane(c, 1));
      store<f64>(gS + jo, load<f64>(gS + jo) + f64x2.extract_lane(sn, 0) + f64x2.extract_lane(sn, 1));
    }
  }
  if (i < n) projectRowsOne(Z + <usize>(s >> 1) * pairBytes + rows, load<f64>(wt + (<usize>i << 3)), m, G);
}

/**
 * Whether `bytes` (a multiple of 8) at a and b are the same bits: the host
 * checks that a block is of the group whose transform it holds.
 * @example sameBits(S, held, 8 * 3074)
 */
export function sameBits(a: usize, b: usize, bytes: i32): bool {
  for (let k: usize = 0; k < <usize>bytes; k += 8) if (load<u64>(a + k) != load<u64>(b + k)) return false;
  return true;
}

// ---------------------------------------------------------------------------
// Pair distances (the median heuristic σ₀ and the default σ's alignment): for
// the n points of XT (column-major: XT[k·n + j] is coordinate k of point j),
// out[p] = Σ_k (x_ik − x_jk)² (or |x_ik − x_jk|) for every pair i < j, packed
// row after row (pair (i, j) at p = i·n − i(i+1)/2 + j − i − 1). Each pair is
// summed over k = 0 … d−1 in order from 0 — the bits of the plain double loop —
// two pairs (i, j), (i, j + 1) a vector. The coordinates go in slabs of
// PAIR_SLAB: a pair's partial sum waits in out between slabs, so a slab
// (PAIR_SLAB·n doubles) is read for every i while it is in cache.

const PAIR_SLAB = 32;

// @ts-ignore: decorator
@inline function pairTerm(xi: v128, xj: v128, l1: bool): v128 {
  const t = f64x2.sub(xi, xj);
  return l1 ? f64x2.abs(t) : f64x2.mul(t, t);
}

/**
 * out[p] for all pairs of the n points of XT (see above); d ≥ 1.
 * @example pairDistances(XT, 1000, 784, false, out)
 */
export function pairDistances(XT: usize, n: i32, d: i32, l1: bool, out: usize): void {
  const row: usize = <usize>n << 3;
  for (let k0 = 0; k0 < d; k0 += PAIR_SLAB) {
    const k1 = min(d, k0 + PAIR_SLAB);
    const slab = XT + <usize>k0 * row;
    const first = k0 == 0;
    let o = out;
    for (let i = 0; i < n; i++) {
      const xi: usize = slab + (<usize>i << 3);
      let j = i + 1;
      // eight pairs (four vectors) at a time
      for (; j + 8 <= n; j += 8, o += 64) {
        let a0 = first ? f64x2.splat(0.0) : v128.load(o);
        let a1 = first ? f64x2.splat(0.0) : v128.load(o, 16);
        let a2 = first ? f64x2.splat(0.0) : v128.load(o, 32);
        let a3 = first ? f64x2.splat(0.0) : v128.load(o, 48);
        let xk = slab + (<usize>j << 3);
        let ik = xi;
        for (let k = k0; k < k1; k++, xk += row, ik += row) {
          const x = v128.load64_splat(ik);
          a0 = f64x2.add(a0, pairTerm(x, v128.load(xk), l1));
          a1 = f64x2.add(a1, pairTerm(x, v128.load(xk, 16), l1));
          a2 = f64x2.add(a2, pairTerm(x, v128.load(xk, 32), l1));
          a3 = f64x2.add(a3, pairTerm(x, v128.load(xk, 48), l1));
        }
        v128.store(o, a0);
        v128.store(o, a1, 16);
        v128.store(o, a2, 32);
        v128.store(o, a3, 48);
      }
      for (; j + 2 <= n; j += 2, o += 16) {
        let a = first ? f64x2.splat(0.0) : v128.load(o);
        let xk = slab + (<usize>j << 3);
        let ik = xi;
        for (let k = k0; k < k1; k++, xk += row, ik += row) a = f64x2.add(a, pairTerm(v128.load64_splat(ik), v128.load(xk), l1));
        v128.store(o, a);
      }
      if (j < n) {
        let a = first ? 0.0 : load<f64>(o);
        let xk = slab + (<usize>j << 3);
        let ik = xi;
        for (let k = k0; k < k1; k++, xk += row, ik += row) {
          const t = load<f64>(ik) - load<f64>(xk);
          a = a + (l1 ? Math.abs(t) : t * t);
        }
        store<f64>(o, a);
        o += 8;
      }
    }
  }
}

export { heapBase } from './heap';
