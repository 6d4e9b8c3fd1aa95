/**
 * Opening a text input (CSV, LIBSVM) so that nothing can hang the process.
 *
 * A regular file is read as usual. A named pipe (FIFO, also what a shell's
 * process substitution `<(zcat a.csv)` hands over) is allowed — text is read
 * once, front to back — but two things about pipes would otherwise make the
 * process deaf to Ctrl-C: opening a FIFO blocks until a writer opens it, and
 * a read blocks until the writer writes; both would run in one of libuv's
 * threads, and a process with such a thread cannot exit. So the open that
 * waits for a writer is registered, and {@link releaseBlockedOpens} (called
 * by the CLI's signal handler) ends it by opening the pipe's other end for a
 * moment; and once open, the pipe is read through the event loop (a
 * `net.Socket` over the descriptor, non-blocking), never through a blocking
 * read. Directories, sockets and other special files are refused with a
 * {@link DataError}.
 *
 * @example
 * const input = await openInputStream('big.csv');
 * for await (const chunk of input) console.log(chunk.length);
 */
import { closeSync, constants, createReadStream, fstat, open, openSync, close, stat, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import { Transform, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { DataError } from '../errors.ts';

const openFd = promisify(open);
const fstatFd = promisify(fstat);
const closeFd = promisify(close);
const statPath = promisify(stat);

/** FIFOs whose open is waiting for a writer. */
const blocked = new Set<string>();

/**
 * Lets every open that waits for a FIFO's writer return (by opening the
 * write end for an instant, without blocking), so the process can exit.
 * Synchronous: safe in a signal handler right before `process.exit`.
 *
 * @example
 * process.on('SIGINT', () => { releaseBlockedOpens(); process.exit(130); });
 */
export function releaseBlockedOpens(): void {
  for (const path of blocked) {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // the open finished meanwhile, or the FIFO is gone
    }
  }
  blocked.clear();
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isSocket()) return 'a socket';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * A readable stream of the bytes of `path` (a regular file, a FIFO, a
 * character device such as `/dev/stdin`); see the module comment. A missing
 * or unreadable file is a {@link DataError} naming it.
 *
 * @example
 * const lines = createInterface({ input: await openInputStream('a9a.t', 'utf8') });
 */
export async function openInputStream(path: string, encoding?: BufferEncoding): Promise<Readable> {
  // stat, not a probing open: opening a FIFO's read end, even for an instant, would let a waiting
  // writer in and, once closed again, lose what it wrote.
  let info: Stats;
  try {
    info = await statPath(path);
  } catch (err) {
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  if (info.isFIFO()) return openFifo(path, encoding);
  if (!info.isFile() && !info.isCharacterDevice()) throw new DataError(`is ${kindOf(info)}; give a text file (or a pipe)`, { file: path });
  let fd: number;
  try {
    // O_NONBLOCK: should the path have become a FIFO since the stat, this open still returns.
    fd = await openFd(path, constants.O_RDONLY | (info.isFile() ? constants.O_NONBLOCK : 0));
  } catch (err) {
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  const atOpen = await fstatFd(fd);
  if (atOpen.isFIFO()) {
    await closeFd(fd);
    throw new DataError('changed into a named pipe while being opened', { file: path });
  }
  if (!atOpen.isFile()) return createReadStream(path, { fd, ...(encoding ? { encoding } : {}) });
  // A regular file: at its end, the file must still be the one opened (not truncated, extended or rewritten meanwhile).
  // autoClose false: the descriptor stays open past the end for the check; `source.destroy()` below closes it (once).
  const source = createReadStream(path, { fd, autoClose: false, ...(encoding ? { encoding } : {}) });
  const checked = new Transform({
    objectMode: true,
    transform: (chunk, _enc, done) => done(null, chunk),
    flush: (done) => {
      fstat(fd, (err, now) => {
        if (err) return done(err);
        if (now.size !== atOpen.size || now.mtimeMs !== atOpen.mtimeMs || now.ctimeMs !== atOpen.ctimeMs) {
          return done(new DataError(`the file changed while it was being read (it had ${atOpen.size} bytes when opened, ${now.size} at the end): another program is writing it — read it again once it is complete`, { file: path }));
        }
        done();
      });
    },
  });
  source.on('error', (err) => checked.destroy(err));
  // Ended, failed or abandoned by the reader: stop reading and close the file.
  checked.on('close', () => source.destroy());
  return source.pipe(checked);
}

/** A FIFO, opened once a writer comes (a wait that {@link releaseBlockedOpens} can end) and read through the event loop. */
async function openFifo(path: string, encoding?: BufferEncoding): Promise<Readable> {
  blocked.add(path);
  let fd: number;
  try {
    fd = await openFd(path, constants.O_RDONLY);
  } catch (err) {
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
  } finally {
    blocked.delete(path);
  }
  const socket = new Socket({ fd, readable: true, writable: false });
  if (encoding) socket.setEncoding(encoding);
  return socket;
}
