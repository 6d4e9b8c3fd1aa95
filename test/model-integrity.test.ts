/**
 * Model files are checked before use: a checksum over header and payload, a
 * header validated against itself and the file size before anything is
 * allocated, no non-finite coefficient, and format-1 files still load with a warning.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load, train } from '../src/api.ts';
import { readDataset, splitDataset } from '../src/data/index.ts';
import { ModelError } from '../src/errors.ts';
import { Model } from '../src/model/model.ts';

const dir = mkdtempSync(join(tmpdir(), 'dsgkit-integrity-'));
const bc = await readDataset('data/breast_cancer.arrow');
const { train: tr, test: maybeTest } = splitDataset(bc, { labeled: 100, test: 0.2, seed: 2 });
const test = maybeTest!;
const model = await train({ learner: 'qsg-s2auc', data: tr, T: 40, m: 16, batchSize: 16, threads: 1 });
const bytes = model.toBytes();

/** Header length, header JSON and payload start of a format-2 file. */
function parts(b: Uint8Array) {
  const h = new DataView(b.buffer, b.byteOffset).getUint32(8, true);
  return { h, json: JSON.parse(new TextDecoder().decode(b.subarray(12, 12 + h))), dataStart: Math.ceil((12 + h) / 8) * 8 };
}

/** Rebuilds a file from a (changed) header and payload bytes with a valid checksum: what a forger would write. */
function forge(header: unknown, payload: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const dataStart = Math.ceil((12 + json.length) / 8) * 8;
  const out = new Uint8Array(dataStart + payload.length + 32);
  out.set(bytes.subarray(0, 8), 0);
  new DataView(out.buffer).setUint32(8, json.length, true);
  out.set(json, 12);
  out.set(payload, dataStart);
  out.set(createHash('sha256').update(out.subarray(0, dataStart + payload.length)).digest(), dataStart + payload.length);
  return out;
}

describe('model integrity', () => {
  it('a changed digit of the seed, or one flipped exponent bit of a coefficient, is a ModelError saying "corrupt"', () => {
    const { h, json, dataStart } = parts(bytes);
    const text = new TextDecoder().decode(bytes.subarray(12, 12 + h));
    const at = 12 + text.indexOf('"seed":') + '"seed":'.length;
    const seedDigit = Uint8Array.from(bytes);
    seedDigit[at] = seedDigit[at] === 0x31 ? 0x32 : 0x31;
    expect(() => Model.fromBytes(seedDigit, 'seed.dsg')).toThrow(/seed\.dsg: corrupt model file \(checksum mismatch/);
    const flipped = Uint8Array.from(bytes);
    flipped[dataStart + 8 * 3 + 7] ^= 0x10; // an exponent bit of the 4th coefficient
    expect(() => Model.fromBytes(flipped, 'flip.dsg')).toThrow(ModelError);
    expect(() => Model.fromBytes(flipped, 'flip.dsg')).toThrow(/corrupt/);
    expect(json.learner).toBe('qsg-s2auc');
  });

  it('a NaN coefficient (even with a valid checksum) is refused, not scored', () => {
    const { json, dataStart } = parts(bytes);
    const payload = Uint8Array.from(bytes.subarray(dataStart, bytes.length - 32));
    new DataView(payload.buffer).setFloat64(8 * 5, NaN, true);
    expect(() => Model.fromBytes(forge(json, payload), 'nan.dsg')).toThrow(/nan\.dsg: corrupt model file \(stored value 5 is NaN\)/);
  });

  it('a header that claims far more history than the file holds is refused before anything is allocated', () => {
    const { json, dataStart } = parts(bytes);
    const payload = bytes.subarray(dataStart, bytes.length - 32);
    for (const t of [3e6, 2e8]) {
      const live = json.predictor.history.t - json.predictor.history.firstLive;
      const forged = { ...json, predictor: { ...json.predictor, history: { ...json.predictor.history, t, firstLive: t - live } } };
      const before = process.memoryUsage().arrayBuffers;
      expect(() => Model.fromBytes(forge(forged, payload), 'big.dsg')).toThrow(/big\.dsg: corrupt model header \(history claims/);
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 2 ** 20);
    }
    // A header consistent in itself (resume state included) whose count exceeds the payload.
    const t1 = json.predictor.history.t + 1;
    const wrongCount = { ...json, predictor: { ...json.predictor, history: { ...json.predictor.history, t: t1 } }, ...(json.resume ? { resume: { ...json.resume, t: t1 } } : {}) };
    expect(() => Model.fromBytes(forge(wrongCount, payload), 'short.dsg')).toThrow(/short\.dsg: truncated model file/);
    const names = { ...json, featureNames: json.featureNames.slice(1) };
    expect(() => Model.fromBytes(forge(names, payload), 'names.dsg')).toThrow(/names\.dsg: corrupt model header \(featureNames\)/);
  });

  it('an averaged model (block weights after the coefficients) refuses a bad first iteration and weights the file does not hold', async () => {
    const averaged = await train({ learner: 'qsg-s2auc', data: tr, T: 40, m: 16, batchSize: 16, threads: 1, average: 'suffix' });
    const b = averaged.toBytes();
    const { json, dataStart } = parts(b);
    expect(json.predictor.average).toEqual({ from: 21 });
    const payload = b.subarray(dataStart, b.length - 32);
    expect(payload.length).toBe(8 * 40 * (2 * 16 + 1));
    expect(Array.from(await Model.fromBytes(forge(json, payload)).decisionFunction(test, { threads: 1 }))).toEqual(Array.from(await averaged.decisionFunction(test, { threads: 1 })));
    for (const from of [0, 41, 2.5, '21']) {
      const bad = { ...json, predictor: { ...json.predictor, average: { from } } };
      expect(() => Model.fromBytes(forge(bad, payload), 'avg.dsg'), `from = ${JSON.stringify(from)}`).toThrow(/avg\.dsg: corrupt model header \(average: from must be an iteration in 1…40\)/);
    }
    // The weights cut off: the header's count exceeds the payload.
    expect(() => Model.fromBytes(forge(json, payload.subarray(0, 8 * 40 * 2 * 16)), 'cut.dsg')).toThrow(/cut\.dsg: truncated model file/);
    // Not the last iterate's scores (so the comparison above can fail).
    expect(Array.from(await averaged.decisionFunction(test, { threads: 1 }))).not.toEqual(Array.from(await model.decisionFunction(test, { threads: 1 })));
  });

  it('a format-1 file (no checksum) still loads, with a warning, and scores the same', async () => {
    const { json, dataStart } = parts(bytes);
    const { predictor, metric, ...rest } = json;
    const v1 = { ...rest, version: 1, features: predictor.features, chunkSize: predictor.chunkSize, history: predictor.history };
    expect(metric).toBe('auc');
    const text = new TextEncoder().encode(JSON.stringify(v1));
    const start = Math.ceil((12 + text.length) / 8) * 8;
    const payload = bytes.subarray(dataStart, bytes.length - 32);
    const file = new Uint8Array(start + payload.length);
    file.set([0x44, 0x53, 0x47, 0x4b, 0x49, 0x54, 0x00, 0x01], 0);
    new DataView(file.buffer).setUint32(8, text.length, true);
    file.set(text, 12);
    file.set(payload, start);
    const path = join(dir, 'old.dsg');
    writeFileSync(path, file);
    const warnings: string[] = [];
    const old = await load(path, { onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([expect.stringMatching(/old\.dsg: model format 1 has no checksum/)]);
    expect(Array.from(await old.decisionFunction(test, { threads: 1 }))).toEqual(Array.from(await model.decisionFunction(test, { threads: 1 })));
    // Saved again, it is a format-2 file identical to the model's own bytes.
    await old.save(join(dir, 'upgraded.dsg'));
    expect(readFileSync(join(dir, 'upgraded.dsg')).equals(Buffer.from(bytes))).toBe(true);
  });
});
