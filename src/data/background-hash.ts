/**
 * SHA-256 computed on a thread of its own: `update` copies the bytes into one
 * of a few reused buffers and hands it to the hashing thread, so a pass over
 * a file reads and scales its next block while the last one is hashed. The
 * digest is the one `createHash('sha256')` gives for the same bytes in the
 * same order.
 *
 * Why: the second pass of a sample on read fingerprints every scaled row
 * (data/fingerprint.ts); on a 6.2 GB file SHA-256 alone is about 5 s of one
 * core (1.2 GB/s with the SHA extensions), as long as the rest of the pass.
 *
 * Memory: at most `buffers` × `bufferBytes` in flight; `update` waits for a
 * buffer to come back when all are out, so a slow hash slows the reader
 * instead of queueing the file.
 *
 * @example
 * const h = new BackgroundHash();
 * try {
 *   for await (const b of rows) await h.update(bytesOf(b.X));
 *   const hex = await h.digest();
 * } finally {
 *   await h.close();
 * }
 */
import { Worker } from 'node:worker_threads';

/** The hashing thread: hashes each buffer it gets, sends it back empty-handed (transferred), and the digest when asked. */
const HASHER = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hash = createHash('sha256');
parentPort.on('message', (m) => {
  if (m.buffer !== undefined) {
    hash.update(new Uint8Array(m.buffer, 0, m.length));
    parentPort.postMessage({ buffer: m.buffer }, [m.buffer]);
  } else parentPort.postMessage({ digest: hash.digest('hex') });
});
`;

/** A promise's two ends. */
interface Waiter<T> {
  resolve(value: T): void;
  reject(e: Error): void;
}

export class BackgroundHash {
  private readonly worker: Worker;
  private readonly free: ArrayBuffer[] = [];
  /** Updates waiting for a buffer to come back, in order. */
  private readonly waiting: Array<Waiter<ArrayBuffer>> = [];
  /** Buffers made so far (at most `buffers`). */
  private made = 0;
  private failure: Error | undefined;
  private digestWaiter: Waiter<string> | undefined;

  /**
   * @param bufferBytes bytes a buffer holds (a larger `update` is sent in pieces)
   * @param buffers buffers in flight at most
   */
  constructor(
    private readonly bufferBytes = 4 << 20,
    private readonly buffers = 3,
  ) {
    this.worker = new Worker(HASHER, { eval: true });
    this.worker.on('message', (m: { buffer?: ArrayBuffer; digest?: string }) => {
      if (m.buffer !== undefined) this.giveBack(m.buffer);
      else if (m.digest !== undefined) this.digestWaiter?.resolve(m.digest);
    });
    // Whoever waits on the thread learns why it stopped; later calls reject with the same error.
    const fail = (e: Error) => {
      this.failure ??= e;
      for (const w of this.waiting.splice(0)) w.reject(this.failure);
      this.digestWaiter?.reject(this.failure);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the hashing thread stopped (exit code ${code})`)));
  }

  /** Hands `bytes` to the hashing thread (copied: the caller may overwrite them once this resolves). */
  async update(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length; at += this.bufferBytes) {
      const piece = bytes.subarray(at, Math.min(bytes.length, at + this.bufferBytes));
      const buffer = await this.take();
      new Uint8Array(buffer, 0, piece.length).set(piece);
      this.worker.postMessage({ buffer, length: piece.length }, [buffer]);
    }
  }

  /** The hex digest of every byte given so far (once; then {@link close}). */
  digest(): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.digestWaiter = { resolve, reject };
      this.worker.postMessage({});
    });
  }

  /** Stops the hashing thread. */
  async close(): Promise<void> {
    // The thread's exit after terminate() is no failure to report.
    this.digestWaiter = undefined;
    this.failure ??= new Error('the hashing thread was closed');
    await this.worker.terminate();
  }

  private take(): Promise<ArrayBuffer> {
    if (this.failure) return Promise.reject(this.failure);
    const ready = this.free.pop();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.made < this.buffers) {
      this.made++;
      return Promise.resolve(new ArrayBuffer(this.bufferBytes));
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private giveBack(buffer: ArrayBuffer): void {
    const next = this.waiting.shift();
    if (next !== undefined) next.resolve(buffer);
    else this.free.push(buffer);
  }
}
