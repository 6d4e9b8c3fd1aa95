/**
 * The training options of `dsgkit train`, `compare` (and every command that
 * trains), generated from the learner registry: their `parseArgs` specs, their
 * `--help` lines with defaults read from each parameter's declaration, their
 * parsing (with the one validation function of learners/params, naming
 * `--option`), and the one-line description of a run.
 */
import { UsageError } from '../errors.ts';
import {
  checkParam,
  cliName,
  defaultStepSize,
  defaultText,
  defaultThreads,
  DEFAULT_CACHE_MB,
  DEFAULT_MAX_STEP,
  EVALUATIONS,
  LEARNERS,
  rangeText,
  resolveParams,
  THETA_LAMBDA,
  type LearnerSpec,
  type ParamSpec,
  type ParamValue,
  type Params,
  type Evaluation,
  type StepSize,
  type TrainOptions,
} from '../api.ts';
// (parameter checks come from the API: one validation function for scripts and the CLI)
import { isFixed } from '../learners/budget.ts';
import { withBudget } from '../train/budget.ts';
import { intOption, numberOption, positiveNumberOption, type OptionSpecs, type ParsedArgs } from './args.ts';
import { MAX_CLIP_QUANTILE } from '../data/scaler.ts';

/** Step-size schedules `--step` accepts (the kinds of {@link StepSize}). */
export const STEP_KINDS = ['inverse', 'constant', 'decay'] as const satisfies readonly StepSize['kind'][];

/** One command-line option of some learners: its CLI name, API key and declaration, and the learners that declare it so. */
interface OptionEntry {
  readonly name: string;
  readonly key: string;
  readonly spec: ParamSpec;
  readonly learners: LearnerSpec[];
}

/**
 * Every learner parameter of `learners` as command-line options: one entry per
 * CLI name and declaration (learners sharing a declaration share an entry; a
 * name two learners declare differently, e.g. one γ or a list of γ_j, has two).
 */
function parameterIndex(learners: readonly LearnerSpec[]): OptionEntry[] {
  const entries: OptionEntry[] = [];
  for (const l of learners) {
    for (const [key, spec] of Object.entries(l.params)) {
      const name = cliName(key, spec);
      const entry = entries.find((e) => e.name === name && e.spec === spec);
      if (entry) entry.learners.push(l);
      else entries.push({ name, key, spec, learners: [l] });
    }
  }
  return entries;
}

/** `parseArgs` specs of every training option: every registered learner's parameters, the step, and the run. */
export const TRAINING_OPTION_SPECS: OptionSpecs = {
  ...Object.fromEntries(parameterIndex(LEARNERS).map((e) => [e.name, { type: 'string' as const }])),
  label: { type: 'string' },
  'clip-quantile': { type: 'string' },
  positive: { type: 'string' },
  step: { type: 'string' },
  theta: { type: 'string' },
  eta: { type: 'string' },
  eta0: { type: 'string' },
  eta1: { type: 'string' },
  threads: { type: 'string' },
  'cache-mb': { type: 'string' },
  evaluation: { type: 'string' },
  'validate-every': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
};

/** What the shared options set: per-learner options for `train`, plus how the CLI reads and reports. */
export interface TrainingSettings {
  /** Label column of the input files (default `label`). */
  labelColumn?: string;
  /** The learners' parameters as given (validated), by API key. */
  given: Record<string, ParamValue>;
  /** Options for `train` shared by every learner of the run (positive, step, cache, validation cadence). */
  run: Pick<TrainOptions, 'positive' | 'clipQuantile' | 'step' | 'theta' | 'cacheBytes' | 'validateEvery' | 'evaluation'>;
  /** Evaluation threads as given (the API clamps to the cores). */
  threads: number;
  /** No progress output. */
  quiet: boolean;
}

function line(option: string, text: string): string {
  const head = `  ${option}`;
  return head.length < 26 ? `${head.padEnd(26)}${text}` : `${head}\n${' '.repeat(26)}${text}`;
}

function paramLine(name: string, spec: ParamSpec): string {
  const range = spec.kind === 'choice' ? spec.choices.join(' | ') : rangeText(spec);
  return line(`--${name} <${spec.symbol ?? (spec.kind === 'choice' ? 'name' : 'x')}>`, `${spec.doc}; ${range} (default: ${defaultText(spec)})`);
}

/**
 * Help lines for the training options of `learners` (default: every
 * registered one): parameters every listed learner has, then each learner's
 * own, then the step and run options; defaults are read from the declarations.
 * `seedAlsoSplits`: `--seed` also seeds the train/test split (compare).
 *
 * @example
 * io.stdout.write(trainingOptionsHelp(LEARNERS, { seedAlsoSplits: true }));
 */
export function trainingOptionsHelp(learners: readonly LearnerSpec[] = LEARNERS, opts: { seedAlsoSplits?: boolean } = {}): string {
  const index = parameterIndex(learners);
  const shared = index.filter((e) => e.learners.length === learners.length);
  const own = index.filter((e) => e.learners.length < learners.length);
  const out = ['Model options (features are scaled to [0, 1] first; the papers pick λ, σ and γ by cross-validation):'];
  for (const e of shared) out.push(e.name === 'seed' && opts.seedAlsoSplits ? line('--seed <s>', `seed of the split and of every model; ${rangeText(e.spec as never)} (default: ${defaultText(e.spec)})`) : paramLine(e.name, e.spec));
  const groups = new Map<string, Array<[string, ParamSpec]>>();
  for (const e of own) {
    const who = e.learners.map((l) => l.name).join(', ');
    groups.set(who, [...(groups.get(who) ?? []), [e.name, e.spec]]);
  }
  for (const [who, params] of groups) {
    out.push('', `Only for ${who}:`);
    for (const [name, spec] of params) out.push(paramLine(name, spec));
  }
  if (learners.some((l) => l.capabilities.steps)) {
    out.push(
      '',
      'Step size (learners on the stochastic loop):',
      line('--step <s>', 'η_t: inverse (θ/t) | constant (η) | decay (η0/(1 + η1·t)).'),
      line('', `Default: θ/(t + t0) with θ = ${THETA_LAMBDA}/λ, the papers' θ/t shifted so`),
      line('', `the first step is at most ${DEFAULT_MAX_STEP} (the AUC learners at σ < σ₀: more,`),
      line('', 'as a wide kernel\'s pair differences are short; docs/learners.md)'),
      line('--theta <θ>', `inverse step θ (default: ${THETA_LAMBDA}/λ, i.e. θλ = ${THETA_LAMBDA}; the convergence`),
      line('', 'theorems need θλ in (1, 2)); implies --step inverse'),
      line('--eta <η>', 'constant step η (required with --step constant)'),
      line('--eta0 <η0>', 'decay step η0 > 0 (required with --step decay)'),
      line('--eta1 <η1>', 'decay step η1 ≥ 0 (required with --step decay)'),
    );
  }
  out.push(
    '',
    'Data options:',
    line('--label <name>', 'label column of the input files (default: label)'),
    line('--clip-quantile <q>', "scale each feature over its q to 1 − q quantiles of the training"),
    line('', 'rows instead of its min to max, clipping values into [0, 1], so a'),
    line('', "few extreme values don't squeeze the rest (0 ≤ q ≤ 0.25; 0 is min"),
    line('', 'to max; default 0.02; docs/data.md § Feature scaling)'),
    '',
    'Run options (none of them changes a model):',
    line('--positive <label>', 'binary learners: the positive class, a label value or a class name'),
    line('', '(default: the larger label; for string classes the last in sorted order)'),
    line('--threads <n>', `evaluation threads (default: the cores this process may use, ${defaultThreads()} here;`),
    line('', "its CPU affinity capped by a container's CPU quota; more is clamped)"),
    line('--cache-mb <MB>', 'shared store of random frequencies, MiB; 0 regenerates them'),
    line('', `on every use, as the papers do (default: ${DEFAULT_CACHE_MB})`),
    ...(learners.some((l) => l.capabilities.profiles)
      ? [
          line('--evaluation <how>', 'loop learners: f at each batch from the history (O(t·B) per'),
          line('', 'iteration), or kept at every training row (rows, O(n)); auto'),
          line('', 'picks the less work (default: auto; same model either way)'),
        ]
      : []),
    line('--quiet, -q', 'no progress output on stderr'),
  );
  return out.join('\n');
}

/**
 * Parses the training options for a run of `learners`. A learner parameter
 * that none of them declares is a UsageError naming the learners that do; every
 * value is checked by its declaration (messages name `--option`), as are the
 * step options.
 *
 * @example
 * const s = parseTrainingOptions(values, [spec]);
 * await train({ learner: spec.name, data, ...optionsFor(spec, s), threads: s.threads });
 */
export function parseTrainingOptions(values: ParsedArgs['values'], learners: readonly LearnerSpec[]): TrainingSettings {
  const index = parameterIndex(LEARNERS);
  const mine = parameterIndex(learners);
  const given: Record<string, ParamValue> = {};
  for (const name of new Set(index.map((e) => e.name))) {
    const v = values[name];
    if (v === undefined) continue;
    const entries = mine.filter((e) => e.name === name);
    if (entries.length === 0) {
      const having = index.filter((e) => e.name === name).flatMap((e) => e.learners);
      throw new UsageError(`--${name} applies to ${having.map((l) => l.name).join(', ')} only (training: ${learners.map((l) => l.name).join(', ')})`);
    }
    // Every learner of the run that takes the option must accept the value.
    for (const e of entries) given[e.key] = checkParam(`--${name}`, e.spec, v);
  }

  const run: TrainingSettings['run'] = {};
  if (typeof values.positive === 'string') run.positive = values.positive;
  const clipQuantile = numberOption(values, 'clip-quantile', { min: 0, max: MAX_CLIP_QUANTILE });
  if (clipQuantile !== undefined) run.clipQuantile = clipQuantile;
  const hasLoop = learners.some((l) => l.capabilities.steps);
  // No --step: --theta alone selects the papers' θ/t; otherwise the learner's default schedule.
  const stepKind = values.step !== undefined ? checkParam('--step', { kind: 'choice', choices: STEP_KINDS, default: 'inverse', doc: '' }, values.step) : values.theta !== undefined ? 'inverse' : undefined;
  if (values.evaluation !== undefined) run.evaluation = checkParam('--evaluation', { kind: 'choice', choices: EVALUATIONS, default: 'auto', doc: '' }, values.evaluation) as Evaluation;
  if (!hasLoop) {
    for (const o of ['step', 'theta', 'eta', 'eta0', 'eta1', 'evaluation']) if (values[o] !== undefined) throw new UsageError(`--${o} applies to learners on the stochastic loop only (training: ${learners.map((l) => l.name).join(', ')})`);
  }
  const wrongStep = (option: string, kind: StepSize['kind']) => {
    if (values[option] !== undefined && stepKind !== kind) throw new UsageError(`--${option} applies to --step ${kind} only (the step is ${stepKind ?? 'the default'})`);
  };
  wrongStep('theta', 'inverse');
  wrongStep('eta', 'constant');
  wrongStep('eta0', 'decay');
  wrongStep('eta1', 'decay');
  const needs = (option: string) => {
    if (values[option] === undefined) throw new UsageError(`--step ${stepKind} needs --${option}`);
  };
  if (stepKind === 'inverse') {
    const theta = positiveNumberOption(values, 'theta');
    if (theta !== undefined) run.theta = theta;
  } else if (stepKind === 'constant') {
    needs('eta');
    run.step = { kind: 'constant', eta: positiveNumberOption(values, 'eta')! };
  } else if (stepKind === 'decay') {
    needs('eta0');
    needs('eta1');
    run.step = { kind: 'decay', eta0: positiveNumberOption(values, 'eta0')!, eta1: numberOption(values, 'eta1', { min: 0 })! };
  }
  const cacheMb = numberOption(values, 'cache-mb', { min: 0 });
  if (cacheMb !== undefined) run.cacheBytes = Math.round(cacheMb * 2 ** 20);
  const every = intOption(values, 'validate-every', { min: 1 });
  if (every !== undefined) run.validateEvery = every;

  return {
    ...(typeof values.label === 'string' ? { labelColumn: values.label } : {}),
    given,
    run,
    threads: intOption(values, 'threads', { min: 1 }) ?? defaultThreads(),
    quiet: values.quiet === true,
  };
}

/**
 * The options `train` takes for one learner of the run: the given parameters
 * it declares, and the step options when it is on the loop.
 *
 * @example
 * await train({ learner: spec.name, data, ...optionsFor(spec, settings), threads: settings.threads });
 */
export function optionsFor(spec: LearnerSpec, settings: TrainingSettings): Record<string, unknown> {
  const params = Object.fromEntries(Object.entries(settings.given).filter(([key]) => key in spec.params));
  const { step, theta, evaluation, ...rest } = settings.run;
  const stepping = spec.capabilities.steps ? { ...(step ? { step } : {}), ...(theta !== undefined ? { theta } : {}) } : {};
  const evaluating = spec.capabilities.profiles && evaluation !== undefined ? { evaluation } : {};
  return { ...params, ...rest, ...stepping, ...evaluating, ...(spec.task === 'binary' ? {} : { positive: undefined }) };
}

/** What a learner's run takes from its training rows, for {@link describeRun}: defaults computed from them (σ) and the median heuristic σ₀. */
export interface DataFacts {
  readonly computed?: Readonly<Record<string, number>>;
  readonly sigma0?: number;
}

/**
 * One line naming the effective hyperparameters of a run of `learners`
 * (declared defaults filled in, and the ones each learner's data give it —
 * `fromData(l).computed`, a default that comes from the data, such as σ —
 * named as such, tagged by learner where they differ, e.g. learners whose
 * features are scaled differently); a parameter some learners lack is
 * tagged with the learners that have it. With the data's σ₀
 * (`fromData(l).sigma0`) the step is the one the run takes (a pairwise
 * learner's at σ < σ₀ is raised).
 *
 * @example
 * describeRun(LEARNERS.slice(0, 2), settings);
 * // "rbf kernel σ = 1, λ = 0.01, γ = 0.9 (<first learner>), hinge loss (<second learner>), η_t = 150/(t + 300), batch 64, m = 64, T = 400, seed 1"
 */
export function describeRun(learners: readonly LearnerSpec[], settings: TrainingSettings, fromData: (l: LearnerSpec) => DataFacts = () => ({}), labeledRows?: number): string {
  const computedOf = (l: LearnerSpec) => fromData(l).computed ?? {};
  const parts: string[] = [];
  const seen = new Set<string>();
  // A loop learner's T not given: its budget rule's on `labeledRows` (not known: the rule's T for an unknown n_l).
  const budgets = new Map<string, string>();
  const values = new Map<string, Params>(
    learners.map((l) => {
      const b = withBudget(l, resolveParams(l, Object.fromEntries(Object.entries(settings.given).filter(([k]) => k in l.params))), labeledRows);
      if (b.budget && labeledRows !== undefined && l.kind === 'loop' && !isFixed(l.budget)) budgets.set(l.name, ` (from n_l = ${labeledRows})`);
      return [l.name, b.params];
    }),
  );
  const order = ['kernel', 'sigma', 'lambda'];
  const keys = [...new Set([...order, ...learners.flatMap((l) => Object.keys(l.params))])].filter((k) => !['m', 'T', 'seed', 'batchSize'].includes(k));
  for (const key of keys) {
    const all = learners.filter((l) => key in l.params);
    if (all.length === 0 || seen.has(key)) continue;
    seen.add(key);
    // One part per value: learners whose defaults differ (tsgs3vm's C = 300, frs3vm's 100) are each tagged.
    const groups = new Map<string, LearnerSpec[]>();
    for (const l of all) {
      const k = JSON.stringify(values.get(l.name)![key] ?? computedOf(l)[key] ?? null);
      groups.set(k, [...(groups.get(k) ?? []), l]);
    }
    for (const having of groups.values()) {
      const spec = having[0].params[key];
      const v = values.get(having[0].name)![key];
      const tag = having.length < learners.length ? ` (${having.map((l) => l.name).join(', ')})` : '';
      if (v === undefined && spec.omitDefault) continue; // at its default (e.g. gaussian features): not shown
      if (v === undefined) {
        // A default computed from the data (written to the model header).
        const doc = spec.kind === 'number' && spec.defaultDoc ? spec.defaultDoc : 'from the data';
        const computed = computedOf(having[0])[key];
        parts.push(computed !== undefined ? `${spec.symbol ?? key} = ${fmt(computed)} (${doc})${tag}` : `${spec.symbol ?? key} = ${doc}${tag}`);
        continue;
      }
      if (key === 'kernel') parts.push(`${v} kernel`);
      else if (spec.kind === 'choice') parts.push(spec.symbol ? `${spec.symbol} = ${v}${tag}` : `${v} ${key}${tag}`);
      else parts.push(`${spec.symbol ?? key} = ${v === undefined ? (spec.defaultDoc ?? 'none') : Array.isArray(v) ? `(${v.map(fmt).join(', ')})` : fmt(v as number)}${tag}`);
    }
  }
  if (parts[0]?.endsWith('kernel') && parts[1]?.startsWith('σ')) parts.splice(0, 2, `${parts[0]} ${parts[1]}`);
  const loops = learners.filter((l) => l.capabilities.steps);
  if (loops.length > 0) {
    // Each loop learner's step (learners differ in their default schedule), tagged when they differ.
    const steps = new Map<string, string[]>();
    for (const l of loops) {
      const p = values.get(l.name)!;
      const text = stepText(settings.run, l, { ...p, sigma: p.sigma ?? computedOf(l).sigma }, fromData(l).sigma0);
      steps.set(text, [...(steps.get(text) ?? []), l.name]);
    }
    for (const [text, who] of steps) parts.push(steps.size > 1 || loops.length < learners.length ? `${text} (${who.join(', ')})` : text);
    const batches = new Map<string, string[]>();
    for (const l of learners.filter((x) => 'batchSize' in x.params)) {
      const b = String(values.get(l.name)!.batchSize);
      batches.set(b, [...(batches.get(b) ?? []), l.name]);
    }
    for (const [b, who] of batches) parts.push(batches.size > 1 ? `batch ${b} (${who.join(', ')})` : `batch ${b}`);
    const p = values.get(loops[0].name)!;
    // One T per value; "(from n_l = …)" when every learner at that value derived it by a growing rule.
    const Ts = new Map<string, string[]>();
    for (const l of loops.filter((x) => 'T' in x.params)) {
      const t = String(values.get(l.name)!.T);
      Ts.set(t, [...(Ts.get(t) ?? []), l.name]);
    }
    const tText = (t: string, who: string[]) => `T = ${t}${who.every((n) => budgets.has(n)) ? budgets.get(who[0])! : ''}${Ts.size > 1 ? ` (${who.join(', ')})` : ''}`;
    parts.push(`m = ${p.m}`, ...[...Ts].map(([t, who]) => tText(t, who)), `seed ${p.seed}`);
  }
  return parts.join(', ');
}

function stepText(run: TrainingSettings['run'], spec: LearnerSpec, params: Params, sigma0: number | undefined): string {
  const context = sigma0 !== undefined ? { sigma0: () => sigma0 } : {};
  const step = run.step ?? (run.theta !== undefined ? { kind: 'inverse' as const, theta: run.theta } : 'defaultStep' in spec ? spec.defaultStep(params, context) : defaultStepSize(params.lambda as number, THETA_LAMBDA));
  if (run.step === undefined && run.theta === undefined && step.kind === 'decay') return shiftedStepText(step);
  if (step.kind === 'constant') return `η_t = ${fmt(step.eta)}`;
  if (step.kind === 'decay') return `η_t = ${fmt(step.eta0)}/(1 + ${fmt(step.eta1)}·t)`;
  return `η_t = ${fmt(step.theta)}/t`;
}

/**
 * A default (decay) schedule as the papers' shifted `θ/(t + t₀)`, θ = η0/η1 and t₀ = θ/η0, to `digits` significant digits.
 *
 * @example
 * shiftedStepText({ eta0: 0.5, eta1: 1 / 300 });       // 'η_t = 150/(t + 300)'
 * shiftedStepText({ eta0: 5.2, eta1: 0.000347 }, 3); // 'η_t = 15000/(t + 2880)'
 */
export function shiftedStepText(step: { readonly eta0: number; readonly eta1: number }, digits = 6): string {
  const theta = step.eta0 / step.eta1;
  return `η_t = ${fmt(theta, digits)}/(t + ${fmt(theta / step.eta0, digits)})`;
}

function fmt(x: number, digits = 6): string {
  return String(Number(x.toPrecision(digits)));
}
