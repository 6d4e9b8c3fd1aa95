/**
 * Property-based fuzzing of everything that reads a user's bytes: the Arrow
 * IPC reader (in memory and streamed from disk), the CSV and LIBSVM readers
 * (text and streamed from disk) and the model loader (`Model.fromBytes`).
 *
 * Inputs: random bytes, and mutations (bit flips, byte writes, insertions,
 * deletions, duplicated ranges, truncations) of valid files. The property:
 * the reader returns a well-formed result, or throws a typed dsgkit error
 * (DataError / ModelError / UsageError) that names the file — never another
 * exception, a hang or a crash.
 *
 * `test/fuzz.test.ts` runs a few hundred cases per target inside `npm test`;
 * `npm run fuzz` (test/fuzz/run.ts) runs the long campaign.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { train } from '../../src/api.ts';
import { arrowBytesToDataset, encodeArrow, readArrow } from '../../src/data/arrow.ts';
import { parseCsv, readCsv } from '../../src/data/csv.ts';
import { makeDataset, type Dataset } from '../../src/data/dataset.ts';
import { parseLibsvm, readLibsvm } from '../../src/data/libsvm.ts';
import { DataError, ModelError, UsageError } from '../../src/errors.ts';
import { Model } from '../../src/model/model.ts';

/** One thing to fuzz: seeds (valid inputs) and how to read bytes as `file`. */
export interface FuzzTarget {
  readonly name: string;
  /** Valid inputs the mutations start from. */
  readonly seeds: readonly Uint8Array[];
  /** Reads `bytes` as the file `file`; returns something to check, or throws. */
  read(bytes: Uint8Array, file: string): Promise<unknown>;
  /** Throws (a plain Error: a finding) unless `result` is well formed. */
  check(result: unknown): void;
}

/** What a fuzz case found: the input and what went wrong. */
export class Finding extends Error {
  constructor(
    readonly target: string,
    readonly input: Uint8Array,
    readonly problem: unknown,
  ) {
    super(`${target}: ${problem instanceof Error ? `${problem.name}: ${problem.message}` : String(problem)}`);
  }
}

/** Throws unless `ds` is a well-formed Dataset (sizes agree, features finite, labels finite/NaN, class indices valid). */
export function checkDataset(result: unknown): void {
  const ds = result as Dataset;
  if (!(ds.X instanceof Float64Array) || ds.X.length !== ds.n * ds.d) throw new Error(`X has ${ds.X?.length} values for n=${ds.n}, d=${ds.d}`);
  if (ds.y.length !== ds.n || ds.labeled.length !== ds.n || ds.featureNames.length !== ds.d) throw new Error('y / labeled / featureNames sizes disagree');
  for (const v of ds.X) if (!Number.isFinite(v)) throw new Error(`non-finite feature ${v}`);
  for (let i = 0; i < ds.n; i++) {
    const v = ds.y[i];
    if (ds.labeled[i] !== (Number.isNaN(v) ? 0 : 1)) throw new Error(`labeled mask wrong at row ${i}`);
    if (!Number.isNaN(v) && !Number.isFinite(v)) throw new Error(`non-finite label ${v}`);
    if (ds.classNames && !Number.isNaN(v) && !(Number.isInteger(v) && v >= 0 && v < ds.classNames.length)) throw new Error(`label ${v} is no class index`);
  }
}

/** The property: a result `check` accepts, or a typed dsgkit error naming `file`. Says which of the two it was. */
export async function holds(target: FuzzTarget, bytes: Uint8Array, file: string): Promise<'result' | 'typed error'> {
  let result: unknown;
  try {
    result = await target.read(bytes, file);
  } catch (err) {
    const typed = err instanceof DataError || err instanceof ModelError || err instanceof UsageError;
    if (!typed) throw new Finding(target.name, bytes, err);
    if (!(err as Error).message.includes(file)) throw new Finding(target.name, bytes, new Error(`typed error does not name the file: ${(err as Error).message}`));
    return 'typed error';
  }
  try {
    target.check(result);
  } catch (err) {
    throw new Finding(target.name, bytes, err);
  }
  return 'result';
}

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'set'; at: number; value: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'duplicate'; at: number; length: number }
  | { kind: 'truncate'; at: number };

const position = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: position, bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('set' as const), at: position, value: fc.constantFrom(0, 0xff, 0x7f, 0x80, 0x30, 0x3a, 0x2c, 0x0a, 0x22, 0x3f) }),
  fc.record({ kind: fc.constant('insert' as const), at: position, bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: position, length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: position, length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
);

/** `seed` with `mutations` applied in turn (positions are fractions of the current length). */
export function mutate(seed: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let b: Uint8Array = Uint8Array.from(seed);
  for (const m of mutations) {
    const at = Math.floor(m.at * (b.length + 1));
    switch (m.kind) {
      case 'flip':
        if (at < b.length) b[at] ^= 1 << m.bit;
        break;
      case 'set':
        if (at < b.length) b[at] = m.value;
        break;
      case 'insert':
        b = concat(b.subarray(0, at), m.bytes, b.subarray(at));
        break;
      case 'delete':
        b = concat(b.subarray(0, at), b.subarray(at + m.length));
        break;
      case 'duplicate':
        b = concat(b.subarray(0, at + m.length), b.subarray(at, at + m.length), b.subarray(at + m.length));
        break;
      case 'truncate':
        b = b.slice(0, at);
        break;
    }
  }
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Inputs for `target`: random bytes (1 in 5) or 1–4 mutations of one of its seeds. */
export function inputs(target: FuzzTarget): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 1024 }) },
    {
      weight: 4,
      arbitrary: fc
        .record({ seed: fc.constantFrom(...target.seeds), mutations: fc.array(mutation, { minLength: 1, maxLength: 4 }) })
        .map(({ seed, mutations }) => mutate(seed, mutations)),
    },
  );
}

const text = new TextEncoder();
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** A scratch folder for the targets that read from disk; `cleanup` removes it. */
export async function scratch(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'dsgkit-fuzz-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

function tinyDataset(): Dataset {
  const n = 12;
  const X = new Float64Array(n * 3);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    X[i * 3] = (i % 4) / 4;
    X[i * 3 + 1] = i % 2;
    X[i * 3 + 2] = -i * 1.5;
    y[i] = i % 5 === 0 ? NaN : i % 2 ? 1 : -1;
  }
  return makeDataset({ X, d: 3, y, featureNames: ['a', 'b', 'c'], source: 'seed' });
}

/** Every target, with its seeds built from valid data (a folder for the disk-reading ones). */
export async function fuzzTargets(dir: string): Promise<FuzzTarget[]> {
  const ds = tinyDataset();
  const named = makeDataset({ X: ds.X, d: ds.d, y: ds.y.map((v) => (Number.isNaN(v) ? NaN : v > 0 ? 1 : 0)), featureNames: ds.featureNames, classNames: ['ham', 'spam'] });
  const arrowSeeds = [encodeArrow(ds, 'file'), encodeArrow(ds, 'stream'), encodeArrow(named, 'file'), encodeArrow(named, 'stream')];
  const csvSeeds = [
    'label,a,"b, q"\r\n1,0.5,2\n?,1,"3"\n\n,2,-1e2\nNA,0,0\n-1,.25,4\n',
    'label,a,b\nspam,1,2\nham,3,4\n?,5,6\n"sp""am",7,8\n',
  ].map((t) => text.encode(t));
  const libsvmSeeds = ['# c\n+1 1:0.5 3:2 # t\n\n-1 2:1.5e-1\n? 1:-3 4:7\n2 qid:3 4:1\n', '1 1:1\r\n-1 2:1 10:3\r\n'].map((t) => text.encode(t));
  const model = await train({ learner: 'dsg', data: ds, T: 4, m: 4, batchSize: 4, threads: 1, seed: 1 });
  const modelSeeds = [model.toBytes()];
  let k = 0;
  const onDisk = async (bytes: Uint8Array, file: string, read: (path: string) => Promise<unknown>) => {
    const path = join(dir, `${k++ % 4}-${file}`);
    await writeFile(path, bytes);
    return read(path).catch((err: unknown) => {
      // The file's own name is what the user gave; report it as such.
      if (err instanceof Error) err.message = err.message.split(path).join(file);
      throw err;
    });
  };
  return [
    { name: 'arrow (bytes)', seeds: arrowSeeds, read: async (b, f) => arrowBytesToDataset(b, f), check: checkDataset },
    { name: 'arrow (file)', seeds: arrowSeeds, read: (b, f) => onDisk(b, f, (p) => readArrow(p)), check: checkDataset },
    { name: 'csv (text)', seeds: csvSeeds, read: async (b, f) => parseCsv(decode(b), f), check: checkDataset },
    { name: 'csv (file)', seeds: csvSeeds, read: (b, f) => onDisk(b, f, (p) => readCsv(p)), check: checkDataset },
    { name: 'libsvm (text)', seeds: libsvmSeeds, read: async (b, f) => parseLibsvm(decode(b), f), check: checkDataset },
    { name: 'libsvm (file)', seeds: libsvmSeeds, read: (b, f) => onDisk(b, f, (p) => readLibsvm(p)), check: checkDataset },
    {
      name: 'model loader',
      seeds: modelSeeds,
      read: async (b, f) => Model.fromBytes(b, f),
      check: (m) => {
        if (!(m instanceof Model)) throw new Error('fromBytes returned no Model');
      },
    },
  ];
}

/** The file name a target's inputs are read as (its extension picks nothing here; it is only named in errors). */
export function fileNameFor(target: FuzzTarget): string {
  if (target.name.startsWith('arrow')) return 'fuzz.arrow';
  if (target.name.startsWith('csv')) return 'fuzz.csv';
  if (target.name.startsWith('libsvm')) return 'fuzz.libsvm';
  return 'fuzz.dsg';
}

/** What {@link fuzz} reports. */
export interface FuzzReport {
  target: string;
  /** Cases run (including a failing one). */
  runs: number;
  /** Cases that ended in a typed dsgkit error (the others gave a well-formed result). */
  typedErrors: number;
  /** Slowest case, ms. */
  slowestMs: number;
  wallMs: number;
  /** The shrunk failing input and its problem, when one was found. */
  failure?: { input: Uint8Array; problem: string };
}

/**
 * Runs `numRuns` cases of `target` with fast-check; reports the count, the
 * slowest case and the shrunk failing input if there is one.
 *
 * @example
 * const r = await fuzz(target, 200);
 * if (r.failure) console.log(r.failure.problem);
 */
export async function fuzz(target: FuzzTarget, numRuns: number, seed?: number): Promise<FuzzReport> {
  const file = fileNameFor(target);
  let slowestMs = 0;
  let runs = 0;
  let typedErrors = 0;
  const t0 = performance.now();
  const details = await fc.check(
    fc.asyncProperty(inputs(target), async (bytes) => {
      const start = performance.now();
      runs++;
      if ((await holds(target, bytes, file)) === 'typed error') typedErrors++;
      slowestMs = Math.max(slowestMs, performance.now() - start);
    }),
    { numRuns, ...(seed !== undefined ? { seed } : {}), timeout: 10_000 },
  );
  const report: FuzzReport = { target: target.name, runs: Math.min(runs, numRuns), typedErrors, slowestMs, wallMs: performance.now() - t0 };
  if (details.failed && details.counterexample) {
    const err = details.errorInstance;
    report.failure = { input: details.counterexample[0], problem: err instanceof Error ? err.message : String(err) };
  }
  return report;
}
