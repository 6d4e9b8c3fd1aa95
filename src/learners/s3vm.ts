/**
 * The semi-supervised SVM objective (ALGORITHMS.md § semi-supervised SVM,
 * Geng et al., IJCAI 2019), shared by the learner on the growing random-feature
 * loop and by its fixed-feature SGD baseline:
 *
 *   ½‖f‖² + C · mean_L hinge(y (f(x) + b)) + C* · E_U u(f(x) + b)
 *
 * with a non-convex unlabeled loss `u` (SHG, SSHG, Ramp, DA) and an
 * unregularised bias `b`. The regulariser weight is 1, so each step shrinks
 * the past by `1 − γ_t`.
 *
 * Class balance (not in the paper; every S3VM user expects it): with few
 * labels the unlabeled loss is smallest when every unlabeled point sits on one
 * side of the boundary, far from it, so a free bias collapses them into one
 * class. The constraint `mean_U (f + b) = c` (`c` = the mean of the labeled
 * ±1 labels, or `2π − 1` for a class prior `π` the user gives) removes that
 * solution: `b = c − mean_U f`, so the loss is taken at the centred values
 * `f(x) − mean_U f + c`. In a mini-batch `mean_U f` is the mean over the
 * batch's unlabeled points (an unbiased estimate), which makes the batch risk
 * a function of the batch values alone and its gradient exact: the unlabeled
 * weights lose `S/B`, `S` the sum of all raw weights (the projection of the
 * gradient onto the constraint). The model's final `b` is `c − mean f` over
 * the unlabeled rows (at most {@link BALANCE_ROWS} of them, a seeded sample
 * beyond that; after t iterations at most B·t/2 of them, evenly spaced in that
 * sample: coordinator/learner.ts `finalPositions`; FRS3VM's t is its SGD
 * steps, so from 2 epochs on it reads the whole sample). Without the constraint `b`
 * follows its own gradient, `b ← b − γ_t Σ_p w_p`.
 */
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { trainingRows, type TrainingRows } from '../data/training-rows.ts';
import type { Batch, DsgLearner, LearnerBias, Rng, SampledRows } from '../coordinator/learner.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import { marginLoss, marginLossDerivative } from './margin-losses.ts';
import type { ParamsOf, ParamTable } from './params.ts';
import { BALANCE_ROWS, BatchBuffers, binarySources, drawRows, sampleSource, type Source } from './sources.ts';
import { sampledRows } from './sampled-rows.ts';
import { GraphTerm } from './graph-term.ts';

/** The non-convex losses on unlabeled points (the paper's Table 2). */
export const UNLABELED_LOSSES = ['shg', 'sshg', 'ramp', 'da'] as const;
export type UnlabeledLoss = (typeof UNLABELED_LOSSES)[number];

/** The Ramp loss's `s` by default (Collobert et al., 2006). */
export const RAMP_S = -0.3;

/** `R_s(z) = min(1 − s, max(0, 1 − z))`, the ramp (a hinge clipped at `1 − s`). */
function ramp(z: number, s: number): number {
  return Math.min(1 - s, Math.max(0, 1 - z));
}

/** `R_s'(z)`: −1 on `s < z < 1`, else 0. */
function rampDerivative(z: number, s: number): number {
  return z > s && z < 1 ? -1 : 0;
}

/**
 * The unlabeled loss `u(r)` at a value `r = f(x) + b`: SHG `max(0, 1 − |r|)`,
 * SSHG `½ max(0, 1 − |r|)²`, Ramp `R_s(r) + R_s(−r)`, DA `exp(−5r²)`.
 *
 * @example
 * unlabeledLoss('shg', 0.25);        // 0.75
 * unlabeledLoss('ramp', 0, -0.3);    // 2
 */
export function unlabeledLoss(loss: UnlabeledLoss, r: number, s = RAMP_S): number {
  switch (loss) {
    case 'shg':
      return Math.max(0, 1 - Math.abs(r));
    case 'sshg':
      return 0.5 * Math.max(0, 1 - Math.abs(r)) ** 2;
    case 'ramp':
      return ramp(r, s) + ramp(-r, s);
    case 'da':
      return Math.exp(-5 * r * r);
  }
}

/**
 * `u'(r)` of {@link unlabeledLoss} (a subgradient at the kinks: 0 at `r = 0` for SHG).
 *
 * @example
 * unlabeledLossDerivative('shg', 0.25); // -1
 * unlabeledLossDerivative('da', 0.1);   // -10·0.1·e^{-0.05}
 */
export function unlabeledLossDerivative(loss: UnlabeledLoss, r: number, s = RAMP_S): number {
  switch (loss) {
    case 'shg':
      return Math.abs(r) < 1 ? -Math.sign(r) : 0;
    case 'sshg':
      return Math.abs(r) < 1 ? -Math.sign(r) * (1 - Math.abs(r)) : 0;
    case 'ramp':
      return rampDerivative(r, s) - rampDerivative(-r, s);
    case 'da':
      return -10 * r * Math.exp(-5 * r * r);
  }
}

/**
 * The parameters of the objective, shared by both learners: C, C*, the
 * unlabeled loss and its s, the class balance and its prior.
 */
export const S3VM_PARAMS = {
  C: { kind: 'number', default: 100, min: 0, openMin: true, max: 1e6, cli: 'c', symbol: 'C', doc: "weight C of the labeled hinge loss (the regulariser ½‖f‖² has weight 1); paper's grid 10⁻³…10³" },
  Cstar: {
    kind: 'number',
    default: undefined,
    min: 0,
    max: 1e6,
    cli: 'c-star',
    symbol: 'C*',
    defaultDoc: 'C/10',
    doc: 'weight C* of the unlabeled loss (0: the supervised SVM); by default a tenth of C, the unlabeled rows weighing a tenth of the labeled ones whatever their numbers',
  },
  unlabeledLoss: {
    kind: 'choice',
    choices: UNLABELED_LOSSES,
    default: 'shg',
    symbol: 'u',
    doc: 'loss u(r) on unlabeled rows: shg max(0, 1 − |r|), sshg ½max(0, 1 − |r|)², ramp R_s(r) + R_s(−r), da exp(−5r²)',
  },
  s: { kind: 'number', default: RAMP_S, min: -10, max: 1, openMax: true, cli: 'ramp-s', symbol: 's', doc: 'the Ramp loss R_s(z) = min(1 − s, max(0, 1 − z)) clips the hinge at 1 − s' },
  balance: {
    kind: 'choice',
    choices: ['on', 'off'],
    default: 'on',
    symbol: 'balance',
    doc: 'class balance: mean of f + b over the unlabeled rows = mean of the labeled ±1 labels (or 2π − 1 with --class-prior); off leaves b free, and with few labels the unlabeled rows may collapse into one class',
  },
  classPrior: {
    kind: 'number',
    default: undefined,
    min: 0,
    max: 1,
    openMin: true,
    openMax: true,
    symbol: 'π',
    defaultDoc: "the labeled rows' share",
    doc: 'share π of the positive class among the unlabeled rows, for the class balance',
  },
} as const satisfies ParamTable;

/**
 * The default `C* = C · S3VM_CSTAR_RATIO`: the unlabeled term weighs a tenth of
 * the labeled one, whatever the numbers of rows.
 *
 * Why not the paper's `C* = C·n_l/n_u`: the paper states it for the sum form
 * `C Σ_L l + C* Σ_U u`, where it gives the unlabeled rows the same total weight
 * as the labeled ones. This objective uses means (`C·mean_L`, `C*·mean_U`), so
 * the same rule scales the unlabeled term by `n_l/n_u` a second time: with 200
 * labeled rows of 16,000 it weighs 1/80 of the labeled term and changes no
 * prediction (the same accuracy as `C* = 0`), and with fewer unlabeled than
 * labeled rows it outweighs them (2.5× on ionosphere, 0.14 below `C* = 0`).
 * The paper's intent in the mean form, `C* = C`, makes the term act but costs
 * 0.02–0.04 accuracy on the public sets (the non-convex loss pulls the
 * boundary through the unlabeled rows before the labeled hinge has placed it);
 * a tenth of `C` acts (it moves held-out labels) and stays within 0.006 of
 * `C* = 0` there. docs/algorithms.md § TSGS3VM has the measurements.
 *
 * @example
 * defaultCstar(100); // 10
 */
export const S3VM_CSTAR_RATIO = 0.1;

/** The default C* for a labeled weight C ({@link S3VM_CSTAR_RATIO}). */
export function defaultCstar(C: number): number {
  return C * S3VM_CSTAR_RATIO;
}

/**
 * The S3VM learners' `impliedParams` (spec.ts): C* filled by {@link defaultCstar}
 * when it is not given, as {@link s3vmSettings} fills it for a fit.
 *
 * @example
 * s3vmImpliedParams({ C: 100 }); // { C: 100, Cstar: 10 }
 */
export function s3vmImpliedParams<T extends Readonly<Record<string, unknown>>>(params: T): T {
  return params.Cstar === undefined && typeof params.C === 'number' ? { ...params, Cstar: defaultCstar(params.C) } : params;
}

/** The paper's step constant θ of `γ = θ/T^{3/4}` by default (chosen on the bundled data: README § semi-supervised SVM). */
export const S3VM_THETA = 0.5;

/**
 * The paper's constant step `γ_t = θ/T^{3/4}` (its Theorems 1–2), for a run of `T` iterations.
 *
 * @example
 * paperStep(400); // { kind: 'constant', eta: 0.5 / 400^0.75 } ≈ 0.0056
 */
export function paperStep(T: number, theta = S3VM_THETA): StepSize {
  return { kind: 'constant', eta: theta / T ** 0.75 };
}

/**
 * The T whose {@link paperStep} `step` is (bit for bit), else undefined: how a
 * continued run tells a default step that depended on T from a given one.
 *
 * @example
 * paperStepHorizon(paperStep(70)); // 70
 * paperStepHorizon({ kind: 'constant', eta: 0.01 }); // undefined
 */
export function paperStepHorizon(step: StepSize, theta = S3VM_THETA): number | undefined {
  if (step.kind !== 'constant' || !(step.eta > 0)) return undefined;
  const T = Math.round((theta / step.eta) ** (4 / 3));
  return T >= 1 && Number.isSafeInteger(T) && theta / T ** 0.75 === step.eta ? T : undefined;
}

/** Hyperparameters of {@link S3vmObjective}, resolved. */
export interface S3vmSettings {
  /** Learner id written in model files. */
  readonly name: string;
  readonly C: number;
  /** Resolved C* (default {@link defaultCstar}: C/10). */
  readonly Cstar: number;
  readonly loss: UnlabeledLoss;
  readonly s: number;
  readonly balance: boolean;
  /** Balance target c = mean of the ±1 labels (or 2π − 1). */
  readonly target: number;
  /** Points per source per iteration. */
  readonly batchSize: number;
  readonly step: StepSize;
  /** Seeds the sample of unlabeled rows for the final bias (when there are more than {@link BALANCE_ROWS}). */
  readonly seed: number;
  /** Weight γ_G of the k-NN graph term, relative to C (the term is C·γ_G·mean (f_u − f_v)²); 0: off. */
  readonly graphWeight: number;
}

/**
 * The resolved settings of the objective from a learner's parameters and its
 * training rows: C* = C/10 unless given ({@link defaultCstar}), the balance target from the
 * labeled rows or the prior. A DataError (naming the file and label column)
 * when there are no unlabeled rows.
 *
 * @example
 * const settings = s3vmSettings('frs3vm', ds, 1, params, step);
 */
export function s3vmSettings(name: string, data: Dataset | TrainingRows, positive: number, params: S3vmParamValues, step: StepSize): S3vmSettings {
  const ds = trainingRows(data);
  const { P, N, U } = binarySources(ds, positive);
  if (U.size === 0) {
    throw new DataError(
      `${name} needs unlabeled rows (a null label), and every row is labeled: hide labels with \`dsgkit split --labeled N\`, or train a supervised learner (dsg)`,
      ds.source !== undefined ? { file: ds.source, column: ds.labelName } : { column: ds.labelName },
    );
  }
  const nL = P.size + N.size;
  const { C, classPrior: prior } = params;
  return {
    name,
    C,
    Cstar: params.Cstar ?? defaultCstar(C),
    loss: params.unlabeledLoss,
    s: params.s,
    balance: params.balance === 'on',
    target: prior !== undefined ? 2 * prior - 1 : (P.size - N.size) / nL,
    batchSize: params.batchSize,
    step,
    seed: params.seed,
    graphWeight: params.graphWeight ?? 0,
  };
}

/** The S3VM objective's validated parameters, with the sampling the learners share. */
export type S3vmParamValues = ParamsOf<typeof S3VM_PARAMS> & { readonly batchSize: number; readonly seed: number; readonly graphWeight?: number | undefined };

/**
 * The semi-supervised SVM's batch objective as a {@link DsgLearner}: each
 * iteration draws B labeled rows and B unlabeled rows (uniformly, with
 * replacement); the weights are `C y l'(y v)/B` on the labeled and
 * `C* u'(v)/B` on the unlabeled points, `v` the value the loss is taken at
 * (see the file comment for the class balance); λ = 1.
 *
 * @example
 * const objective = new S3vmObjective(ds, 1, s3vmSettings('s3vm', ds, 1, params, paperStep(400)));
 */
export class S3vmObjective implements DsgLearner {
  readonly name: string;
  readonly d: number;
  /** The regulariser ½‖f‖² has weight 1: the shrink is `1 − γ_t`. */
  readonly lambda = 1;
  readonly step: StepSize;
  readonly settings: S3vmSettings;
  readonly bias: LearnerBias;
  readonly sampledRows: SampledRows;
  private readonly rows: TrainingRows;
  private readonly labeledRows: Source;
  private readonly unlabeledRows: Source;
  private readonly positive: number;
  private readonly buffers: BatchBuffers;
  private readonly B: number;
  /** Values the losses are taken at, for the last call. */
  private readonly v: Float64Array;
  /** The graph term, when γ_G > 0: B edges an iteration, their ends after the unlabeled rows. */
  private readonly graph?: GraphTerm;

  constructor(data: Dataset | TrainingRows, positive: number, settings: S3vmSettings) {
    const rows = trainingRows(data);
    const { L, U } = binarySources(rows, positive);
    this.name = settings.name;
    this.rows = rows;
    this.d = rows.d;
    this.step = settings.step;
    this.settings = settings;
    this.positive = positive;
    this.labeledRows = L;
    this.unlabeledRows = U;
    this.B = settings.batchSize;
    if (settings.graphWeight > 0) this.graph = new GraphTerm(rows, settings.C * settings.graphWeight, this.B);
    this.buffers = new BatchBuffers(this.batchPoints, rows.d);
    // Edge ends may be any row: f is kept at every row then, without per-source draws.
    this.sampledRows = sampledRows(rows, [this.labeledRows, this.unlabeledRows], this.batchPoints, this.graph ? undefined : [this.B, this.B]);
    this.v = new Float64Array(2 * this.B);
    this.bias = this.makeBias();
  }

  /**
   * Draws B labeled rows, then B unlabeled rows, then with the graph term B edges (2B points, u then v).
   *
   * @example
   * const { X, nPoints } = objective.sample(rng, t); // nPoints = 2B
   */
  sample(rng: Rng): Batch {
    const { B } = this;
    const { X, rows } = this.buffers.next();
    drawRows(this.rows, this.labeledRows, B, rng, X, 0, rows.subarray(0, B));
    drawRows(this.rows, this.unlabeledRows, B, rng, X, B, rows.subarray(B, 2 * B));
    this.graph?.draw(rng, X, 2 * B, rows.subarray(2 * B));
    return { X, nPoints: this.batchPoints, rows };
  }

  /**
   * The batch's data terms `C mean_l hinge(y v_l) + C* mean_u u(v_u)` at values `f` (bias included).
   *
   * @example
   * objective.risk(fAtBatch, batch);
   */
  risk(f: Float64Array, batch: Batch): number {
    const { B } = this;
    const { C, Cstar, loss, s } = this.settings;
    const v = this.values(f);
    let labeled = 0;
    let unlabeled = 0;
    for (let r = 0; r < B; r++) labeled += marginLoss('hinge', this.y(batch, r) * v[r]);
    for (let r = B; r < 2 * B; r++) unlabeled += unlabeledLoss(loss, v[r], s);
    const data = (C * labeled + Cstar * unlabeled) / B;
    return this.graph ? data + this.graph.risk(f.subarray(2 * B)) : data;
  }

  /**
   * The gradient of {@link risk} with respect to the batch values.
   *
   * @example
   * objective.weights(fAtBatch, w, batch);
   */
  weights(f: Float64Array, w: Float64Array, batch: Batch): void {
    const { B } = this;
    const { C, Cstar, loss, s, balance } = this.settings;
    const v = this.values(f);
    let sum = 0;
    for (let r = 0; r < B; r++) {
      const y = this.y(batch, r);
      w[r] = (C * y * marginLossDerivative('hinge', y * v[r])) / B;
      sum += w[r];
    }
    for (let r = B; r < 2 * B; r++) {
      w[r] = (Cstar * unlabeledLossDerivative(loss, v[r], s)) / B;
      sum += w[r];
    }
    if (balance) for (let r = B; r < 2 * B; r++) w[r] -= sum / B;
    // Its weights sum to zero: the bias's gradient and the balance are the data terms' alone.
    this.graph?.weights(f.subarray(2 * B), w.subarray(2 * B));
  }

  /** Points in every batch: B labeled, B unlabeled, and the graph term's edge ends. */
  get batchPoints(): number {
    return 2 * this.B + (this.graph?.points ?? 0);
  }

  /** The ±1 label of labeled point `r` of `batch`. */
  private y(batch: Batch, r: number): number {
    return this.rows.label(batch.rows[r]) === this.positive ? 1 : -1;
  }

  /** `v = f`, or with the class balance `f − mean_{u in batch} f + c`. */
  private values(f: Float64Array): Float64Array {
    const { B, v } = this;
    if (!this.settings.balance) {
      v.set(f.subarray(0, 2 * B));
      return v;
    }
    const shift = this.settings.target - meanOf(f, B, 2 * B);
    for (let r = 0; r < 2 * B; r++) v[r] = f[r] + shift;
    return v;
  }

  private makeBias(): LearnerBias {
    const { balance, target, seed } = this.settings;
    const B = this.B;
    let value = balance ? target : 0;
    if (!balance) {
      return {
        get value() {
          return value;
        },
        update(eta, _f, w, nPoints) {
          let g = 0;
          for (let p = 0; p < nPoints; p++) g += w[p];
          value -= eta * g;
        },
        restore(b) {
          value = b;
        },
      };
    }
    const rows = sampleSource(this.unlabeledRows, BALANCE_ROWS, `dsgkit-balance:${seed}`);
    const source = this.rows;
    return {
      get value() {
        return value;
      },
      // The batch estimate of c − mean_U f (f arrives with the old b added).
      update(_eta, f) {
        value += target - meanOf(f, B, 2 * B);
      },
      restore(b) {
        value = b;
      },
      // B/2 rows an iteration: B·t/2 rows × t blocks is what the run's own evaluations of the history at its
      // B unlabeled draws a step cost (B·t(t − 1)/2), so a short fit's bias costs no more than the fit.
      final: { nPoints: rows.length, d: source.d, copyPoint: (i, X, at) => source.copyRow(rows[i], X, at), rows, perIteration: B / 2, bias: (fU: Float64Array) => target - meanOf(fU, 0, fU.length) },
    };
  }
}

function meanOf(f: Float64Array, from: number, to: number): number {
  let s = 0;
  for (let r = from; r < to; r++) s += f[r];
  return s / (to - from);
}
