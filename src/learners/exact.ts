/**
 * Exact reference solution of the QSG-S2AUC objective (small n only).
 *
 * With the square pairwise loss the objective is quadratic in the expansion
 * `f = Σ_i c_i k(x_i, ·)` over all training rows, so its minimiser solves one
 * `n × n` linear system — what the SAMULT baseline of the paper computes, in
 * O(n³). It is the oracle that shows the stochastic learners converge.
 *
 * Derivation: let `F = Kc` be f at the training rows and `w(F)` the gradient
 * of the empirical risk with respect to F (the closed-form weights of
 * {@link aucWeights} over the whole sets). `w` is affine, `w(F) = A F + w₀`;
 * the functional gradient `Σ_i w_i k(x_i,·) + λ f` vanishes when
 * `w(Kc) + λ c = 0`, i.e. `(A K + λ I) c = −w₀`.
 */
import { LuDecomposition, Matrix } from 'ml-matrix';
import { CancelledError, DataError } from '../errors.ts';
import { startWorker } from '../engine/worker-location.ts';
import type { Dataset } from '../data/dataset.ts';
import { kernelMatrix, type KernelSpec } from '../features/kernel-spec.ts';
import type { KernelExpansion } from '../features/kernel-expansion.ts';
import { KernelExpansionPredictor } from '../model/predictor.ts';
import { inMemory, KERNEL_PARAMS, LAMBDA_PARAM, sigmaLadder } from './common.ts';
import { aucRisk, aucWeights, GAMMA_PARAM } from './auc-risk.ts';
import { binarySources } from './sources.ts';
import type { ParamTable } from './params.ts';
import { DIRECT_CAPABILITIES, type DirectLearnerSpec } from './spec.ts';

/** Largest training set the exact solver accepts (an n×n dense solve). */
export const EXACT_MAX_ROWS = 4000;

/**
 * The exact solve's inputs once its rows are chosen: the centres (rows P, then
 * N, then U when γ < 1) and the solver's settings. Plain arrays and numbers,
 * so it crosses to the solver's thread as it is.
 */
export interface ExactProblem {
  readonly centers: Float64Array;
  readonly n: number;
  readonly d: number;
  readonly nP: number;
  readonly nN: number;
  readonly lambda: number;
  readonly gamma: number;
  readonly kernel: KernelSpec;
}

/**
 * Rows above which `exact-s2auc`'s fit solves in a thread of its own, so that
 * Ctrl-C (an AbortSignal) stops it at once: ml-matrix's O(n³) product and LU
 * solve are one synchronous call, during which the calling thread runs no
 * signal handler. At 400 rows the solve takes about 0.4 s on the 2-core
 * development machine (1,500 rows: 22 s; 3,681: 3 min 40 s); below it a
 * thread's start would cost more than the wait.
 */
export const EXACT_THREAD_ROWS = 400;

/**
 * The rows and settings of the exact solve: every labeled row, and the
 * unlabeled rows when γ < 1 (at most {@link EXACT_MAX_ROWS} in all).
 *
 * @example
 * const problem = exactProblem(train, 1, { lambda: 0.125, gamma: 0.5, kernel: { kind: 'rbf', sigma: 1 } });
 * problem.n; // labeled + unlabeled rows
 */
export function exactProblem(ds: Dataset, positive: number, params: { lambda: number; gamma: number; kernel: KernelSpec }): ExactProblem {
  const sources = binarySources(ds, positive);
  const [P, N, U] = [sources.P.indices(), sources.N.indices(), sources.U.indices()];
  const nU = params.gamma < 1 ? U.length : 0;
  const rows = [...P, ...N, ...U.subarray(0, nU)];
  const n = rows.length;
  if (n > EXACT_MAX_ROWS) {
    throw new DataError(`the exact solver is O(n³): ${n} training rows (labeled${nU > 0 ? ' + unlabeled' : ''}) is more than ${EXACT_MAX_ROWS}; subsample first (e.g. dsgkit split)`, ds.source !== undefined ? { file: ds.source } : {});
  }
  const { d } = ds;
  const centers = new Float64Array(n * d);
  rows.forEach((i, r) => centers.set(ds.X.subarray(i * d, i * d + d), r * d));
  return { centers, n, d, nP: P.length, nN: N.length, lambda: params.lambda, gamma: params.gamma, kernel: params.kernel };
}

/**
 * The expansion's coefficients `c` solving `(A K + λ I) c = −w₀` (see the
 * module comment): O(n²) to build `A` and `K`, O(n³) to multiply and solve.
 *
 * @example
 * const c = solveExact(exactProblem(train, 1, params)); // one coefficient per centre
 */
export function solveExact(problem: ExactProblem): Float64Array {
  const { centers, n, d, nP, nN, lambda, gamma, kernel } = problem;
  const w = new Float64Array(n);
  const F = new Float64Array(n);
  const gradient = (): Float64Array => {
    aucWeights(gamma, F.subarray(0, nP), F.subarray(nP, nP + nN), F.subarray(nP + nN), w.subarray(0, nP), w.subarray(nP, nP + nN), w.subarray(nP + nN));
    return w;
  };
  const w0 = Float64Array.from(gradient());
  // Columns of A by linearity: A e_j = w(e_j) − w₀.
  const A = new Matrix(n, n);
  for (let j = 0; j < n; j++) {
    F[j] = 1;
    const wj = gradient();
    for (let i = 0; i < n; i++) A.set(i, j, wj[i] - w0[i]);
    F[j] = 0;
  }
  const Kflat = kernelMatrix(kernel, centers, n, centers, n, d);
  const K = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) K.set(i, j, Kflat[i * n + j]);
  const M = A.mmul(K);
  for (let i = 0; i < n; i++) M.set(i, i, M.get(i, i) + lambda);
  const rhs = Matrix.columnVector(Array.from(w0, (v) => -v));
  return Float64Array.from(new LuDecomposition(M).solve(rhs).getColumn(0));
}

/**
 * The exact minimiser of `γ R_PN + (1−γ)(R_PU + R_NU − ½) + (λ/2)‖f‖²` over
 * the RKHS, with empirical risks over ALL pairs of the training rows, on the
 * calling thread.
 *
 * @example
 * const exact = exactQsgS2auc(train, 1, { lambda: 0.125, gamma: 0.5, kernel: { kind: 'rbf', sigma: 1 } });
 * const f = evaluateExpansion(exact, test.X, test.n);
 */
export function exactQsgS2auc(ds: Dataset, positive: number, params: { lambda: number; gamma: number; kernel: KernelSpec }): KernelExpansion {
  const problem = exactProblem(ds, positive, params);
  return exactExpansion(problem, solveExact(problem));
}

/** The kernel expansion over a problem's centres with the coefficients solved for it. */
function exactExpansion(problem: ExactProblem, c: Float64Array): KernelExpansion {
  return { kernel: problem.kernel, d: problem.d, centers: problem.centers, c };
}

/**
 * {@link solveExact} that an AbortSignal stops: above {@link EXACT_THREAD_ROWS}
 * rows in a thread of its own (`workers/exact.ts`, terminated on abort), the
 * same arithmetic and so the same bits; below it on the calling thread.
 * Rejects with CancelledError when the signal aborts first.
 *
 * @example
 * const c = await solveExactCancellable(problem, controller.signal);
 */
export async function solveExactCancellable(problem: ExactProblem, signal?: AbortSignal): Promise<Float64Array> {
  const cancelled = () => new CancelledError(`training cancelled during the exact solve (${problem.n} rows), before the model was kept`);
  if (signal?.aborted) throw cancelled();
  if (problem.n <= EXACT_THREAD_ROWS) return solveExact(problem);
  const worker = startWorker('exact', { name: 'dsgkit-exact', workerData: problem });
  return new Promise<Float64Array>((resolve, reject) => {
    const settle = (outcome: () => void) => {
      signal?.removeEventListener('abort', onAbort);
      worker.removeAllListeners();
      void worker.terminate();
      outcome();
    };
    const onAbort = () => settle(() => reject(cancelled()));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (m: { c?: Float64Array; error?: string }) => settle(() => (m.c ? resolve(m.c) : reject(new Error(`exact solve: ${m.error}`)))));
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) => settle(() => reject(new Error(`exact solve: its thread exited with code ${code} before answering`))));
  });
}

/** The exact solution's parameters: the QSG-S2AUC objective's, without the loop's. */
const EXACT_PARAMS = { ...KERNEL_PARAMS, ...LAMBDA_PARAM, ...GAMMA_PARAM } as const satisfies ParamTable;

/** The exact O(n³) QSG-S2AUC solution in the learner registry: the oracle and the "exact kernel" peer. */
export const exactS2aucSpec = {
  kind: 'direct',
  name: 'exact-s2auc',
  summary: `the QSG-S2AUC objective solved exactly, O(n³) (at most ${EXACT_MAX_ROWS} rows)`,
  help: `The exact minimiser of the QSG-S2AUC objective over all training rows: one n × n linear solve (the SAMULT baseline of the paper), a kernel expansion over the training rows. For small data only (n ≤ ${EXACT_MAX_ROWS}); the oracle the stochastic learners converge to.`,
  task: 'binary',
  metric: 'auc',
  params: EXACT_PARAMS,
  threshold: 'fit',
  // O(n³): run by `compare` when `--learners` names it.
  compareByDefault: false,
  capabilities: DIRECT_CAPABILITIES,
  async fit({ rows, classes, params, hooks }) {
    if (classes.kind !== 'binary') throw new Error('exact-s2auc needs a binary task');
    const kernel: KernelSpec = { kind: params.kernel, sigma: params.sigma };
    const problem = exactProblem(inMemory(rows, 'exact-s2auc'), classes.positive, { lambda: params.lambda, gamma: params.gamma, kernel });
    return { predictor: new KernelExpansionPredictor(exactExpansion(problem, await solveExactCancellable(problem, hooks?.signal))) };
  },
  objective({ ds, classes, params }, predictor) {
    if (classes.kind !== 'binary') throw new Error('exact-s2auc needs a binary task');
    const { P: Psource, N: Nsource } = binarySources(ds, classes.positive);
    const [P, N] = [Psource.indices(), Nsource.indices()];
    // J(c) = R(Kc) + (λ/2) cᵀKc over the expansion's centres, which are the rows
    // P, then N, then U (see exactQsgS2auc), in that order.
    const { expansion } = predictor as KernelExpansionPredictor;
    const { centers, c, d, kernel } = expansion;
    const n = c.length;
    const K = kernelMatrix(kernel, centers, n, centers, n, d);
    const { gamma, lambda } = params;
    return (coef: Float64Array) => {
      const F = new Float64Array(n);
      let reg = 0;
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += K[i * n + j] * coef[j];
        F[i] = s;
        reg += coef[i] * s;
      }
      const nP = P.length;
      const nN = N.length;
      return aucRisk(gamma, F.subarray(0, nP), F.subarray(nP, nP + nN), F.subarray(nP + nN)) + (lambda / 2) * reg;
    };
  },
  coefficients: (predictor) => (predictor as KernelExpansionPredictor).expansion.c,
  searchSpace: ({ sigma0 }) => ({ sigma: sigmaLadder(sigma0), lambda: [1e-3, 1e-2, 1e-1], gamma: [0.25, 0.5, 0.75, 1] }),
} as const satisfies DirectLearnerSpec<typeof EXACT_PARAMS, 'exact-s2auc'>;
