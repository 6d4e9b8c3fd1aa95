/**
 * Property-based fuzzing of everything that reads a user's bytes: the Arrow
 * IPC reader (in memory and streamed from disk), the CSV and LIBSVM readers
 * (text and streamed from disk) and the model loader (`Model.fromBytes`).
 *
 * Inputs: random bytes, and mutations (bit flips, byte writes, insertions,
 * deletions, duplicated ranges, truncations) of valid files; and two
 * structure-aware targets: model headers forged with a valid checksum (the
 * byte mutations above can only ever hit the checksum), and Arrow files
 * changed on disk in the middle of a read. The property:
 * the reader returns a well-formed result, or throws a typed dsgkit error
 * (DataError / ModelError / UsageError) that names the file — never another
 * exception, a hang or a crash.
 *
 * `test/fuzz.test.ts` runs a few hundred cases per target inside `npm test`;
 * `npm run fuzz` (test/fuzz/run.ts) runs the long campaign.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, appendFile, mkdtemp, open, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Table, tableToIPC } from 'apache-arrow';
import fc from 'fast-check';
import { train } from '../../src/api.ts';
import { arrowBytesToDataset, datasetToTable, encodeArrow, openArrowRows, readArrow } from '../../src/data/arrow.ts';
import { formatModel } from '../../src/cli/commands/describe.ts';
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
  /** Inputs of its own (structure-aware), instead of random bytes and byte mutations of the seeds. */
  readonly arbitrary?: fc.Arbitrary<Uint8Array>;
  /**
   * How many cases may run at once (default 1): a target whose cases wait on
   * the file system and share no file runs several streams of cases, so the
   * waits overlap and the campaign's wall time is its CPU time.
   */
  readonly streams?: number;
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
  if (target.arbitrary) return target.arbitrary;
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

/**
 * A scratch folder for the targets that read from disk, in memory (/dev/shm)
 * where the system has it: a case writes, changes and reads a file, and on a
 * disk file system those writes cost more than the read under test. `cleanup` removes it.
 */
export async function scratch(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const inMemory = await access('/dev/shm', constants.W_OK).then(() => true, () => false);
  const dir = await mkdtemp(join(inMemory ? '/dev/shm' : tmpdir(), 'dsgkit-fuzz-'));
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
    forgedHeaderTarget(model, ds),
    await fileChangedWhileReadTarget(dir),
  ];
}

/** The model file's bytes around a given header text (a valid checksum over whatever the header says). */
export function withHeader(headerText: Uint8Array, payload: Float64Array): Uint8Array {
  const dataStart = Math.ceil((12 + headerText.length) / 8) * 8;
  const end = dataStart + payload.length * 8;
  const bytes = new Uint8Array(end + 32);
  bytes.set([0x44, 0x53, 0x47, 0x4b, 0x49, 0x54, 0x00, 2], 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(8, headerText.length, true);
  bytes.set(headerText, 12);
  for (let j = 0; j < payload.length; j++) view.setFloat64(dataStart + 8 * j, payload[j], true);
  bytes.set(createHash('sha256').update(bytes.subarray(0, end)).digest(), end);
  return bytes;
}

/** Values a forger might put anywhere in a header. */
const FORGED_VALUES: unknown[] = [
  0, -1, 1, 0.5, 2, 7, 1e-300, 1e300, -1e300, 1.7e308, -1.7e308, 2 ** 53, 2 ** 53 + 2, 2091639, 2091640, 4, 1e9,
  '', 'x', '__proto__', 'constructor', 'toString', 'rbf', 'dsg', 'binary', 'ordinal', 'fit',
  null, true, false, [], [0], [1, 2], {}, { constructor: 5 }, { __proto__: 1 },
];

/** Every path (keys from the root) to a value inside a JSON value. */
function jsonPaths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (v !== null && typeof v === 'object') for (const [k, c] of Object.entries(v)) jsonPaths(c, [...at, Array.isArray(v) ? Number(k) : k], out);
  return out;
}

/**
 * Forged headers with a valid checksum: the seed model's header with 1–4
 * values anywhere replaced (by numbers at the edges of their ranges, names
 * the JavaScript object model treats specially, other types, or a value
 * nested up to 6,000 levels deep), re-encoded with the right checksum and the
 * seed's payload. A case must load and then predict finite scores, describe
 * itself, save bytes that load again and (one case in 25) continue training
 * with `init` — or end in a typed error naming the file.
 */
function forgedHeaderTarget(model: Model, ds: Dataset): FuzzTarget {
  const seedText = JSON.stringify(JSON.parse(decode(model.toBytes().subarray(12, 12 + new DataView(model.toBytes().buffer).getUint32(8, true)))));
  const seedHeader = JSON.parse(seedText) as unknown;
  const paths = jsonPaths(seedHeader).filter((p) => p.length > 0);
  const payload = Float64Array.from(model.predictor.payload());
  const edit = fc.record({
    path: fc.integer({ min: 0, max: paths.length - 1 }),
    value: fc.oneof(fc.constantFrom(...FORGED_VALUES), fc.double(), fc.integer({ min: 100, max: 6000 }).map((depth) => ({ deep: depth }))),
    extraKey: fc.option(fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'extra'), { nil: undefined }),
  });
  const arbitrary = fc.array(edit, { minLength: 1, maxLength: 4 }).map((edits) => {
    let textOut = seedText;
    const header = JSON.parse(seedText) as Record<string, unknown>;
    const deep: string[] = [];
    for (const e of edits) {
      const path = paths[e.path];
      let at: Record<string | number, unknown> = header;
      for (const k of path.slice(0, -1)) {
        const next = at[k];
        if (next === null || typeof next !== 'object') break;
        at = next as Record<string | number, unknown>;
      }
      const key = e.extraKey ?? path[path.length - 1];
      // A fresh copy: FORGED_VALUES' objects are shared between cases, and a later edit may write into one.
      const value = (e.value !== null && typeof e.value === 'object' ? JSON.parse(JSON.stringify(e.value)) : e.value) as unknown;
      if (value !== null && typeof value === 'object' && 'deep' in (value as object) && typeof (value as { deep: unknown }).deep === 'number') {
        at[key] = `DEEP${deep.length}`;
        deep.push('{"v":'.repeat((value as { deep: number }).deep) + '1' + '}'.repeat((value as { deep: number }).deep));
      } else at[key] = value;
    }
    textOut = JSON.stringify(header);
    deep.forEach((d, i) => (textOut = textOut.replace(`"DEEP${i}"`, d)));
    return withHeader(text.encode(textOut), payload);
  });
  let cases = 0;
  return {
    name: 'model header (forged, checksummed)',
    seeds: [model.toBytes()],
    arbitrary,
    async read(bytes, file) {
      const m = Model.fromBytes(bytes, file);
      // The rows scored carry the model's own feature names (a forged name is not the data's fault), and the file's name.
      const rows = makeDataset({ X: ds.X, d: ds.d, y: ds.y, featureNames: m.featureNames.length === ds.d ? [...m.featureNames] : ds.featureNames, source: file });
      const scores = await m.decisionFunction(rows, { threads: 1 });
      const described = formatModel(m, file);
      const again = Model.fromBytes(m.toBytes(), file);
      let continued: Model | undefined;
      if (cases++ % 25 === 0 && m.header.resume !== undefined) {
        continued = await train({ init: m, data: ds, T: m.header.resume.t + 2, threads: 1 }).catch((err: unknown) => {
          // A continuation refused for a stated reason is a typed error; name the model file as the user gave it.
          if (err instanceof Error && !err.message.includes(file)) err.message = `${file}: ${err.message}`;
          throw err;
        });
      }
      return { m, scores, described, again, continued };
    },
    check(result) {
      const { scores, described, continued } = result as { scores: Float64Array; described: string; continued?: Model };
      for (const v of scores) if (!Number.isFinite(v)) throw new Error(`non-finite score ${v}`);
      if (typeof described !== 'string') throw new Error('describe gave no text');
      if (continued) Model.fromBytes(continued.toBytes(), 'continued.dsg');
    },
  };
}

/**
 * An Arrow file changed on disk while it is read batch by batch (another
 * program truncating, overwriting, extending or replacing it): after reading
 * some batches, the file is cut at a position, has bytes overwritten, has
 * bytes appended, or is replaced by another file; the read must end with the
 * rows or a typed error naming the file, within the case time-out (no spin).
 * An input is the change, as JSON.
 */
async function fileChangedWhileReadTarget(dir: string): Promise<FuzzTarget> {
  const n = 96;
  const X = new Float64Array(n * 3);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    X.set([i / n, i % 3, -i], i * 3);
    y[i] = i % 7 === 0 ? NaN : i % 2 ? 1 : -1;
  }
  const big = makeDataset({ X, d: 3, y, featureNames: ['a', 'b', 'c'] });
  const table = datasetToTable(big);
  const batches = Array.from({ length: 8 }, (_, b) => table.slice(b * 12, (b + 1) * 12).batches[0]);
  const sliced = new Table(batches);
  const seeds = [tableToIPC(sliced, 'file'), tableToIPC(sliced, 'stream')];
  const change = fc.record({
    seed: fc.integer({ min: 0, max: seeds.length - 1 }),
    after: fc.integer({ min: 0, max: 8 }),
    kind: fc.constantFrom('truncate', 'overwrite', 'append', 'replace', 'empty'),
    at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
    bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 64 }),
  });
  let k = 0;
  return {
    name: 'arrow (file changed while read)',
    seeds,
    arbitrary: change.map((c) => text.encode(JSON.stringify(c))),
    streams: 8,
    async read(input, file) {
      const c = JSON.parse(decode(input)) as { seed: number; after: number; kind: string; at: number; bytes: number[] };
      // A file of its own per case (removed after it), so that cases can run at once.
      const path = join(dir, `${k++}-changing.arrow`);
      try {
        return await readWhileChanging(path, c, file);
      } finally {
        await rm(path, { force: true });
      }
    },
    check(result) {
      const { seen, X, n } = result as { seen: number; X: number[]; n: number };
      if (seen !== n) throw new Error(`read ${seen} rows of the ${n} the headers listed, without an error`);
      for (const v of X) if (!Number.isFinite(v)) throw new Error(`non-finite feature ${v}`);
    },
  };

  /** One case: `path` written from its seed, read batch by batch, and changed as `c` says after batch `c.after`. */
  async function readWhileChanging(path: string, c: { seed: number; after: number; kind: string; at: number; bytes: number[] }, file: string): Promise<{ seen: number; X: number[]; n: number }> {
    const seed = seeds[c.seed];
    await writeFile(path, seed);
    const rename = (err: unknown) => {
      if (err instanceof Error) err.message = err.message.split(path).join(file);
      throw err;
    };
    const rows = await openArrowRows(path).catch(rename);
    let seen = 0;
    let b = 0;
    const X: number[] = [];
    try {
      for await (const batch of rows.batches()) {
        if (b++ === c.after) {
          const at = Math.floor(c.at * seed.length);
          if (c.kind === 'truncate') await truncate(path, at);
          else if (c.kind === 'empty') await truncate(path, 0);
          else if (c.kind === 'append') await appendFile(path, Uint8Array.from(c.bytes));
          else if (c.kind === 'replace') await writeFile(path, seeds[1 - c.seed]);
          else {
            const fh = await open(path, 'r+');
            await fh.write(Uint8Array.from(c.bytes), 0, c.bytes.length, at);
            await fh.close();
          }
        }
        seen += batch.n;
        for (const v of batch.X) X.push(v);
      }
    } catch (err) {
      rename(err);
    }
    return { seen, X, n: rows.n };
  }
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
 * Runs `numRuns` cases of `target` with fast-check — in `target.streams`
 * streams of cases at once (seeds `seed`, `seed + 1`, …), for a target whose
 * cases wait on the file system — and reports the count, the slowest case
 * and the shrunk failing input if there is one.
 *
 * @example
 * const r = await fuzz(target, 200);
 * if (r.failure) console.log(r.failure.problem);
 */
export async function fuzz(target: FuzzTarget, numRuns: number, seed?: number): Promise<FuzzReport> {
  const file = fileNameFor(target);
  const streams = Math.max(1, Math.min(target.streams ?? 1, numRuns));
  let slowestMs = 0;
  let typedErrors = 0;
  const t0 = performance.now();
  const stream = async (i: number) => {
    const runs = Math.floor(numRuns / streams) + (i < numRuns % streams ? 1 : 0);
    let ran = 0;
    const details = await fc.check(
      fc.asyncProperty(inputs(target), async (bytes) => {
        const start = performance.now();
        ran++;
        if ((await holds(target, bytes, file)) === 'typed error') typedErrors++;
        slowestMs = Math.max(slowestMs, performance.now() - start);
      }),
      { numRuns: runs, ...(seed !== undefined ? { seed: (seed + i) | 0 } : {}), timeout: 10_000 },
    );
    return { ran: Math.min(ran, runs), details };
  };
  const done = await Promise.all(Array.from({ length: streams }, (_, i) => stream(i)));
  const report: FuzzReport = { target: target.name, runs: done.reduce((a, d) => a + d.ran, 0), typedErrors, slowestMs, wallMs: performance.now() - t0 };
  const failed = done.find((d) => d.details.failed && d.details.counterexample);
  if (failed) {
    const err = failed.details.errorInstance;
    report.failure = { input: failed.details.counterexample![0], problem: err instanceof Error ? err.message : String(err) };
  }
  return report;
}
