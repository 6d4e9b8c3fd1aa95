/**
 * Feature families on wide data: QSG-S2AUC trained with `features` gaussian,
 * orf and sorf on a public image set (d = 784), on its central 16 × 16 pixels
 * and on synthetic rows of d = 256, and on a narrow synthetic set (d = 18), time and held-out AUC
 * per seed.
 *
 * Image data: Fashion-MNIST (Zalando, MIT licence) from the Debian package
 * `dataset-fashion-mnist` (installed by this script when missing and run as
 * root): the 60,000 training images with 200 labels kept (stratified, per
 * seed), the first 2,000 test images held out; pixels / 255, 784 features.
 * Binary label: upper-body garments (T-shirt/top, pullover, coat, shirt) = 1,
 * the other six classes = 0; `crop` is the same images cropped to their
 * central 16 × 16 pixels (d = 256). Synthetic data: `synthetic` rows of
 * d = 256 (`wide`: the generator's signal is in a few columns, so at this
 * width every model is near chance; a measure of time only) and d = 18
 * (`narrow`), 50,000 training rows (200 labeled) and 10,000 held out.
 *
 * Every run: T = 400, m = 64, the default batch and σ (median heuristic),
 * 2 threads, in memory; the time is `train()` wall time (data already in
 * memory), and its process CPU time (every thread: the work done, which a
 * shared machine disturbs less than the wall time). Writes bench/results/features.json and .svg; prints a table.
 *
 * @example
 * // npx tsx bench/features.ts                       (3 seeds, both data sets)
 * // npx tsx bench/features.ts --seeds 1 --only image --families gaussian,sorf
 * // npx tsx bench/features.ts --only image,wide,narrow --families gaussian,sorf --name features
 * // npx tsx bench/features.ts --only crop --families gaussian,sorf --name features-crop
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { train } from '../src/api.ts';
import { makeDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { syntheticDataset } from '../src/data/synthetic.ts';
import { FEATURE_FAMILIES, type FeatureFamily } from '../src/features/spectral.ts';
import { dotPlotSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const FASHION = '/usr/share/datasets/fashion-mnist';
const UPPER_BODY = new Set([0, 2, 4, 6]);

const { values: opt } = parseArgs({
  options: {
    seeds: { type: 'string', default: '3' },
    families: { type: 'string', default: FEATURE_FAMILIES.join(',') },
    only: { type: 'string' },
    T: { type: 'string', default: '400' },
    threads: { type: 'string', default: '2' },
    name: { type: 'string', default: 'features' },
  },
});
const seeds = Array.from({ length: Number(opt.seeds) }, (_, i) => i + 1);
const families = opt.families!.split(',') as FeatureFamily[];
for (const f of families) if (!(FEATURE_FAMILIES as readonly string[]).includes(f)) throw new Error(`bench/features: unknown family '${f}' (known: ${FEATURE_FAMILIES.join(', ')})`);
const T = Number(opt.T);
/** Data sets to run (image, crop, wide, narrow), comma-separated; all when not given. */
const only = opt.only?.split(',');
for (const o of only ?? []) if (!['image', 'crop', 'wide', 'narrow'].includes(o)) throw new Error(`bench/features: unknown --only '${o}' (image, crop, wide, narrow)`);
const threads = Number(opt.threads);

/** Reads an idx file (gzipped): images → rows of pixel/255, labels → numbers. */
function readIdx(path: string): { dims: number[]; data: Uint8Array } {
  const buf = gunzipSync(readFileSync(path));
  const rank = buf[3];
  const dims = Array.from({ length: rank }, (_, i) => buf.readUInt32BE(4 + 4 * i));
  return { dims, data: buf.subarray(4 + 4 * rank) };
}

/** Central square of `CROP × CROP` pixels (of 28 × 28): the `crop` set, d = 256. */
const CROP = 16;

function fashion(part: 'train' | 't10k', limit = Infinity, crop = false): Dataset {
  if (!existsSync(`${FASHION}/${part}-images-idx3-ubyte.gz`)) {
    if (process.getuid?.() !== 0) throw new Error(`bench/features: ${FASHION} is missing: apt-get install dataset-fashion-mnist (as root)`);
    process.stderr.write('installing the Debian package dataset-fashion-mnist\n');
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'dataset-fashion-mnist'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  const images = readIdx(`${FASHION}/${part}-images-idx3-ubyte.gz`);
  const labels = readIdx(`${FASHION}/${part}-labels-idx1-ubyte.gz`);
  const n = Math.min(limit, images.dims[0]);
  const [h, w] = [images.dims[1], images.dims[2]];
  const side = crop ? CROP : w;
  const top = (h - side) / 2;
  const d = side * side;
  const X = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < side; r++) for (let c = 0; c < side; c++) X[i * d + r * side + c] = images.data[i * h * w + (top + r) * w + top + c] / 255;
  }
  const y = Float64Array.from({ length: n }, (_, i) => (UPPER_BODY.has(labels.data[i]) ? 1 : 0));
  return makeDataset({ X, d, y, featureNames: Array.from({ length: d }, (_, k) => `px${k}`), source: `fashion-mnist ${part}${crop ? ` ${CROP}×${CROP}` : ''}` });
}

interface Run {
  data: string;
  d: number;
  family: FeatureFamily;
  seed: number;
  seconds: number;
  /** Process CPU seconds (every thread) of the train() call: the work, less sensitive than wall time to a shared machine. */
  cpuSeconds: number;
  auc: number;
}

async function runAll(name: string, trainFor: (seed: number) => Dataset, test: Dataset): Promise<Run[]> {
  const runs: Run[] = [];
  for (const seed of seeds) {
    const data = trainFor(seed);
    for (const family of families) {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const model = await train({ learner: 'qsg-s2auc', data, T, m: 64, seed, features: family, threads, onWarning: () => {} });
      const seconds = (performance.now() - t0) / 1000;
      const used = process.cpuUsage(cpu0);
      const cpuSeconds = (used.user + used.system) / 1e6;
      const auc = await model.score(test, { threads });
      runs.push({ data: name, d: data.d, family, seed, seconds, cpuSeconds, auc });
      process.stderr.write(`${name} seed ${seed} ${family}: ${seconds.toFixed(1)} s (cpu ${cpuSeconds.toFixed(1)} s), AUC ${auc.toFixed(4)}\n`);
    }
  }
  return runs;
}

const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const sd = (v: number[]) => (v.length < 2 ? 0 : Math.sqrt(v.reduce((a, b) => a + (b - mean(v)) ** 2, 0) / (v.length - 1)));

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const runs: Run[] = [];
  for (const [part, crop] of [['image', false], ['crop', true]] as const) {
    if (!(only === undefined || only.includes(part))) continue;
    const full = fashion('train', Infinity, crop);
    const test = fashion('t10k', 2000, crop);
    runs.push(...(await runAll(crop ? `fashion-mnist ${CROP}×${CROP}` : 'fashion-mnist', (seed) => splitDataset(full, { labeled: 200, seed }).train, test)));
  }
  for (const [part, dim] of [['wide', 256], ['narrow', 18]] as const) {
    if (!(only === undefined || only.includes(part))) continue;
    const all = syntheticDataset({ rows: 60_000, dim, labeled: 60_000, seed: 7 });
    const parts = splitDataset(all, { labeled: 200, test: 10_000, seed: 1 });
    runs.push(...(await runAll(`synthetic d=${dim}`, (seed) => splitDataset(parts.train, { labeled: 200, seed }).train, parts.test!)));
  }
  const summary = [...new Set(runs.map((r) => r.data))].flatMap((data) =>
    families.map((family) => {
      const rs = runs.filter((r) => r.data === data && r.family === family);
      const base = runs.filter((r) => r.data === data && r.family === 'gaussian');
      return {
        data,
        d: rs[0].d,
        family,
        seconds: mean(rs.map((r) => r.seconds)),
        secondsSd: sd(rs.map((r) => r.seconds)),
        speedupVsGaussian: base.length ? mean(base.map((r) => r.seconds)) / mean(rs.map((r) => r.seconds)) : NaN,
        cpuSeconds: mean(rs.map((r) => r.cpuSeconds)),
        cpuSpeedupVsGaussian: base.length ? mean(base.map((r) => r.cpuSeconds)) / mean(rs.map((r) => r.cpuSeconds)) : NaN,
        auc: mean(rs.map((r) => r.auc)),
        aucSd: sd(rs.map((r) => r.auc)),
      };
    }),
  );
  const json = {
    method: `QSG-S2AUC, T = ${T}, m = 64, default batch and σ, ${threads} threads, in memory; seconds = train() wall time, cpuSeconds = its process CPU time (all threads); AUC on held-out rows; seeds ${seeds.join(', ')} (split and model seed)`,
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, loadavg1mBefore: loadBefore, loadavg1mAfter: loadavg()[0] },
    summary,
    runs,
  };
  const svg = dotPlotSvg({
    title: `Training time by feature family (QSG-S2AUC, T = ${T}, m = 64, ${threads} threads; mean ± sd over ${seeds.length} seeds)`,
    xLabel: 'seconds',
    groups: [...new Set(summary.map((s) => s.data))].map((data) => ({
      name: data,
      rows: summary.filter((s) => s.data === data).map((s) => ({ series: `${s.family} (AUC ${s.auc.toFixed(3)})`, mean: s.seconds, sd: s.secondsSd })),
    })),
  });
  const paths = writeBenchOutputs(opt.name!, json, svg);
  process.stdout.write(
    markdownTable(
      summary.map((s) => ({ data: s.data, d: s.d, family: s.family, 's (mean)': s.seconds, 's (sd)': s.secondsSd, 'speed-up vs gaussian': s.speedupVsGaussian, 'cpu s': s.cpuSeconds, 'cpu speed-up': s.cpuSpeedupVsGaussian, AUC: s.auc, 'AUC sd': s.aucSd })),
      { digits: 3 },
    ),
  );
  process.stdout.write(`load average (1 min) ${loadBefore.toFixed(2)} → ${loadavg()[0].toFixed(2)}; wrote ${paths.json}${paths.svg ? ` and ${paths.svg}` : ''}\n`);
}

await main();
