/**
 * Learner parameters as data: every hyperparameter a learner takes is declared
 * once, in the learner's file, as a {@link ParamSpec} (default, doc, range, CLI
 * name). The API's validation, the CLI's parsing and `--help`, the one-line
 * description of a run, the model header and the search space all read these
 * declarations; nothing else spells a parameter out.
 *
 * Validation happens once, at the boundary, with one error class
 * ({@link UsageError}) whose message names the option as the caller wrote it:
 * `lambda` from a script, `--lambda` from the command line.
 */
import { UsageError } from '../errors.ts';

/** A parameter's value once validated: a number, a name, or a list of numbers (see {@link NumbersParam}). */
export type ParamValue = number | string | readonly number[];

/** Fields every parameter has. */
interface ParamBase {
  /** One line for `--help`, in a user's words. */
  readonly doc: string;
  /** Option name on the command line, without `--` (default: the key in kebab case). */
  readonly cli?: string;
  /** Short symbol for one-line descriptions of a run, e.g. `λ` (default: the key). */
  readonly symbol?: string;
  /** How the default is shown when it is computed, e.g. `C·n_l/n_u` or `median heuristic`. */
  readonly defaultDoc?: string;
  /**
   * The default is the key's absence: never filled in, and a given default
   * dropped, so headers written before the parameter existed keep their bytes.
   */
  readonly omitDefault?: boolean;
}

/** A real or whole number within a range. */
export interface NumberParam extends ParamBase {
  readonly kind: 'number';
  /** Default value; `undefined` when the learner computes it from the data (see `defaultDoc`). */
  readonly default: number | undefined;
  readonly min?: number;
  readonly max?: number;
  /** Bounds are exclusive when set. */
  readonly openMin?: boolean;
  readonly openMax?: boolean;
  readonly integer?: boolean;
  /** With `default: undefined`: the API fills the value from the training data before `fit` (σ₀), so `fit` always sees a number. */
  readonly fromData?: boolean;
}

/** One of a fixed set of names. */
export interface ChoiceParam extends ParamBase {
  readonly kind: 'choice';
  readonly choices: readonly string[];
  readonly default: string;
}

/**
 * One number, or a list of numbers (one per subproblem, say), each within a
 * range. Given as a number, an array, or text `0.5` / `0.5,0.6,0.7`; validated
 * to a number when one value is given and to a list otherwise. How long a list
 * must be depends on the data (e.g. k − 1 thresholds), so the learner checks
 * the length when it sees the data.
 */
export interface NumbersParam extends ParamBase {
  readonly kind: 'numbers';
  readonly default: number | readonly number[] | undefined;
  readonly min?: number;
  readonly max?: number;
  readonly openMin?: boolean;
  readonly openMax?: boolean;
}

/** A parameter declaration. */
export type ParamSpec = NumberParam | ChoiceParam | NumbersParam;

/** A learner's parameter table: API key → declaration. */
export type ParamTable = Readonly<Record<string, ParamSpec>>;

/** Validated parameter values (defaults not yet filled are absent). */
export type ParamValues = Readonly<Record<string, ParamValue>>;

/**
 * The value type one declaration yields: a choice's names, a number, or for a
 * `numbers` parameter one number or a list.
 *
 * @example
 * type K = ValueOf<{ kind: 'choice'; choices: readonly ['rbf', 'laplacian']; default: 'rbf'; doc: '' }>; // 'rbf' | 'laplacian'
 */
export type ValueOf<S> = S extends { readonly kind: 'choice'; readonly choices: readonly (infer C)[] }
  ? C
  : S extends { readonly kind: 'numbers' }
    ? number | readonly number[]
    : number;

/**
 * A learner's validated parameters with every default filled, typed from its
 * table: what `fit` receives (`params.T` is a `number`, `params.kernel` a kernel name).
 *
 * @example
 * type P = ParamsOf<typeof qsgS2aucSpec.params>; // { kernel: 'rbf' | 'laplacian'; sigma: number; …; gamma: number }
 */
export type ParamsOf<T> = { readonly [K in keyof T]: Resolved<T[K]> };

/** A declaration's value as `fit` sees it: a computed default the learner fills itself may be undefined. */
type Resolved<S> = S extends { readonly default: undefined }
  ? S extends { readonly fromData: true }
    ? ValueOf<S>
    : ValueOf<S> | undefined
  : S extends { readonly omitDefault: true }
    ? ValueOf<S> | undefined
    : ValueOf<S>;

/**
 * The parameters a caller may give for a table: every key optional, typed from
 * its declaration (the API's `train`/`tune` options; a misspelt key or a wrong
 * type is a compile error).
 *
 * @example
 * const given: ParamInput<typeof qsgS2aucSpec.params> = { lambda: 0.1, kernel: 'rbf' };
 */
export type ParamInput<T> = { readonly [K in keyof T]?: ValueOf<T[K]> };

/**
 * The declaration of `key` in `table`, or undefined: own keys only, so names
 * such as `constructor` or `__proto__` are never taken for parameters.
 *
 * @example
 * paramSpec(spec.params, 'lambda'); // { kind: 'number', default: 0.01, … }
 * paramSpec(spec.params, 'constructor'); // undefined
 */
export function paramSpec(table: ParamTable, key: string): ParamSpec | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * The command-line name of a parameter (`batchSize` → `batch-size`, unless the spec says otherwise).
 *
 * @example
 * cliName('batchSize', { kind: 'number', default: 64, doc: '' }); // 'batch-size'
 */
export function cliName(key: string, spec: ParamSpec): string {
  return spec.cli ?? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The range of a number parameter as text: `(0, ∞)`, `[0, 1]`, `whole number ≥ 1`.
 *
 * @example
 * rangeText({ kind: 'number', default: 0.5, min: 0, max: 1, doc: '' }); // '[0, 1]'
 * rangeText({ kind: 'numbers', default: 0.5, min: 0, max: 1, doc: '' }); // '[0, 1], one value or a comma-separated list'
 */
export function rangeText(spec: NumberParam | NumbersParam): string {
  const { min = -Infinity, max = Infinity } = spec;
  if (spec.kind === 'numbers') return `${interval(spec)}, one value or a comma-separated list`;
  if (spec.integer) return Number.isFinite(max) ? `whole number in [${min}, ${max}]` : `whole number ≥ ${min}`;
  return interval(spec);
}

function interval(spec: NumberParam | NumbersParam): string {
  const { min = -Infinity, max = Infinity } = spec;
  const lo = Number.isFinite(min) ? `${spec.openMin ? '(' : '['}${min}` : '(-∞';
  const hi = Number.isFinite(max) ? `${max}${spec.openMax ? ')' : ']'}` : '∞)';
  return `${lo}, ${hi}`;
}

/**
 * Checks one value against its declaration and returns it, or throws a
 * UsageError naming `option` (e.g. `lambda` or `--lambda`). Numbers given as
 * strings (from the command line) are parsed here: `2e6`, `2_000_000`.
 *
 * @example
 * checkParam('lambda', { kind: 'number', default: 0.01, min: 0, openMin: true, doc: '' }, 'abc');
 * // UsageError: lambda must be a number in (0, ∞), got 'abc'
 * checkParam('--gamma', { kind: 'numbers', default: 0.5, min: 0, max: 1, doc: '' }, '0.5,0.6,0.7'); // [0.5, 0.6, 0.7]
 */
export function checkParam(option: string, spec: ParamSpec, value: unknown): ParamValue {
  if (spec.kind === 'choice') {
    if (typeof value !== 'string' || !spec.choices.includes(value)) {
      throw new UsageError(`${option} must be one of ${spec.choices.join(', ')}, got ${show(value)}`);
    }
    return value;
  }
  if (spec.kind === 'numbers') {
    const items: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
    const list = items.map((v) => (typeof v === 'number' ? v : typeof v === 'string' ? toNumber(v) : NaN));
    if (list.length === 0 || !list.every((n) => inRange(n, spec))) {
      throw new UsageError(`${option} must be a number in ${interval(spec)} or a comma-separated list of them, got ${show(value)}`);
    }
    return list.length === 1 ? list[0] : Object.freeze(list);
  }
  const n = typeof value === 'number' ? value : typeof value === 'string' ? toNumber(value) : NaN;
  if (!inRange(n, spec) || (spec.integer && !Number.isSafeInteger(n))) {
    throw new UsageError(`${option} must be a ${spec.integer ? '' : 'number in '}${rangeText(spec)}, got ${show(value)}`);
  }
  return n;
}

/**
 * Checks every known key of `given` against `table`; keys the table does not
 * declare are a UsageError naming them (a typo must never be silently ignored).
 * `prefix` is prepended to option names in messages (`--` for the CLI).
 *
 * @example
 * checkParams({ lambda: 0.1 }, spec.params, { learner: spec.name }); // { lambda: 0.1 }
 */
export function checkParams(given: Readonly<Record<string, unknown>>, table: ParamTable, opts: { learner: string; prefix?: string }): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const spec = paramSpec(table, key);
    if (!spec) throw new UsageError(`${opts.prefix ?? ''}${key} is not a parameter of ${opts.learner} (its parameters: ${Object.keys(table).join(', ')})`);
    out[key] = checkParam(`${opts.prefix ? opts.prefix + cliName(key, spec) : key}`, spec, value);
    if (spec.omitDefault && out[key] === spec.default) delete out[key];
  }
  return out;
}

/**
 * `given` with every declared default filled in (computed defaults stay absent).
 *
 * @example
 * withDefaults({ lambda: 0.1 }, table); // { lambda: 0.1, sigma: 1, … }
 */
export function withDefaults(given: ParamValues, table: ParamTable): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const [key, spec] of Object.entries(table)) {
    const v = given[key] ?? (spec.omitDefault ? undefined : spec.default);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/**
 * The default as `--help` shows it: the value, or the doc of a computed default.
 *
 * @example
 * defaultText({ kind: 'number', default: undefined, defaultDoc: 'median heuristic', doc: '' }); // 'median heuristic'
 */
export function defaultText(spec: ParamSpec): string {
  if (spec.defaultDoc !== undefined) return spec.defaultDoc;
  if (Array.isArray(spec.default)) return spec.default.join(',');
  return spec.default === undefined ? 'none' : String(spec.default);
}

function inRange(n: number, spec: NumberParam | NumbersParam): boolean {
  const { min = -Infinity, max = Infinity } = spec;
  return Number.isFinite(n) && (spec.openMin ? n > min : n >= min) && (spec.openMax ? n < max : n <= max);
}

function toNumber(text: string): number {
  const t = text.trim().replace(/_/g, '');
  return t === '' ? NaN : Number(t);
}

function show(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/**
 * `params` with `key` set to `value`, placed among the keys present in the
 * parameter table's order — where a given value would stand — so a header
 * with a value filled from the data (the budget rule's T, the feature family
 * `auto` chose) is the bytes of a run given that value.
 *
 * @example
 * withParamInPlace(spec.params, { kernel: 'rbf', m: 64, seed: 1 }, 'T', 400); // { kernel: 'rbf', m: 64, T: 400, seed: 1 }
 */
export function withParamInPlace<V extends ParamValues>(table: ParamTable, params: V, key: string, value: ParamValue): V {
  const order = Object.keys(table);
  const at = order.indexOf(key);
  const entries = Object.entries(params).filter(([k]) => k !== key);
  const before = entries.findIndex(([k]) => order.indexOf(k) > at);
  entries.splice(before < 0 ? entries.length : before, 0, [key, value]);
  return Object.fromEntries(entries) as V;
}
