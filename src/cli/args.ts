/**
 * Argument helpers over `node:util` `parseArgs`: its errors and every bad
 * option value become {@link UsageError}s (exit code 2) with a message that
 * names the option.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.ts';

/** Option specs as `parseArgs` takes them. */
export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** Parsed options (strings and booleans) and positionals. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Strict parse of `argv` against `options` (always with `--help`/`-h`);
 * unknown options and missing values are UsageErrors.
 *
 * @example
 * const { values, positionals } = parseCommandArgs(['in.csv', '--out', 'x.arrow'], { out: { type: 'string' } });
 */
export function parseCommandArgs(argv: readonly string[], options: OptionSpecs): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args: joinNegativeNumbers(argv, options),
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (err) {
    const e = err as Error & { code?: string };
    if (typeof e.code === 'string' && e.code.startsWith('ERR_PARSE_ARGS')) throw new UsageError(e.message.replace(/\.? ?To specify a positional argument.*$/s, ''));
    throw err;
  }
}

/**
 * `--name -1` → `--name=-1` for string options, so negative numbers need no `=`
 * (parseArgs alone rejects a value that starts with a dash as ambiguous).
 */
function joinNegativeNumbers(argv: readonly string[], options: OptionSpecs): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = argv[i + 1];
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a.startsWith('--') && !a.includes('=') && options[a.slice(2)]?.type === 'string' && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * The value of a required string option, or a UsageError naming it.
 *
 * @example
 * const out = requireString(values, 'out'); // UsageError "missing required option --out" when absent
 */
export function requireString(values: ParsedArgs['values'], name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`missing required option --${name}`);
  return v;
}

/**
 * Exactly one positional argument (the input file), or a UsageError.
 *
 * @example
 * const input = onePositional(positionals, 'input file');
 */
export function onePositional(positionals: readonly string[], what: string): string {
  if (positionals.length === 0) throw new UsageError(`missing ${what}`);
  if (positionals.length > 1) throw new UsageError(`expected one ${what}, got ${positionals.length}: ${positionals.join(' ')}`);
  return positionals[0];
}

function toNumber(text: string): number {
  const t = text.trim().replace(/_/g, '');
  return t === '' ? NaN : Number(t);
}

/**
 * A whole-number option (accepts `2000000`, `2e6`, `2_000_000`), with bounds.
 *
 * @example
 * const rows = intOption(values, 'rows', { min: 1 }); // UsageError "--rows must be a whole number ≥ 1, got 'x'"
 */
export function intOption(values: ParsedArgs['values'], name: string, opts: { min?: number; fallback?: number } = {}): number | undefined {
  const v = values[name];
  if (v === undefined) return opts.fallback;
  const n = toNumber(String(v));
  const min = opts.min ?? 0;
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got '${v}'`);
  return n;
}

/**
 * A real-number option within `[min, max]` (open ends with `openMin`/`openMax`).
 *
 * @example
 * const p = numberOption(values, 'positive', { min: 0, max: 1, openMin: true, openMax: true });
 */
export function numberOption(
  values: ParsedArgs['values'],
  name: string,
  opts: { min?: number; max?: number; openMin?: boolean; openMax?: boolean; fallback?: number } = {},
): number | undefined {
  const v = values[name];
  if (v === undefined) return opts.fallback;
  const n = toNumber(String(v));
  const { min = -Infinity, max = Infinity } = opts;
  const ok = Number.isFinite(n) && (opts.openMin ? n > min : n >= min) && (opts.openMax ? n < max : n <= max);
  if (!ok) {
    const lo = Number.isFinite(min) ? `${opts.openMin ? '(' : '['}${min}` : '(-∞';
    const hi = Number.isFinite(max) ? `${max}${opts.openMax ? ')' : ']'}` : '∞)';
    throw new UsageError(`--${name} must be a number in ${lo}, ${hi}, got '${v}'`);
  }
  return n;
}

/** Output extensions that mean Arrow IPC. */
export const ARROW_OUTPUT_EXTENSIONS = ['.arrow', '.arrows', '.feather', '.ipc'];

/**
 * Checks that an output path names an Arrow file (dsgkit writes Arrow only).
 *
 * @example
 * requireArrowOutput('train.arrow', 'out'); // ok; 'train.csv' → UsageError
 */
export function requireArrowOutput(path: string, option: string): string {
  const lower = path.toLowerCase();
  if (!ARROW_OUTPUT_EXTENSIONS.some((ext) => lower.endsWith(ext))) {
    throw new UsageError(`--${option} must name an Arrow file (${ARROW_OUTPUT_EXTENSIONS.join(' ')}; .arrows writes the stream format), got '${path}'`);
  }
  return path;
}

/**
 * A real-number option that must be `> 0` (and finite).
 *
 * @example
 * const lambda = positiveNumberOption(values, 'lambda'); // UsageError "--lambda must be a positive number, got 'x'"
 */
export function positiveNumberOption(values: ParsedArgs['values'], name: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = toNumber(String(v));
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number, got '${v}'`);
  return n;
}

/**
 * A string option that must be one of `choices`.
 *
 * @example
 * const kernel = choiceOption(values, 'kernel', ['rbf', 'laplacian']); // UsageError "--kernel must be one of rbf, laplacian, got 'poly'"
 */
export function choiceOption<C extends string>(values: ParsedArgs['values'], name: string, choices: readonly C[]): C | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v)) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got '${String(v)}'`);
  return v as C;
}
