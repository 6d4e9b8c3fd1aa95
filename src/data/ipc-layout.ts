/**
 * Where things lie in an Arrow IPC file, found without reading the data:
 * the framing (which flavour, and whether the file is whole) from the first
 * and last few bytes, and the row count of every record batch from the
 * message headers alone. {@link readArrow} uses these to check a file and
 * size its arrays before streaming the batches, so a file is never held in
 * memory whole. On the way every message's metadata and the file footer are
 * checked (`ipc-metadata.ts`) before apache-arrow decodes them: its decoder
 * trusts the vector lengths it reads, and a corrupt one can exhaust the heap.
 *
 * Layouts (Arrow columnar format, "IPC Streaming/File Format"):
 * - stream: messages, each `0xFFFFFFFF`, int32 metadata length, metadata
 *   flatbuffer (padded), body; closed by `0xFFFFFFFF 0x00000000`. Pre-1.0
 *   ("legacy") streams omit the `0xFFFFFFFF` and close with `0x00000000`.
 * - file: `ARROW1` + 2 padding bytes, a stream, the footer flatbuffer, int32
 *   footer length, `ARROW1`. The footer lists each record batch's block
 *   (offset, metadata length, body length).
 */
import type { FileHandle } from 'node:fs/promises';
import { Message } from 'apache-arrow';
import type { Block } from 'apache-arrow/fb/block';
import { Footer } from 'apache-arrow/fb/footer';
import { ByteBuffer } from 'flatbuffers';
import { DataError } from '../errors.ts';
import { checkFooterMetadata, checkMessageMetadata } from './ipc-metadata.ts';

/** Which IPC flavour a file holds. */
export type ArrowFormat = 'file' | 'stream';

/** One record batch's place in a file, as the file format's footer lists it. */
export interface IpcBlock {
  /** Byte offset of the message (its continuation marker or length prefix). */
  readonly offset: number;
  /** Bytes of prefix + metadata flatbuffer + padding. */
  readonly metaDataLength: number;
  /** Bytes of the message body that follows the metadata. */
  readonly bodyLength: number;
}

const MAGIC = Buffer.from('ARROW1');
const CONTINUATION = 0xffffffff;
/** Bytes of the file's start that {@link ipcFraming} looks at. */
export const FRAMING_HEAD = 8;
/** Bytes of the file's end that {@link ipcFraming} looks at. */
export const FRAMING_TAIL = 10;

/**
 * The IPC flavour of a file of `size` bytes, judged from its first
 * `min(size, FRAMING_HEAD)` bytes (`head`) and last `min(size, FRAMING_TAIL)`
 * bytes (`tail`). Throws a {@link DataError} naming `file` if it is empty,
 * not Arrow at all, or cut short (a file without its footer and closing
 * `ARROW1`; a stream without its end-of-stream marker).
 *
 * @example
 * const bytes = await readFile('train.arrows');
 * ipcFraming(bytes.length, bytes.subarray(0, 8), bytes.subarray(-10), 'train.arrows'); // 'stream'
 */
export function ipcFraming(size: number, head: Uint8Array, tail: Uint8Array, file: string): ArrowFormat {
  const h = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const t = Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength);
  /** Byte at absolute position `pos` of the last `t.length` bytes. */
  const at = (pos: number): number => pos - (size - t.length);
  if (size === 0) throw new DataError('file is empty; expected Arrow IPC data', { file });
  if (size >= 6 && h.subarray(0, 6).equals(MAGIC)) {
    // File format: magic(6) pad(2) … footer, int32 footer length, magic(6).
    const closed = size >= 8 + 4 + 6 && t.subarray(at(size - 6)).equals(MAGIC);
    const footerLength = closed ? t.readInt32LE(at(size - 10)) : -1;
    if (!closed || footerLength <= 0 || footerLength > size - 8 - 10) {
      throw new DataError('Arrow file is truncated: it does not end with a valid footer and the closing ARROW1 marker', { file });
    }
    return 'file';
  }
  if (size < 8) throw new DataError('not Arrow IPC data (file or stream): too short to hold a message', { file });
  const first = h.readUInt32LE(0);
  if (first === CONTINUATION) {
    if (t.readUInt32LE(at(size - 8)) !== CONTINUATION || t.readUInt32LE(at(size - 4)) !== 0) {
      throw new DataError('Arrow stream is truncated: it does not end with the end-of-stream marker', { file });
    }
    return 'stream';
  }
  // Pre-1.0 ("legacy") streams start with the metadata length and end with a zero length.
  if (first > 0 && first < size && t.readUInt32LE(at(size - 4)) === 0) return 'stream';
  if (first > 0 && first < size) throw new DataError('Arrow stream is truncated: it does not end with the end-of-stream marker', { file });
  throw new DataError('not Arrow IPC data: it starts neither with the ARROW1 magic nor with a stream message', { file });
}

/**
 * {@link ipcFraming} of an open file: reads only its first and last few bytes.
 * Returns the flavour, the file's size and where its messages end (the
 * footer's start for the file format, the size for a stream).
 *
 * @example
 * const fh = await open('big.arrow');
 * await ipcFramingOfHandle(fh, 'big.arrow'); // { format: 'file', size: 336286034, dataEnd: 336283962 }
 */
export async function ipcFramingOfHandle(fh: FileHandle, file: string): Promise<{ format: ArrowFormat; size: number; dataEnd: number }> {
  const { size } = await fh.stat();
  const head = await readExactly(fh, 0, Math.min(size, FRAMING_HEAD));
  const tail = await readExactly(fh, Math.max(0, size - FRAMING_TAIL), Math.min(size, FRAMING_TAIL));
  const format = ipcFraming(size, head, tail, file);
  return { format, size, dataEnd: dataEndOf(format, size, tail) };
}

/** Where the messages of a file of `size` bytes whose last bytes are `tail` end: the footer's start (file format) or the end (stream). */
function dataEndOf(format: ArrowFormat, size: number, tail: Uint8Array): number {
  // For the file format ipcFraming has checked the footer length (tail bytes 0..4) is in range.
  return format === 'file' ? size - FRAMING_TAIL - Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength).readInt32LE(0) : size;
}

function corrupt(file: string, what: string): DataError {
  return new DataError(`not a readable Arrow IPC file (corrupt or truncated): ${what}`, { file });
}

async function readExactly(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buf : buf.subarray(0, done);
}

/** A read the layout walk asks for: `length` bytes at byte `at` (the reply may be shorter at the end of the data). */
interface Read {
  readonly at: number;
  readonly length: number;
}

/**
 * A walk over an IPC file's messages, written once for both sources: it
 * yields the {@link Read}s it needs and is handed the bytes, from memory
 * ({@link ipcLayout}) or from an open file ({@link ipcLayoutOfHandle}).
 */
type Walk<T> = Generator<Read, T, Uint8Array>;

function* read(at: number, length: number): Walk<Buffer> {
  const bytes = yield { at, length };
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Decodes the message whose prefix starts at `offset` (continuation marker or
 * legacy length), after checking its metadata flatbuffer
 * ({@link checkMessageMetadata}). At an end-of-stream marker returns where
 * the marker ends (`eosEnd`), else the decoded metadata and where its body starts.
 */
function* messageAt(offset: number, end: number, file: string): Walk<{ message: Message; bodyStart: number } | { eosEnd: number }> {
  if (offset + 4 > end) throw corrupt(file, `the message at byte ${offset} runs past the end of the data`);
  const prefix = yield* read(offset, Math.min(8, end - offset));
  let length = prefix.readInt32LE(0);
  let headerLength = 4;
  if (length === -1) {
    if (prefix.length < 8) throw corrupt(file, `the message at byte ${offset} runs past the end of the data`);
    length = prefix.readInt32LE(4);
    headerLength = 8;
  }
  if (length === 0) return { eosEnd: offset + headerLength };
  const metaStart = offset + headerLength;
  if (length < 0 || metaStart + length > end) throw corrupt(file, `the message at byte ${offset} has an impossible metadata length ${length}`);
  const metadata = yield* read(metaStart, length);
  let message: Message;
  try {
    checkMessageMetadata(metadata);
    message = Message.decode(metadata);
  } catch (err) {
    throw new DataError(`not a readable Arrow IPC file (corrupt or truncated): the message at byte ${offset}: ${(err as Error).message}`, { file }, { cause: err });
  }
  const bodyStart = metaStart + length;
  if (!Number.isSafeInteger(message.bodyLength) || message.bodyLength < 0 || bodyStart + message.bodyLength > end) {
    throw corrupt(file, `the message at byte ${offset} has a body of ${message.bodyLength} bytes, past the end of the data`);
  }
  return { message, bodyStart };
}

function batchRows(message: Message, offset: number, file: string): number {
  let header: { length: number } | null;
  try {
    // apache-arrow decodes the header here, lazily: an int64 length past 2^53 in its nodes or buffers throws a TypeError.
    header = message.header() as { length: number } | null;
  } catch (err) {
    throw corrupt(file, `the record batch at byte ${offset}: ${(err as Error).message}`);
  }
  const rows = header?.length;
  if (typeof rows !== 'number' || !Number.isSafeInteger(rows) || rows < 0) throw corrupt(file, `the record batch at byte ${offset} has no valid row count`);
  return rows;
}

/** Every message of a stream of `size` bytes up to its end-of-stream marker, checked; returns the record batches' row counts. */
function* streamLayout(size: number, file: string): Walk<number[]> {
  const rows: number[] = [];
  let offset = 0;
  for (;;) {
    const next = yield* messageAt(offset, size, file);
    if ('eosEnd' in next) {
      // Arrow's readers stop at the first marker: rows after it (two streams written one after
      // the other) would be dropped without a word.
      if (next.eosEnd < size) throw corrupt(file, `${size - next.eosEnd} bytes follow the end-of-stream marker at byte ${offset} (two streams one after the other?); a file holds one stream`);
      return rows;
    }
    const { message, bodyStart } = next;
    if (message.isRecordBatch()) rows.push(batchRows(message, offset, file));
    offset = bodyStart + message.bodyLength;
  }
}

/**
 * The footer of a file whose messages end at `dataEnd` (checked with
 * {@link checkFooterMetadata}) and every message its blocks point at
 * (dictionary batches, then record batches, each checked); returns the
 * record batches' row counts. A block outside the data, or one that does not
 * hold a message of its kind, is a {@link DataError}.
 */
function* fileLayout(size: number, dataEnd: number, file: string): Walk<{ rows: number[]; bodies: BatchBody[] }> {
  const bytes = yield* read(dataEnd, size - FRAMING_TAIL - dataEnd);
  try {
    checkFooterMetadata(bytes);
  } catch (err) {
    throw new DataError(`not a readable Arrow IPC file (corrupt or truncated): the footer: ${(err as Error).message}`, { file }, { cause: err });
  }
  const footer = Footer.getRootAsFooter(new ByteBuffer(bytes));
  const blocks = (count: number, at: (i: number) => Block | null): IpcBlock[] =>
    Array.from({ length: count }, (_, i) => {
      const b = at(i)!;
      return { offset: Number(b.offset()), metaDataLength: b.metaDataLength(), bodyLength: Number(b.bodyLength()) };
    });
  const kinds = [
    { name: 'dictionary batch', blocks: blocks(footer.dictionariesLength(), (i) => footer.dictionaries(i)), is: (m: Message) => m.isDictionaryBatch() },
    { name: 'record batch', blocks: blocks(footer.recordBatchesLength(), (i) => footer.recordBatches(i)), is: (m: Message) => m.isRecordBatch() },
  ];
  const rows: number[] = [];
  const bodies: BatchBody[] = [];
  for (const kind of kinds) {
    for (const { offset, metaDataLength, bodyLength } of kind.blocks) {
      if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(bodyLength) && offset >= 8 && metaDataLength > 0 && bodyLength >= 0 && offset + metaDataLength + bodyLength <= dataEnd)) {
        throw corrupt(file, `the footer lists a ${kind.name} at byte ${offset} outside the data`);
      }
      const next = yield* messageAt(offset, dataEnd, file);
      if ('eosEnd' in next || !kind.is(next.message)) throw corrupt(file, `the footer lists a ${kind.name} at byte ${offset}, but no ${kind.name} is there`);
      if (next.message.isRecordBatch()) {
        rows.push(batchRows(next.message, offset, file));
        bodies.push({ bodyStart: next.bodyStart, bodyLength: next.message.bodyLength, header: next.message.header() as BatchBody['header'] });
      }
    }
  }
  return { rows, bodies };
}

/** Where a record batch's body lies in a file, and its header's nodes and buffers (offsets in the body). */
export interface BatchBody {
  readonly bodyStart: number;
  readonly bodyLength: number;
  readonly header: {
    readonly length: number;
    readonly nodes: ReadonlyArray<{ readonly length: number; readonly nullCount: number }>;
    readonly buffers: ReadonlyArray<{ readonly offset: number; readonly length: number }>;
    readonly compression?: unknown;
  };
}

/** What {@link ipcLayout} finds: the flavour and the row count of every record batch, in order. */
export interface IpcLayout {
  readonly format: ArrowFormat;
  readonly rows: number[];
  /** The file format's record batch bodies, in order (the footer locates them); undefined for a stream. */
  readonly bodies?: readonly BatchBody[];
}

/**
 * Checks everything apache-arrow's reader will decode in IPC `bytes` before
 * it does: the framing ({@link ipcFraming}), then, for a stream, every
 * message up to the end-of-stream marker, for a file, the footer and every
 * message its blocks point at — each message's and the footer's flatbuffer
 * with {@link checkMessageMetadata} / {@link checkFooterMetadata}. Throws a
 * {@link DataError} naming `file` at the first problem; else returns the
 * flavour and the record batches' row counts (from the headers alone).
 *
 * @example
 * ipcLayout(await readFile('train.arrows'), 'train.arrows'); // { format: 'stream', rows: [12] }
 */
export function ipcLayout(bytes: Uint8Array, file: string): IpcLayout {
  const size = bytes.byteLength;
  const format = ipcFraming(size, bytes.subarray(0, Math.min(size, FRAMING_HEAD)), bytes.subarray(Math.max(0, size - FRAMING_TAIL)), file);
  const walk = format === 'stream' ? streamLayout(size, file) : fileLayout(size, dataEndOf(format, size, bytes.subarray(size - FRAMING_TAIL)), file);
  let step = walk.next();
  while (!step.done) step = walk.next(bytes.subarray(step.value.at, step.value.at + step.value.length));
  return Array.isArray(step.value) ? { format, rows: step.value } : { format, ...step.value };
}

/**
 * {@link ipcLayout} of an open file, framing first ({@link ipcFramingOfHandle}):
 * reads only the message prefixes and metadata, the footer and the last few
 * bytes, never the bodies.
 *
 * @example
 * const fh = await open('big.arrows');
 * await ipcLayoutOfHandle(fh, 'big.arrows'); // { format: 'stream', rows: [65536, 65536, …, 33920] }
 */
export async function ipcLayoutOfHandle(fh: FileHandle, file: string): Promise<IpcLayout> {
  const { format, size, dataEnd } = await ipcFramingOfHandle(fh, file);
  const walk = format === 'stream' ? streamLayout(size, file) : fileLayout(size, dataEnd, file);
  let step = walk.next();
  while (!step.done) step = walk.next(await readExactly(fh, step.value.at, step.value.length));
  return Array.isArray(step.value) ? { format, rows: step.value } : { format, ...step.value };
}
