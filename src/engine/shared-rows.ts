/**
 * The training rows a support-vector history refers to: the (scaled) feature
 * matrix `X`, `n × d` row-major, in ONE shared memory — a shared
 * `WebAssembly.Memory`, whose `buffer` is a `SharedArrayBuffer`. Every thread's
 * exact-kernel instance imports that memory and reads the rows in place; an
 * evaluation call sends only the handle, and nothing copies the rows per call.
 * (The same memory holds each thread's small scratch region past the rows:
 * see sv-kernel.ts.)
 *
 * Layout: the first 64 KiB belong to the kernel module's static data; at
 * {@link ROWS_AT}: `[n, d, id, 0]` (Float64), then `n·d` Float64 values.
 */
import { randomBytes } from 'node:crypto';
import { sharedMemory, type WasmMemory } from './wasm-host.ts';
import { sameBits } from './row-views.ts';

/** Byte offset of the rows header in the memory (page 1; page 0 is the module's). */
export const ROWS_AT = 65536;
const HEADER = 4;

/** A 52-bit random id: tells one rows memory from another after it crossed to a worker (objects do not keep identity). */
function newId(): number {
  const b = randomBytes(8);
  return (b.readUInt32LE(0) & 0xfffff) * 2 ** 32 + b.readUInt32LE(4) + 1;
}

/** The copy {@link SharedRows.of} made of each array (kept while the array lives). */
const copies = new WeakMap<Float64Array, SharedRows>();

/**
 * Rows of a feature matrix in shared memory.
 *
 * @example
 * const rows = SharedRows.from(ds.X, ds.n, ds.d); // one copy into shared memory
 * rows.row(3);                                   // a view of row 3 (d values)
 */
export class SharedRows {
  /** The shared memory (send this to a thread: `new SharedRows({ memory })` maps it there). */
  readonly memory: WasmMemory;
  /** Number of rows. */
  readonly n: number;
  /** Values per row. */
  readonly d: number;
  /** Identifies this matrix across threads. */
  readonly id: number;
  /** Byte offset of row 0 in {@link memory}. */
  readonly offset = ROWS_AT + 8 * HEADER;
  /** The matrix, `n × d` row-major (a view of the memory; write it before sharing it with workers). */
  readonly X: Float64Array;

  /** Maps an existing memory (a worker, given the handle) or allocates `n × d` zeros. */
  constructor(opts: { n: number; d: number } | { memory: WasmMemory }) {
    if ('memory' in opts) {
      this.memory = opts.memory;
      const head = new Float64Array(this.memory.buffer, ROWS_AT, HEADER);
      [this.n, this.d, this.id] = [head[0], head[1], head[2]];
      if (!(this.d >= 1) || this.id === 0) throw new RangeError('shared memory holds no training rows');
    } else {
      const { n, d } = opts;
      if (!Number.isInteger(n) || n < 0) throw new RangeError(`rows: n must be a non-negative integer, got ${n}`);
      if (!Number.isInteger(d) || d < 1) throw new RangeError(`rows: d must be a positive integer, got ${d}`);
      this.memory = sharedMemory(this.offset + 8 * n * d);
      this.n = n;
      this.d = d;
      this.id = newId();
      new Float64Array(this.memory.buffer, ROWS_AT, HEADER).set([n, d, this.id, 0]);
    }
    this.X = new Float64Array(this.memory.buffer, this.offset, this.n * this.d);
  }

  /**
   * Which rows a shared memory holds (its id), without mapping them.
   *
   * @example
   * if (SharedRows.idOf(task.rows) !== cached.id) cached = new SharedRows({ memory: task.rows });
   */
  static idOf(memory: WasmMemory): number {
    return new Float64Array(memory.buffer, ROWS_AT, HEADER)[2];
  }

  /**
   * Copies the first `n` rows of `X` (row-major, `d` per row) into shared memory.
   *
   * @example
   * const rows = SharedRows.from(X, 1000, 28);
   */
  static from(X: Float64Array, n: number, d: number): SharedRows {
    if (X.length < n * d) throw new RangeError(`rows: X holds ${X.length} values, need n*d = ${n * d}`);
    const rows = new SharedRows({ n, d });
    rows.X.set(X.subarray(0, n * d));
    return rows;
  }

  /**
   * The rows of `X` in shared memory, copied once: the copy made for this
   * same array before when it still holds its first `n` rows of `d` bit for
   * bit (compared, so a caller that rewrote `X` gets a new copy), else
   * {@link from}. `tune`'s fold fits of GKM and LapSVM train on one matrix;
   * a copy each, into memory the operating system zero-fills, was most of
   * their search on wide rows. The copy lives as long as `X` does.
   *
   * @example
   * const rows = SharedRows.of(ds.X, ds.n, ds.d); // the same SharedRows for every fit on ds.X
   */
  static of(X: Float64Array, n: number, d: number): SharedRows {
    const known = copies.get(X);
    if (known !== undefined && known.n === n && known.d === d && X.length >= n * d && sameBits(known.X, X.subarray(0, n * d))) return known;
    const rows = SharedRows.from(X, n, d);
    copies.set(X, rows);
    return rows;
  }

  /**
   * Row `i` as a view (no copy).
   *
   * @example
   * const x = rows.row(0);
   */
  row(i: number): Float64Array {
    if (!Number.isInteger(i) || i < 0 || i >= this.n) throw new RangeError(`rows: row ${i} is not in [0, ${this.n})`);
    return this.X.subarray(i * this.d, (i + 1) * this.d);
  }
}
