/**
 * The second pass of a sample on read hashes its rows on a thread of its own
 * (data/background-hash.ts): the digest must be SHA-256 of the same bytes in
 * the same order, however they were cut, with a few buffers in flight.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BackgroundHash } from '../src/data/background-hash.ts';

describe('BackgroundHash', () => {
  it('gives the digest of createHash for pieces of any size, larger than its buffers and while every buffer is out', async () => {
    const bytes = randomBytes(100_003);
    const cuts = [0, 1, 17, 4_096, 4_097, 30_000, 77_777, 100_003];
    // Buffers of 1,000 bytes, 2 in flight: most updates wait for a buffer to come back.
    const h = new BackgroundHash(1_000, 2);
    try {
      for (let c = 1; c < cuts.length; c++) {
        const piece = Buffer.from(bytes.subarray(cuts[c - 1], cuts[c]));
        await h.update(piece);
        piece.fill(0); // the caller may reuse its bytes once update resolves
      }
      expect(await h.digest()).toBe(createHash('sha256').update(bytes).digest('hex'));
    } finally {
      await h.close();
    }
  });

  it('gives the digest of no bytes, and closes without a digest', async () => {
    const empty = new BackgroundHash();
    expect(await empty.digest()).toBe(createHash('sha256').digest('hex'));
    await empty.close();
    const unused = new BackgroundHash();
    await unused.update(new Uint8Array(10));
    await unused.close();
  });
});
