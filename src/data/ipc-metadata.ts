/**
 * A bounded check of Arrow IPC metadata — the flatbuffer of a message or of a
 * file's footer — run before apache-arrow decodes it.
 *
 * apache-arrow reads flatbuffers with the `flatbuffers` package's
 * `ByteBuffer`, which does no bounds checking: a read past the end of the
 * buffer gives 0 instead of failing. So a vector whose length word is
 * corrupt is read as that many entries: a schema whose `fields` vector claims
 * 402,653,188 entries in a 290-byte message (found by fuzzing) makes
 * apache-arrow build 402 million `Field`s until V8 runs out of heap and
 * aborts the process. Children vectors that point back at a field recurse
 * without end, and tables or strings reached many times over multiply the
 * work.
 *
 * This check walks the same objects apache-arrow's decoder reaches (Arrow's
 * Message.fbs, Schema.fbs and File.fbs, as apache-arrow's `fb/` classes read
 * them), using the same `ByteBuffer` reads, and requires of each what the
 * reference implementation's verifier (Arrow C++ `VerifyFlatbuffers`, a
 * flatbuffers `Verifier`) requires: every table, vtable, vector and string
 * lies inside the buffer, offsets point forward, strings are terminated,
 * nesting is at most {@link MAX_DEPTH} tables deep. Instead of C++'s table
 * count limit (8 × buffer size) the objects reached are charged their bytes
 * against the buffer's size: a buffer in which no object is reached twice
 * passes, and the decoder's work is then linear in the metadata's size.
 * Scalars are not checked: apache-arrow's reads of them cannot allocate, and
 * their values are checked where they are used.
 */
import { ByteBuffer } from 'flatbuffers';
import { MessageHeader } from 'apache-arrow/fb/message-header';
import { Type } from 'apache-arrow/fb/type';

/** Tables nested deeper than this are refused (as Arrow C++ does). */
export const MAX_DEPTH = 128;

/**
 * What {@link checkMessageMetadata} and {@link checkFooterMetadata} throw: the metadata is malformed; the message says where.
 *
 * @example
 * try { checkFooterMetadata(footer); } catch (e) { if (e instanceof MalformedMetadata) console.error(`bad Arrow file: ${e.message}`); }
 */
export class MalformedMetadata extends Error {
  override name = 'MalformedMetadata';
}

// Field slots (vtable offsets) of the tables apache-arrow decodes: 4 + 2 × the field's index in the .fbs.
const MESSAGE = { headerType: 6, header: 8, customMetadata: 12 } as const;
const SCHEMA = { fields: 6, customMetadata: 8, features: 10 } as const;
const FIELD = { name: 4, typeType: 8, type: 10, dictionary: 12, children: 14, customMetadata: 16 } as const;
const KEY_VALUE = { key: 4, value: 6 } as const;
const DICTIONARY_ENCODING = { indexType: 6 } as const;
const TIMESTAMP = { timezone: 6 } as const;
const UNION = { typeIds: 6 } as const;
const RECORD_BATCH = { nodes: 6, buffers: 8, compression: 10, variadicBufferCounts: 12 } as const;
const DICTIONARY_BATCH = { data: 6 } as const;
const FOOTER = { schema: 6, dictionaries: 8, recordBatches: 10, customMetadata: 12 } as const;
const MESSAGE_VERSION = 4;
const FOOTER_VERSION = 4;

/** Bytes of the structs in vectors: FieldNode, Buffer (before metadata V4: 24 with its page id), Block. */
const FIELD_NODE_BYTES = 16;
const BUFFER_BYTES = 16;
const LEGACY_BUFFER_BYTES = 24;
const BLOCK_BYTES = 24;
/** MetadataVersion.V4: earlier Buffer structs carried a page id (apache-arrow skips it). */
const METADATA_V4 = 3;

/** One walk over one flatbuffer: the bytes still to be charged and the read helpers. */
class Walk {
  private readonly bb: ByteBuffer;
  private readonly size: number;
  private budget: number;

  constructor(bytes: Uint8Array) {
    this.bb = new ByteBuffer(bytes);
    this.size = bytes.byteLength;
    this.budget = bytes.byteLength;
  }

  fail(what: string): never {
    throw new MalformedMetadata(what);
  }

  private inside(pos: number, length: number, what: string): void {
    if (!(pos >= 0 && length >= 0 && pos + length <= this.size)) {
      this.fail(`${what} lies outside the ${this.size}-byte metadata (bytes ${pos}..${pos + length})`);
    }
  }

  private charge(bytes: number, what: string): void {
    this.budget -= bytes;
    if (this.budget < 0) this.fail(`${what}: the objects reached add up to more bytes than the ${this.size}-byte metadata holds (objects reached more than once)`);
  }

  /** The table the root offset points at. */
  root(): number {
    return this.target(0, 'the root offset');
  }

  /** Where the offset stored at `pos` points (forward, inside the buffer). */
  private target(pos: number, what: string): number {
    this.inside(pos, 4, what);
    const rel = this.bb.readInt32(pos);
    if (rel <= 0) this.fail(`${what} is not a forward offset (${rel})`);
    const at = pos + rel;
    this.inside(at, 1, `the object ${what} points at`);
    return at;
  }

  /** Checks the table at `pos` (its vtable and inline part in the buffer) and charges it. */
  table(pos: number, depth: number, what: string): void {
    if (depth > MAX_DEPTH) this.fail(`${what} is nested more than ${MAX_DEPTH} tables deep`);
    this.inside(pos, 4, what);
    const vtable = pos - this.bb.readInt32(pos);
    this.inside(vtable, 4, `the vtable of ${what}`);
    const vtableSize = this.bb.readInt16(vtable);
    const objectSize = this.bb.readInt16(vtable + 2);
    if (vtableSize < 4 || vtableSize % 2 !== 0) this.fail(`the vtable of ${what} has an impossible size ${vtableSize}`);
    this.inside(vtable, vtableSize, `the vtable of ${what}`);
    if (objectSize < 4) this.fail(`${what} has an impossible size ${objectSize}`);
    this.inside(pos, objectSize, what);
    this.charge(4, what);
  }

  /** Position of the field at vtable offset `slot` of the table at `pos`, or 0 when absent. */
  private field(pos: number, slot: number, size: number, what: string): number {
    const o = this.bb.__offset(pos, slot);
    if (o === 0) return 0;
    if (o < 4) this.fail(`${what} has an impossible field offset ${o}`);
    this.inside(pos + o, size, what);
    return pos + o;
  }

  /** The byte (type tag) at `slot`, 0 when absent. */
  ubyte(pos: number, slot: number, what: string): number {
    const at = this.field(pos, slot, 1, what);
    return at === 0 ? 0 : this.bb.readUint8(at);
  }

  /** Scalar at `slot` read as apache-arrow reads a short (metadata version), 0 when absent. */
  short(pos: number, slot: number, what: string): number {
    const at = this.field(pos, slot, 2, what);
    return at === 0 ? 0 : this.bb.readInt16(at);
  }

  /** The table the offset field at `slot` points at, or 0 when absent. */
  ref(pos: number, slot: number, what: string): number {
    const at = this.field(pos, slot, 4, what);
    return at === 0 ? 0 : this.target(at, what);
  }

  /** Start and length of the vector at `slot` (`elementBytes` each), checked and charged; null when absent. */
  vector(pos: number, slot: number, elementBytes: number, what: string): { start: number; length: number } | null {
    const at = this.ref(pos, slot, what);
    if (at === 0) return null;
    this.inside(at, 4, `the length of ${what}`);
    const length = this.bb.readInt32(at);
    if (length < 0) this.fail(`${what} has a negative length ${length}`);
    if (at + 4 + length * elementBytes > this.size) {
      this.fail(`${what} lists ${length} entries of ${elementBytes} bytes, more than the ${this.size}-byte metadata holds`);
    }
    this.charge(4 + length * elementBytes, what);
    return { start: at + 4, length };
  }

  /** Checks the string at `slot` (in the buffer, zero-terminated) and charges it. */
  string(pos: number, slot: number, what: string): void {
    const v = this.vector(pos, slot, 1, what);
    if (v === null) return;
    this.inside(v.start + v.length, 1, `the terminator of ${what}`);
    if (this.bb.readUint8(v.start + v.length) !== 0) this.fail(`${what} is not zero-terminated`);
  }

  /** Calls `each` on every table the vector of offsets at `slot` points at. */
  tables(pos: number, slot: number, what: string, each: (table: number, what: string) => void): void {
    const v = this.vector(pos, slot, 4, what);
    if (v === null) return;
    for (let i = 0; i < v.length; i++) each(this.target(v.start + 4 * i, `${what}[${i}]`), `${what}[${i}]`);
  }

  keyValues(pos: number, slot: number, depth: number, what: string): void {
    this.tables(pos, slot, what, (kv, where) => {
      this.table(kv, depth + 1, where);
      this.string(kv, KEY_VALUE.key, `${where}.key`);
      this.string(kv, KEY_VALUE.value, `${where}.value`);
    });
  }

  schema(pos: number, depth: number, what: string): void {
    this.table(pos, depth, what);
    this.tables(pos, SCHEMA.fields, `${what}.fields`, (f, where) => this.fieldTable(f, depth + 1, where));
    this.keyValues(pos, SCHEMA.customMetadata, depth, `${what}.custom_metadata`);
    this.vector(pos, SCHEMA.features, 8, `${what}.features`);
  }

  private fieldTable(pos: number, depth: number, what: string): void {
    this.table(pos, depth, what);
    this.string(pos, FIELD.name, `${what}.name`);
    const typeType = this.ubyte(pos, FIELD.typeType, `${what}.type_type`);
    const type = this.ref(pos, FIELD.type, `${what}.type`);
    if (type !== 0) {
      const where = `${what}.type(${Type[typeType] ?? typeType})`;
      this.table(type, depth + 1, where);
      if (typeType === Type.Timestamp) this.string(type, TIMESTAMP.timezone, `${where}.timezone`);
      if (typeType === Type.Union) this.vector(type, UNION.typeIds, 4, `${where}.typeIds`);
    }
    const dictionary = this.ref(pos, FIELD.dictionary, `${what}.dictionary`);
    if (dictionary !== 0) {
      this.table(dictionary, depth + 1, `${what}.dictionary`);
      const indexType = this.ref(dictionary, DICTIONARY_ENCODING.indexType, `${what}.dictionary.indexType`);
      if (indexType !== 0) this.table(indexType, depth + 2, `${what}.dictionary.indexType`);
    }
    this.tables(pos, FIELD.children, `${what}.children`, (child, where) => this.fieldTable(child, depth + 1, where));
    this.keyValues(pos, FIELD.customMetadata, depth, `${what}.custom_metadata`);
  }

  recordBatch(pos: number, depth: number, version: number, what: string): void {
    this.table(pos, depth, what);
    this.vector(pos, RECORD_BATCH.nodes, FIELD_NODE_BYTES, `${what}.nodes`);
    this.vector(pos, RECORD_BATCH.buffers, version < METADATA_V4 ? LEGACY_BUFFER_BYTES : BUFFER_BYTES, `${what}.buffers`);
    const compression = this.ref(pos, RECORD_BATCH.compression, `${what}.compression`);
    if (compression !== 0) this.table(compression, depth + 1, `${what}.compression`);
    this.vector(pos, RECORD_BATCH.variadicBufferCounts, 8, `${what}.variadicBufferCounts`);
  }
}

/**
 * Checks the metadata flatbuffer of one IPC message (what follows the
 * continuation marker and length) before apache-arrow's `Message.decode`
 * reads it. Throws {@link MalformedMetadata} naming the first problem.
 *
 * @example
 * checkMessageMetadata(bytes.subarray(8, 8 + metadataLength)); // throws MalformedMetadata if corrupt
 */
export function checkMessageMetadata(metadata: Uint8Array): void {
  const w = new Walk(metadata);
  const message = w.root();
  w.table(message, 1, 'Message');
  const version = w.short(message, MESSAGE_VERSION, 'Message.version');
  w.keyValues(message, MESSAGE.customMetadata, 1, 'Message.custom_metadata');
  const headerType = w.ubyte(message, MESSAGE.headerType, 'Message.header_type');
  const header = w.ref(message, MESSAGE.header, 'Message.header');
  const what = `Message.header(${MessageHeader[headerType] ?? headerType})`;
  if (headerType !== MessageHeader.Schema && headerType !== MessageHeader.RecordBatch && headerType !== MessageHeader.DictionaryBatch) {
    w.fail(`${what} is not a schema, record batch or dictionary batch`);
  }
  if (header === 0) w.fail(`${what} is missing`);
  if (headerType === MessageHeader.Schema) w.schema(header, 2, what);
  else if (headerType === MessageHeader.RecordBatch) w.recordBatch(header, 2, version, what);
  else {
    w.table(header, 2, what);
    const data = w.ref(header, DICTIONARY_BATCH.data, `${what}.data`);
    if (data === 0) w.fail(`${what}.data is missing`);
    w.recordBatch(data, 3, version, `${what}.data`);
  }
}

/**
 * Checks the footer flatbuffer of an IPC file (between the last message and
 * the footer length) before apache-arrow's file reader decodes it. Throws
 * {@link MalformedMetadata} naming the first problem.
 *
 * @example
 * checkFooterMetadata(bytes.subarray(footerStart, bytes.length - 10)); // throws MalformedMetadata if corrupt
 */
export function checkFooterMetadata(footer: Uint8Array): void {
  const w = new Walk(footer);
  const root = w.root();
  w.table(root, 1, 'Footer');
  w.short(root, FOOTER_VERSION, 'Footer.version');
  const schema = w.ref(root, FOOTER.schema, 'Footer.schema');
  if (schema === 0) w.fail('Footer.schema is missing');
  w.schema(schema, 2, 'Footer.schema');
  w.vector(root, FOOTER.dictionaries, BLOCK_BYTES, 'Footer.dictionaries');
  w.vector(root, FOOTER.recordBatches, BLOCK_BYTES, 'Footer.recordBatches');
  w.keyValues(root, FOOTER.customMetadata, 1, 'Footer.custom_metadata');
}
