/**
 * FRS3VM: the semi-supervised SVM on ONE FIXED set of random features, trained
 * by plain SGD over several epochs — the baseline of the triply stochastic
 * paper (Geng et al., 2019, § 6: "standard SGD with fixed random features").
 * Same objective, losses, bias and class balance as the growing-feature
 * learner (s3vm.ts); the difference is the features: instead of a new block
 * every iteration, the model is `f(x) = Σ_{i<K} α_i·φ_i(x) + b` over the
 * blocks `0 … K−1` of the seed (`D = 2Km` features, the first K blocks the
 * growing learner would draw), and every SGD step updates all of them:
 * `α_i ← (1 − γ) α_i − γ Σ_p w_p φ_i(x_p)` — the gradient of
 * `½‖α‖² + C mean_L hinge + C* E_U u` in the primal.
 *
 * Choice (documented for the lead): K blocks of m rather than one block of
 * D/2 frequencies, so the model is an ordinary random-feature predictor
 * whose evaluation the worker pool splits by chunks of blocks, exactly like
 * the loop learners' (one block would always stay on the calling thread).
 *
 * An epoch is ⌈n_u/B⌉ steps, each drawing B labeled and B unlabeled rows,
 * i.e. one pass over the unlabeled rows in expectation. The step is the same
 * constant `θ/T^{3/4}` over the run's T steps.
 */
import { BlockOps } from '../engine/block-ops.ts';
import { TRAINING_CHUNK_SIZE } from '../engine/chunks.ts';
import { Evaluator } from '../engine/evaluator.ts';
import { History } from '../engine/history.ts';
import type { RandomFeatures } from '../engine/random-features.ts';
import { finalValues } from '../coordinator/learner.ts';
import { samplingRng } from '../coordinator/loop.ts';
import { RunShell } from '../coordinator/run-shell.ts';
import { stepAt } from '../coordinator/step-size.ts';
import { RandomFeaturePredictor } from '../model/predictor.ts';
import { inMemory, KERNEL_PARAMS, sigmaLadder, RANDOM_FEATURE_PARAMS, randomFeaturesFor } from './common.ts';
import { marginLoss, marginLossDerivative } from './margin-losses.ts';
import { paperStep, s3vmImpliedParams, S3VM_PARAMS, S3vmObjective, s3vmSettings, unlabeledLoss, unlabeledLossDerivative, type UnlabeledLoss } from './s3vm.ts';
import { binarySources } from './sources.ts';
import type { ParamsOf, ParamTable } from './params.ts';
import { DIRECT_CAPABILITIES, type DirectLearnerSpec, type FitRun, type Fitted, type ObjectiveContext } from './spec.ts';
import type { Predictor } from '../model/predictor.ts';

/** The fixed random features of a fit: blocks 0 … K−1 of the seed. */
function fixedFeatures(d: number, params: Frs3vmParams): RandomFeatures {
  return randomFeaturesFor(params, d);
}

/**
 * FRS3VM's training objective over all training rows as a function of the
 * fixed features' coefficients α (blocks laid end to end), and its gradient:
 * `J(α) = ½‖α‖² + C mean_L hinge(y(f + b)) + C* mean_U u(f + b)`, with
 * `b = c − mean_U f` under the class balance (else the fitted b). With
 * `g_i = ∂J/∂(f_i + b)`, `∂J/∂f_u` gains `−Σ_i g_i / |U|` through b, and
 * `∇_α J = α + Σ_i (∂J/∂f_i) φ(x_i)`.
 *
 * @example
 * const J = frs3vmObjective({ ds, classes, params }, fitted.predictor);
 * J.value(alpha); J.gradient(alpha);
 */
function frs3vmObjective({ ds, classes, params }: ObjectiveContext<Frs3vmParams>, predictor: Predictor) {
  if (classes.kind !== 'binary') throw new Error('frs3vm needs a binary task');
  const sources = binarySources(ds, classes.positive);
  const [P, N, U] = [sources.P.indices(), sources.N.indices(), sources.U.indices()];
  const rf = (predictor as RandomFeaturePredictor).features;
  const fittedBias = (predictor as RandomFeaturePredictor).bias ?? 0;
  const settings = s3vmSettings('frs3vm', ds, classes.positive, params, paperStep(1));
  const ops = new BlockOps();
  const K = (predictor as RandomFeaturePredictor).history.t;
  const width = 2 * rf.m;
  const nL = P.length + N.length;
  const loss = settings.loss as UnlabeledLoss;
  /** f + b at every training row. */
  const shifted = (alpha: Float64Array): Float64Array => {
    const f = new Float64Array(ds.n);
    for (let i = 0; i < K; i++) ops.accumulate(rf, i, alpha.subarray(i * width, (i + 1) * width), ds.X, ds.n, f);
    let meanU = 0;
    for (const i of U) meanU += f[i];
    meanU /= U.length;
    const b = settings.balance ? settings.target - meanU : fittedBias;
    for (let i = 0; i < ds.n; i++) f[i] += b;
    return f;
  };
  return {
    value(alpha: Float64Array): number {
      const r = shifted(alpha);
      let reg = 0;
      for (let j = 0; j < alpha.length; j++) reg += alpha[j] * alpha[j];
      let labeled = 0;
      for (const i of P) labeled += marginLoss('hinge', r[i]);
      for (const i of N) labeled += marginLoss('hinge', -r[i]);
      let unlabeled = 0;
      for (const i of U) unlabeled += unlabeledLoss(loss, r[i], settings.s);
      return 0.5 * reg + (settings.C * labeled) / nL + (settings.Cstar * unlabeled) / U.length;
    },
    gradient(alpha: Float64Array): Float64Array {
      const r = shifted(alpha);
      const g = new Float64Array(ds.n);
      for (const i of P) g[i] = (settings.C * marginLossDerivative('hinge', r[i])) / nL;
      for (const i of N) g[i] = (-settings.C * marginLossDerivative('hinge', -r[i])) / nL;
      for (const i of U) g[i] = (settings.Cstar * unlabeledLossDerivative(loss, r[i], settings.s)) / U.length;
      if (settings.balance) {
        let G = 0;
        for (let i = 0; i < ds.n; i++) G += g[i];
        for (const i of U) g[i] -= G / U.length;
      }
      const out = Float64Array.from(alpha);
      ops.projectBlocks(rf, 0, K, ds.X, ds.n, g).forEach((block, i) => {
        for (let j = 0; j < width; j++) out[i * width + j] += block[j];
      });
      return out;
    },
  };
}

/** FRS3VM's parameters: the kernel, K fixed blocks of m features, epochs, and the S3VM objective's. */
const FRS3VM_PARAMS = {
  ...KERNEL_PARAMS,
  m: { ...RANDOM_FEATURE_PARAMS.m, doc: 'random frequencies per block m; the model has D = 2·blocks·m fixed features' },
  blocks: { kind: 'number', default: 16, min: 1, max: 100_000, integer: true, symbol: 'K', doc: 'blocks K of fixed random features (blocks 0 … K−1 of the seed)' },
  epochs: { kind: 'number', default: 10, min: 0.01, max: 1_000_000, doc: "passes over the unlabeled rows (⌈n_u/B⌉ SGD steps each, at least 40, ⌈epochs·max(40, ⌈n_u/B⌉)⌉ in all: a fraction is part of a pass); the paper's experiments use 10" },
  seed: RANDOM_FEATURE_PARAMS.seed,
  features: RANDOM_FEATURE_PARAMS.features,
  batchSize: RANDOM_FEATURE_PARAMS.batchSize,
  ...S3VM_PARAMS,
} as const satisfies ParamTable;

/** FRS3VM's validated parameters. */
type Frs3vmParams = ParamsOf<typeof FRS3VM_PARAMS>;

/**
 * Fewest SGD steps an epoch takes: a pass over the unlabeled rows is ⌈n_u/B⌉
 * steps, and where that is fewer an epoch is this many, so the default 10
 * epochs are at least 400 steps — TSGS3VM's iterations at its defaults — on
 * small sets too (a pass over 81 unlabeled rows at B = 64 is 2 steps: 10
 * epochs were 20 SGD steps). Chosen on the quality benchmark (docs/learners.md).
 *
 * @example
 * // n_u = 414, B = 64: ⌈414/64⌉ = 7 steps a pass → 40 an epoch, 400 at 10 epochs
 */
export const MIN_EPOCH_STEPS = 40;

/**
 * The SGD of FRS3VM: every step draws B labeled and B unlabeled rows and
 * updates all K fixed blocks; the bias and the class balance as in s3vm.ts.
 */
async function fitFrs3vm({ rows, classes, params, engine, hooks = {} }: FitRun<Frs3vmParams>): Promise<Fitted> {
  if (classes.kind !== 'binary') throw new Error('frs3vm needs a binary task');
  const ds = inMemory(rows, 'frs3vm');
  const { U } = binarySources(ds, classes.positive);
  const B = params.batchSize;
  const T = Math.ceil(params.epochs * Math.max(MIN_EPOCH_STEPS, Math.ceil(U.size / B)));
  const step = paperStep(T);
  const objective = new S3vmObjective(ds, classes.positive, s3vmSettings('frs3vm', ds, classes.positive, params, step));
  const features = fixedFeatures(ds.d, params);
  const K = params.blocks;
  const width = 2 * features.m;
  const history = new History({ m: features.m, capacity: K });
  for (let i = 0; i < K; i++) history.append(new Float64Array(width));
  const evaluator = new Evaluator(history, features, { ...engine, chunkSize: TRAINING_CHUNK_SIZE });
  const ops = new BlockOps();
  const rng = samplingRng(features.seed);
  const shell = new RunShell(T, hooks, 'SGD steps');
  const { bias } = objective;
  const [f, w] = [new Float64Array(objective.batchPoints), new Float64Array(objective.batchPoints)];
  const val = hooks.validation;
  const fVal = val ? new Float64Array(val.nPoints) : undefined;
  try {
    for (let t = 1; t <= T; t++) {
      await shell.enter(t);
      const batch = objective.sample(rng);
      await evaluator.evaluate(batch.X, batch.nPoints, f);
      for (let p = 0; p < batch.nPoints; p++) f[p] += bias.value;
      objective.weights(f, w, batch);
      const eta = stepAt(step, t);
      const grads = ops.projectBlocks(features, 0, K, batch.X, batch.nPoints, w, evaluator.frequencies, evaluator.callingKernel);
      history.shrink(1 - eta);
      grads.forEach((g, i) => {
        for (let j = 0; j < width; j++) g[j] *= -eta;
        history.add(i, g);
      });
      bias.update(eta, f, w, batch.nPoints);
      if (val && fVal && shell.validates(t)) {
        await evaluator.evaluate(val.X, val.nPoints, fVal);
        for (let p = 0; p < val.nPoints; p++) fVal[p] += bias.value;
        shell.score(t, fVal);
      }
      shell.leave(t);
    }
    // The class balance over the rows the rule reads after T steps (B/2 a step, as TSGS3VM's after T
    // iterations): all of its sample from 2 epochs on, fewer for tune's first fits (a part of an epoch).
    const final = bias.final;
    const b = final ? final.bias(await finalValues(final, T, (X, n, out) => evaluator.evaluate(X, n, out))) : bias.value;
    return { predictor: new RandomFeaturePredictor(history, features, TRAINING_CHUNK_SIZE, b), computed: { iterations: T, step }, trace: shell.trace };
  } finally {
    ops.release();
    await evaluator.close();
  }
}

/** FRS3VM in the learner registry. */
export const frs3vmSpec = {
  kind: 'direct',
  name: 'frs3vm',
  summary: 'semi-supervised SVM on one fixed set of random features, plain SGD over epochs (baseline)',
  help:
    'FRS3VM: the same semi-supervised SVM objective (hinge on labeled rows, a non-convex loss on unlabeled rows, bias and class balance) on one fixed set of D = 2·blocks·m random features, trained by plain SGD over several epochs: the baseline the triply stochastic paper compares against. Labels are the sign of f + b.',
  task: 'binary',
  metric: 'accuracy',
  params: FRS3VM_PARAMS,
  threshold: 'zero',
  // Accuracy, not AUC: run by `compare` when `--learners` names it.
  compareByDefault: false,
  capabilities: DIRECT_CAPABILITIES,
  fit: fitFrs3vm,
  objective(ctx, predictor) {
    const J = frs3vmObjective(ctx, predictor);
    return (alpha) => J.value(alpha);
  },
  gradient(ctx, predictor) {
    const J = frs3vmObjective(ctx, predictor);
    return (alpha) => J.gradient(alpha);
  },
  coefficients(predictor) {
    const { history } = predictor as RandomFeaturePredictor;
    const out = new Float64Array(history.t * 2 * history.m);
    for (let i = 0; i < history.t; i++) out.set(history.coefficients(i), i * 2 * history.m);
    return out;
  },
  supervisedCase: { Cstar: 0 },
  // C* unset is C/10: the defaults are the grid point (C = 100, C* = 10) when σ is on the ladder.
  impliedParams: s3vmImpliedParams,
  // A fraction of the epochs (a part of a pass at the first rounds): tune's first rounds are cheap fits of every setting.
  tuneBudget: (params, fraction) => ({ ...params, epochs: Math.max(0.01, (params.epochs as number) * fraction) }),
  // Every fold fit trains on every row and costs about a train: 1/81, 1/27, 1/9 of the epochs on one fold,
  // then one setting (and the defaults) in full on every fold keep tune within 10 trains (docs/tuning.md).
  tuneSchedule: { firstRung: 4, finalists: 1, earlyRows: 1 },
  // σ on the factor-2 ladder (common.ts sigmaLadder): 132 settings, cut 132 → 22 → 3 → 1 by the schedule above.
  searchSpace: ({ sigma0 }) => ({ sigma: sigmaLadder(sigma0, 1), C: [1, 10, 100], Cstar: [0, 0.1, 1, 10] }),
} as const satisfies DirectLearnerSpec<typeof FRS3VM_PARAMS, 'frs3vm'>;
