/**
 * Writing a benchmark's results: `bench/results/<name>.json` and, optionally,
 * `bench/results/<name>.svg`, each written to a temporary file in the same
 * directory and renamed into place, so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where {@link writeBenchOutputs} put the files. */
export interface BenchOutputPaths {
  json: string;
  svg?: string;
}

/** Options of {@link writeBenchOutputs}. */
export interface WriteBenchOutputsOptions {
  /** Output directory (created if missing). Default: `bench/results/` of this repository. */
  dir?: string;
}

/** `bench/results/`, next to this `lib/` folder, wherever the repository is checked out. */
const DEFAULT_DIR = fileURLToPath(new URL('../results/', import.meta.url));

/**
 * Writes `<dir>/<name>.json` (pretty-printed, newline-terminated) and, when
 * `svg` is given, `<dir>/<name>.svg`, creating `dir` if needed. Each file is
 * written to a temporary sibling and renamed, so a crash leaves either the old
 * file or the new one, never a truncated one. `name` may hold letters, digits,
 * `.`, `_` and `-` only (no paths). Synchronous, so it is done when it
 * returns (a benchmark script may exit right after). Note that JSON turns NaN and ±Infinity
 * into `null`.
 *
 * @example
 * const paths = writeBenchOutputs('scaling', { threads: [1, 2], speedup: [1, 1.9] }, svg);
 * // paths.json === '<repo>/bench/results/scaling.json', paths.svg === '<repo>/bench/results/scaling.svg'
 */
export function writeBenchOutputs(name: string, json: unknown, svg?: string, options: WriteBenchOutputsOptions = {}): BenchOutputPaths {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name)) {
    throw new RangeError(`writeBenchOutputs: name '${name}' must be letters, digits, '.', '_' or '-' (no slashes, not starting with '.')`);
  }
  const text = JSON.stringify(json, null, 2);
  if (text === undefined) throw new TypeError(`writeBenchOutputs: results for '${name}' cannot be written as JSON`);
  const dir = options.dir ?? DEFAULT_DIR;
  mkdirSync(dir, { recursive: true });
  const paths: BenchOutputPaths = { json: join(dir, `${name}.json`) };
  writeAtomically(paths.json, text + '\n');
  if (svg !== undefined) {
    paths.svg = join(dir, `${name}.svg`);
    writeAtomically(paths.svg, svg);
  }
  return paths;
}

/** Writes `text` to a temporary sibling of `path`, then renames it over `path`. */
function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, text, { encoding: 'utf8', flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
