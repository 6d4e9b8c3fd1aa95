/**
 * Where a command writes, checked before any work: every output's directory
 * exists, no output is an existing directory, no output is one of the
 * command's inputs (however it is spelled: `./a.arrow`, a symbolic link, a hard
 * link), no two outputs are the same file, no output is a device, pipe or
 * socket (`/dev/null`, `/dev/stdout`: the atomic rename would replace the
 * node itself), and a file can be created in each
 * output's directory (not read-only, not full, permitted, not `/proc`; with
 * room for the bytes when the size is known in advance). Each failure is a
 * {@link UsageError} naming the options involved, found before the work — so
 * the user's data file is never overwritten by its own result, and an hour
 * of training is never lost to a destination that cannot be written.
 */
import { realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { DataError, UsageError } from '../errors.ts';
import { checkWritable } from '../data/atomic.ts';

/** Option name (without `--`, or a word such as `input file`) → path; undefined entries are skipped. */
export type PathsByOption = Readonly<Record<string, string | undefined>>;

/** How an option is shown in a message: `--out`, or the word given for a positional. */
function shown(option: string): string {
  return option.includes(' ') ? option : `--${option}`;
}

/**
 * The absolute path `path` refers to, links followed: the real path of an
 * existing file, else the real path of its (existing) directory joined with
 * its name; undefined when not even the directory exists.
 *
 * @example
 * await resolveOutputPath('./data/../data/spam.arrow'); // '/home/me/dsgkit/data/spam.arrow'
 */
export async function resolveOutputPath(path: string): Promise<string | undefined> {
  const real = await realpath(path).catch(() => undefined);
  if (real !== undefined) return real;
  const dir = await realpath(dirname(resolve(path))).catch(() => undefined);
  return dir === undefined ? undefined : join(dir, basename(path));
}

interface Resolved {
  option: string;
  path: string;
  real: string | undefined;
  info: Stats | undefined;
}

async function resolveAll(paths: PathsByOption): Promise<Resolved[]> {
  // '-' is stdin or stdout, not a file.
  const entries = Object.entries(paths).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '-');
  return Promise.all(
    entries.map(async ([option, path]) => ({
      option,
      path,
      real: await resolveOutputPath(path),
      info: await stat(path).catch(() => undefined),
    })),
  );
}

function sameFile(a: Resolved, b: Resolved): boolean {
  if (a.real !== undefined && a.real === b.real) return true;
  return a.info !== undefined && b.info !== undefined && a.info.dev === b.info.dev && a.info.ino === b.info.ino;
}

/**
 * Checks a command's outputs against its inputs before it reads or computes
 * anything (see the module comment). Throws a UsageError such as
 * `--out 'train.arrow' is the same file as --data 'train.arrow'; the input would be overwritten`.
 *
 * @example
 * await checkOutputs({ out: 'model.dsg' }, { data: 'train.arrow', validation: undefined });
 * await checkOutputs({ 'out-train': 'a.arrow', 'out-test': 'b.arrow' }, { 'input file': 'spam.arrow' });
 * await checkOutputs({ out: 'big.arrow' }, {}, { out: 8e9 }); // also needs 8 GB free there
 * await checkOutputs({ out: '-' }, { data: 'rows.arrow' }, {}, { stdout: true }); // predict --out -: standard output
 */
export async function checkOutputs(outputs: PathsByOption, inputs: PathsByOption, sizes: Readonly<Record<string, number>> = {}, opts: { readonly stdout?: boolean } = {}): Promise<void> {
  // `-` is standard output only where the command writes there (predict --out -); elsewhere it would be a file named '-'.
  const dash = Object.entries(outputs).find(([, path]) => path === '-');
  if (dash && !opts.stdout) throw new UsageError(`${shown(dash[0])} -: this command writes a file, not standard output; give a path (predict --out - writes to stdout)`);
  const outs = await resolveAll(outputs);
  const ins = await resolveAll(inputs);
  for (const o of outs) {
    if (o.info?.isDirectory()) throw new UsageError(`${shown(o.option)} '${o.path}' is a directory; give the path of a file to write`);
    if (o.info !== undefined && !o.info.isFile()) {
      // `--out /dev/null`, `/dev/stdout`, a FIFO: the rename of the finished file would replace the device or pipe itself.
      const kind = o.info.isFIFO() ? 'a named pipe' : o.info.isSocket() ? 'a socket' : 'a device';
      throw new UsageError(`${shown(o.option)} '${o.path}' is ${kind}, not a regular file; dsgkit writes a new file and renames it into place, which would replace it — give the path of a regular file`);
    }
    if (o.real === undefined) throw new UsageError(`${shown(o.option)}: directory '${dirname(o.path)}' does not exist`);
    for (const i of ins) {
      if (sameFile(o, i)) {
        throw new UsageError(`${shown(o.option)} '${o.path}' is the same file as ${shown(i.option)} '${i.path}'; the input would be overwritten — write somewhere else`);
      }
    }
  }
  for (let a = 0; a < outs.length; a++) {
    for (let b = a + 1; b < outs.length; b++) {
      if (sameFile(outs[a], outs[b])) throw new UsageError(`${shown(outs[a].option)} and ${shown(outs[b].option)} name the same file '${outs[a].path}'; give two different files`);
    }
  }
  for (const o of outs) {
    try {
      await checkWritable(o.path, sizes[o.option]);
    } catch (err) {
      if (err instanceof DataError) throw new UsageError(`${shown(o.option)}: ${err.message}`);
      throw err;
    }
  }
}
