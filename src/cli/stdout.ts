/**
 * Results streamed to stdout (`--out -`): chunk by chunk with back-pressure
 * (the next chunk is made only once the pipe took the last), and a reader
 * that went away — `dsgkit predict … --out - | head` — ends the output
 * quietly instead of failing: the command stops producing and exits 0.
 */
import { outputIncomplete, type Sink } from './io.ts';

/** A Node stream's event methods, when the sink has them. */
interface Emitter {
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  writableLength?: number;
  destroyed?: boolean;
}

const isEmitter = (x: unknown): x is Emitter => x !== null && typeof x === 'object' && typeof (x as Emitter).on === 'function' && typeof (x as Emitter).removeListener === 'function';

/**
 * Writes `chunks` to `sink` in order and resolves to `'done'`, or to
 * `'closed'` as soon as the reader has closed the pipe (EPIPE): then the rest
 * is not produced (the chunk generator is returned, ending its work). Other
 * write errors (a full disk) reject with a DataError naming stdout.
 *
 * @example
 * if ((await writeChunks(io.stdout, outputChunks(batches, 'csv'))) === 'closed') return 0;
 */
export async function writeChunks(sink: Sink, chunks: AsyncIterable<string | Uint8Array>): Promise<'done' | 'closed'> {
  const target = ((sink as { raw?: Sink }).raw ?? sink) as Sink;
  const events = isEmitter(target) ? target : undefined;
  let closed = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') closed = true;
    else failure = err;
    wake?.();
  };
  const onDrain = () => wake?.();
  events?.on('error', onError);
  events?.on('drain', onDrain);
  try {
    for await (const chunk of chunks) {
      if (closed || events?.destroyed === true) return 'closed';
      if (failure) throw outputIncomplete(failure);
      const ok = target.write(chunk);
      if (ok === false && events) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      if (failure) throw outputIncomplete(failure);
      if (closed) return 'closed';
    }
    return 'done';
  } finally {
    events?.removeListener('error', onError);
    events?.removeListener('drain', onDrain);
  }
}
