import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrowBytesToDataset, readArrow } from '../src/data/arrow.ts';
import { DataError } from '../src/errors.ts';
import { fuzz, fuzzTargets, scratch, type FuzzTarget } from './fuzz/targets.ts';

// A few hundred cases per reader inside `npm test` (a few seconds in all);
// `npm run fuzz` runs the long campaign (≥ 100,000 cases per reader).
const RUNS = 150;

let targets: FuzzTarget[];
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const s = await scratch();
  cleanup = s.cleanup;
  targets = await fuzzTargets(s.dir);
});
afterAll(async () => {
  await cleanup();
});

describe('fuzzing: random bytes and mutated valid files give a result or a typed error naming the file', () => {
  for (const name of ['arrow (bytes)', 'arrow (file)', 'csv (text)', 'csv (file)', 'libsvm (text)', 'libsvm (file)', 'model loader', 'model header (forged, checksummed)', 'arrow (file changed while read)']) {
    it(name, async () => {
      const target = targets.find((t) => t.name === name)!;
      const r = await fuzz(target, RUNS);
      expect(r.failure?.problem).toBeUndefined();
      expect(r.runs).toBe(RUNS);
    });
  }
});

describe('inputs the fuzzer found', () => {
  it('a file-format footer whose record-batch block points at the schema message is a DataError (apache-arrow alone loops forever)', async () => {
    const path = new URL('./fixtures/fuzz/footer-block-is-schema.arrow', import.meta.url).pathname;
    const bytes = await readFile(path);
    expect(() => arrowBytesToDataset(bytes, 'found.arrow')).toThrow(DataError);
    expect(() => arrowBytesToDataset(bytes, 'found.arrow')).toThrow(/^found\.arrow: not a readable Arrow IPC file/);
    await expect(readArrow(path)).rejects.toThrow(DataError);
  });

  it("a record batch whose int64 length is past 2^53 is a DataError (apache-arrow's lazy header decode threw a TypeError)", async () => {
    const path = new URL('./fixtures/fuzz/unsafe-int64-in-batch.arrow', import.meta.url).pathname;
    const bytes = await readFile(path);
    const problem = /: not a readable Arrow IPC file \(corrupt or truncated\): the record batch at byte 8: 9570149208162316 is not safe to convert to a number\.$/;
    expect(() => arrowBytesToDataset(bytes, 'found.arrow')).toThrow(DataError);
    expect(() => arrowBytesToDataset(bytes, 'found.arrow')).toThrow(problem);
    await expect(readArrow(path)).rejects.toThrow(DataError);
    await expect(readArrow(path)).rejects.toThrow(problem);
  });
});
