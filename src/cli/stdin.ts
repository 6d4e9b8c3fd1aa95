/**
 * `-` as an input file: the command reads stdin. The bytes are copied to a
 * private temporary file first (the readers need a file: Arrow files are read
 * from their footer, text files twice when they are large), whose type is
 * told from its first bytes — an Arrow file (`ARROW1`), an Arrow stream
 * (continuation marker `FF FF FF FF`), JSON Lines (`{`), CSV (a comma in the
 * first line) or else LIBSVM. Messages name it `stdin`, never the temporary
 * path; the copy is removed when the command ends, or by the SIGINT/SIGTERM
 * handler.
 *
 * @example
 * // dsgkit describe - < data/spam.arrow
 * const input = await inputFile(onePositional(positionals, 'input file'), io, 'input file');
 */
import { createWriteStream, rmSync } from 'node:fs';
import { mkdtemp, open, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { readDataset, type Dataset, type ReadDatasetOptions } from '../data/index.ts';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DataError, UsageError } from '../errors.ts';
import type { CliIO } from './io.ts';

/** Temporary directories holding a copy of stdin, for {@link removeStdinCopies}. */
const copies = new Set<string>();
/** Whether this process has read stdin already (it can be read once). */
let taken: string | undefined;

/** How an option is shown in a message: `--data`, or the word given for a positional. */
const shown = (option: string) => (option.includes(' ') ? option : `--${option}`);

/**
 * The extension that tells dsgkit's readers the type of `head`, the first
 * bytes of an input.
 *
 * @example
 * extensionFor(Buffer.from('label,x1\n1,0.5\n')); // '.csv'
 */
export function extensionFor(head: Uint8Array): string {
  const text = Buffer.from(head).toString('latin1');
  if (text.startsWith('ARROW1')) return '.arrow';
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xff && head[2] === 0xff && head[3] === 0xff) return '.arrows';
  const first = text.replace(/^\uFEFF|^\xEF\xBB\xBF/, '').split(/\r?\n/, 1)[0];
  if (first.trimStart().startsWith('{')) return '.jsonl';
  return first.includes(',') ? '.csv' : '.libsvm';
}

/**
 * `path` itself, or for `-` the path of a temporary copy of stdin (see the
 * module comment). `option` names the input in messages. A UsageError when
 * stdin is a terminal (nothing was piped in: reading it would wait forever)
 * or was read already by another `-` of the same command.
 *
 * @example
 * const dataPath = await inputFile(requireString(values, 'data'), io, 'data');
 */
export async function inputFile(path: string, io: CliIO, option: string): Promise<string> {
  if (path !== '-') return path;
  if (taken !== undefined) throw new UsageError(`${shown(option)} -: stdin is read once, and ${shown(taken)} reads it already; give a file for one of them`);
  const stdin = io.stdin ?? process.stdin;
  if ((stdin as { isTTY?: boolean }).isTTY === true) throw new UsageError(`${shown(option)} - reads stdin, but stdin is a terminal: pipe the data in (cat train.csv | dsgkit …) or give a file`);
  taken = option;
  // stdin is copied to a file (its format is sniffed, and Arrow is read by random access): a temporary folder that
  // cannot hold it is said with the folder and the way out, not as an internal error.
  const cannotCopy = (err: unknown) =>
    new DataError(`cannot copy standard input to a temporary file in '${tmpdir()}' (${(err as NodeJS.ErrnoException).code ?? String(err)}): set TMPDIR to a writable folder with room for the input, or give a file instead of -`, { file: 'stdin' }, { cause: err });
  const dir = await mkdtemp(join(tmpdir(), 'dsgkit-stdin-')).catch((err: unknown) => {
    throw cannotCopy(err);
  });
  copies.add(dir);
  const raw = join(dir, 'stdin');
  const copy = createWriteStream(raw);
  let writeFailed = false;
  copy.on('error', () => (writeFailed = true));
  await pipeline(stdin, copy).catch((err: unknown) => {
    throw writeFailed ? cannotCopy(err) : new DataError(`cannot read standard input (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { file: 'stdin' }, { cause: err });
  });
  const fh = await open(raw, 'r');
  let head: Uint8Array;
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(4096), 0, 4096, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  if (head.length === 0) throw new DataError('empty input (nothing was piped in)', { file: 'stdin' });
  const path2 = `${raw}${extensionFor(head)}`;
  await rename(raw, path2);
  return path2;
}

/**
 * Training data given as `-`: an Arrow IPC stream is handed on as it comes
 * (an async iterable of its bytes, `path` 'stdin', for a reservoir sample of
 * unknown length); any other input (CSV, LIBSVM, an Arrow file) is copied to
 * a temporary file like {@link inputFile} does, and its path returned.
 *
 * @example
 * const data = dataPath === '-' ? await trainingInput(io, 'data') : dataPath;
 */
export async function trainingInput(io: CliIO, option: string): Promise<string | (AsyncIterable<Uint8Array> & { path: string })> {
  if (taken !== undefined) throw new UsageError(`${shown(option)} -: stdin is read once, and ${shown(taken)} reads it already; give a file for one of them`);
  const stdin = io.stdin ?? process.stdin;
  if ((stdin as { isTTY?: boolean }).isTTY === true) throw new UsageError(`${shown(option)} - reads stdin, but stdin is a terminal: pipe the data in (cat train.arrows | dsgkit …) or give a file`);
  const it = (stdin as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) throw new DataError('empty input (nothing was piped in)', { file: 'stdin' });
  const head = Buffer.from(first.value);
  const bytes = (async function* () {
    yield head;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield Buffer.from(next.value);
    }
  })();
  if (extensionFor(head) === '.arrows') {
    taken = option;
    return Object.assign(bytes, { path: 'stdin' });
  }
  return inputFile('-', { ...io, stdin: Readable.from(bytes) }, option);
}

/**
 * For training: a temporary copy of stdin read into a Dataset whose source is
 * `stdin` (so a model file records 'stdin', never the random temporary path,
 * and the same piped data gives the same model bytes); any other path as it is.
 *
 * @example
 * const data = await stdinDataset(await inputFile(given, io, 'data'), { labelColumn: 'y' });
 */
export async function stdinDataset(path: string, read: ReadDatasetOptions): Promise<string | Dataset> {
  if (![...copies].some((dir) => path.startsWith(dir + sep))) return path;
  return { ...(await readDataset(path, read)), source: 'stdin' };
}

/**
 * `text` with every temporary copy of stdin named `stdin` instead (for
 * messages and results that quote the input's path).
 *
 * @example
 * io.stderr.write(`dsgkit: ${asStdin(err.message)}\n`);
 */
export function asStdin(text: string): string {
  let out = text;
  for (const dir of copies) {
    const base = join(dir, 'stdin').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`${base}(\\.(arrows?|csv|jsonl|libsvm))?`, 'g'), 'stdin');
  }
  return out;
}

/**
 * Removes every temporary copy of stdin (synchronously: safe in a signal
 * handler) and lets a later command read stdin again.
 *
 * @example
 * try { return await command.run(argv, io); } finally { removeStdinCopies(); }
 */
export function removeStdinCopies(): void {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  copies.clear();
  taken = undefined;
}
