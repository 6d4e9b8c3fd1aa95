/**
 * dsgkit against the peers a user would otherwise pick (scikit-learn 1.2:
 * RBF SVC with C, γ by 5-fold CV; LabelSpreading, rbf and knn; self-training
 * around the SVC; for ordinal data the SVC's expected class), on the very same
 * splits, mean ± sd over seeds, with wall times.
 *
 * For each dataset and seed the split is dsgkit's own `splitDataset` (papers'
 * protocol: 20% of the labeled rows held out, stratified; 200 labeled training
 * rows, the rest of the training rows unlabeled — or, with `--hide f`, a
 * fraction f of the training labels hidden instead). The features are scaled
 * to [0, 1] by a min-max scaler fitted on the training rows (what `train`
 * does) and written to CSV, so the Python peers see the same rows and the
 * same numbers, bit for bit; the dsgkit methods get the raw rows and scale
 * them themselves. One `python3` process per dataset runs every peer on every
 * seed (bench/peers/run_peers.py); its held-out scores come back and the
 * metrics are recomputed here with dsgkit's metric code — a disagreement with
 * Python's own value stops the run (so the two ordinal AUCs are one metric).
 *
 * The dsgkit rows come from bench/peers/dsgkit-methods.ts (`DSGKIT_METHODS`).
 *
 * Each dsgkit row also gets its paired gap to the best peer (per seed, same
 * split: mean ± sd of the difference and the paired t), by metric and by
 * accuracy — the figure the targets are stated in.
 *
 * Results are merged into bench/results/<name>.json (one entry per dataset,
 * task and protocol, replaced when re-run) and the dot plot <name>.svg is
 * redrawn from all entries.
 *
 * Needs /usr/bin/python3 with python3-sklearn (Debian: `apt-get install -y python3-sklearn`).
 *
 * @example
 * // npm run bench:peers -- data/spam.arrow data/breast_cancer.arrow
 * // npm run bench:peers -- data/diabetes.arrow --task ordinal
 * // npm run bench:peers -- data/spam.arrow --hide 0.8        (graph-learner protocol)
 * // npm run bench:peers -- data/spam.arrow --seeds 1 --peers svc --no-dsgkit
 * // npm run bench:peers -- data/spam.arrow --dsgkit 'dsgkit tune qsg-s2auc,dsgkit qsg-s2auc'   (only these dsgkit rows)
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { availableCores } from '../src/engine/cores.ts';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { accuracy, auc, mean, meanAbsoluteError, ordinalMeanAuc, sampleSd } from '../src/metrics/index.ts';
import { dotPlotSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';
import { PEERS } from './lib/quality.ts';
import { runPythonPeers, type PeerRecord } from './peers/python-peers.ts';
import { DSGKIT_METHODS, methodByName, type DsgkitMethod, type MethodResult, type Task } from './peers/dsgkit-methods.ts';

const { values: opt, positionals: paths } = parseArgs({
  allowPositionals: true,
  options: {
    task: { type: 'string', default: 'binary' },
    labeled: { type: 'string', default: '200' },
    hide: { type: 'string' },
    test: { type: 'string', default: '0.2' },
    seeds: { type: 'string', default: '1,2,3' },
    peers: { type: 'string', default: PEERS.join(',') },
    'no-dsgkit': { type: 'boolean', default: false },
    dsgkit: { type: 'string' },
    'unlabeled-cap': { type: 'string', default: '4000' },
    name: { type: 'string', default: 'peers' },
    python: { type: 'string', default: '/usr/bin/python3' },
  },
});
const task = opt.task as Task;
if (task !== 'binary' && task !== 'ordinal') throw new Error(`--task must be binary or ordinal, got '${opt.task}'`);
if (paths.length === 0) throw new Error('bench:peers: give one or more dataset paths (Arrow, CSV or LIBSVM)');
const seeds = opt.seeds.split(',').map(Number);
const testFraction = Number(opt.test);
const hide = opt.hide === undefined ? undefined : Number(opt.hide);
if (hide !== undefined && !(hide > 0 && hide < 1)) throw new Error(`--hide must be a fraction in (0, 1), got ${opt.hide}`);
const peers = opt.peers.split(',').filter(Boolean);
for (const p of peers) if (!PEERS.includes(p)) throw new Error(`unknown peer '${p}' (known: ${PEERS.join(', ')})`);

/** One method's per-seed numbers. */
interface SeedResult extends MethodResult {
  seed: number;
  params?: Record<string, unknown>;
}
/** Mean and sample standard deviation (n − 1) over the seeds. */
interface Stat {
  mean: number;
  sd: number;
}
/** A dsgkit method against the peer with the best mean, paired seed by seed on the same splits. */
interface PairedGap {
  peer: string;
  /** Mean and sd over the seeds of (dsgkit − peer). */
  mean: number;
  sd: number;
  /** Paired t statistic, mean / (sd / √seeds), with seeds − 1 degrees of freedom (NaN for one seed). */
  t: number;
}
interface MethodEntry {
  method: string;
  kind: 'peer' | 'dsgkit';
  metric: Stat;
  accuracy: Stat;
  mae?: Stat;
  seconds: Stat;
  perSeed: SeedResult[];
  /** dsgkit methods: the gap to the best peer by metric and by accuracy. */
  vsBestPeer?: { metric: PairedGap; accuracy: PairedGap };
}
interface DatasetEntry {
  dataset: string;
  task: Task;
  protocol: string;
  rows: number;
  features: number;
  trainRows: number;
  labeledTrainRows: number;
  testRows: number;
  seeds: number[];
  unlabeledCap: number;
  wallSeconds: number;
  /** 1/5/15-minute load averages when the dataset finished (the machine is shared: read times with them). */
  loadavg: number[];
  date: string;
  methods: MethodEntry[];
}

function stat(values: number[]): Stat {
  return { mean: mean(values), sd: sampleSd(values) };
}

/**
 * The paired gap of `method` to the peer of highest mean `measure` (seeds
 * matched by number, so both ran on the same split).
 */
function gapToBestPeer(method: MethodEntry, peerEntries: MethodEntry[], measure: 'metric' | 'accuracy'): PairedGap {
  const best = peerEntries.reduce((a, b) => (b[measure].mean > a[measure].mean ? b : a));
  const peerBySeed = new Map(best.perSeed.map((r) => [r.seed, r[measure]]));
  const diffs = method.perSeed.map((r) => r[measure] - peerBySeed.get(r.seed)!);
  const d = stat(diffs);
  return { peer: best.method, mean: d.mean, sd: d.sd, t: diffs.length > 1 ? d.mean / (d.sd / Math.sqrt(diffs.length)) : NaN };
}

/** Labeled training rows under the protocol: `--labeled` or, with `--hide f`, (1 − f) of those left after the test hold-out. */
function labeledCount(raw: Dataset): number {
  if (hide === undefined) return Number(opt.labeled);
  let total = 0;
  for (let i = 0; i < raw.n; i++) total += raw.labeled[i];
  const testCount = testFraction > 0 && testFraction < 1 ? Math.round(testFraction * total) : testFraction;
  return Math.round((1 - hide) * (total - testCount));
}

/** The held-out metric of `scores` (AUC with the larger label positive, or the mean threshold AUC). */
function heldOutMetric(test: Dataset, scores: ArrayLike<number>): number {
  if (task === 'ordinal') return ordinalMeanAuc(test.y, scores).meanAuc;
  return auc(test.y, scores, { positive: Math.max(...test.y) });
}

async function benchDataset(path: string): Promise<{ entry: DatasetEntry; versions: Record<string, string> }> {
  const started = performance.now();
  const raw = await readDataset(path);
  const labeled = labeledCount(raw);
  const protocol = hide === undefined ? `${testFraction} test, ${labeled} labeled` : `${testFraction} test, hide ${hide} (${labeled} labeled)`;
  const splits = seeds.map((seed) => ({ seed, ...splitDataset(raw, { labeled, test: testFraction, seed }) }));
  const results = new Map<string, { kind: 'peer' | 'dsgkit'; perSeed: SeedResult[] }>();
  let versions: Record<string, string> = {};
  if (peers.length > 0) {
    const py = await runPythonPeers<PeerRecord>(opt.python!, { dataset: path, task, unlabeledCap: Number(opt['unlabeled-cap']), peers }, splits.map(({ seed, train, test }) => ({ seed, train, test: test! })));
    versions = py.versions;
    for (const r of py.records) {
      const test = splits.find((s) => s.seed === r.seed)!.test!;
      // Same metric in both languages, or stop: the reported number is dsgkit's.
      const metric = heldOutMetric(test, r.scores);
      const acc = accuracy(test.y, r.predicted);
      if (Math.abs(metric - r.metric) > 1e-12 || Math.abs(acc - r.accuracy) > 1e-12) {
        throw new Error(`${path} seed ${r.seed} ${r.method}: Python says metric ${r.metric}, accuracy ${r.accuracy}; dsgkit's metrics say ${metric}, ${acc}`);
      }
      const mae = task === 'ordinal' ? meanAbsoluteError(test.y, r.predicted) : undefined;
      const slot = results.get(r.method) ?? { kind: 'peer' as const, perSeed: [] };
      slot.perSeed.push({ seed: r.seed, metric, accuracy: acc, seconds: r.seconds, params: r.params, ...(mae !== undefined ? { mae } : {}) });
      results.set(r.method, slot);
    }
  }
  if (!opt['no-dsgkit']) {
    const only = opt.dsgkit?.split(',').filter(Boolean);
    const methods: DsgkitMethod[] = (only ?? DSGKIT_METHODS.map((m) => m.name)).map((name) => {
      const m = methodByName(name);
      if (!m) throw new Error(`--dsgkit: no method '${name}' (a row of DSGKIT_METHODS, 'dsgkit <learner>' or 'dsgkit tune <learner>', either optionally followed by ' --iterations T')`);
      return m;
    });
    for (const m of methods.filter((m) => m.task === task)) {
      const slot = { kind: 'dsgkit' as const, perSeed: [] as SeedResult[] };
      for (const { seed, train, test } of splits) {
        const r = await m.run(train, test!, seed);
        console.error(`[dsgkit] ${path} seed ${seed} ${m.name}: metric ${r.metric.toFixed(4)}, accuracy ${r.accuracy.toFixed(4)}, ${r.seconds.toFixed(1)} s${r.note ? ` (${r.note})` : ''}`);
        slot.perSeed.push({ seed, ...r });
      }
      results.set(m.name, slot);
    }
  }
  const first = splits[0];
  let labeledTrain = 0;
  for (let i = 0; i < first.train.n; i++) labeledTrain += first.train.labeled[i];
  const methods: MethodEntry[] = [...results].map(([method, { kind, perSeed }]) => ({
    method,
    kind,
    metric: stat(perSeed.map((r) => r.metric)),
    accuracy: stat(perSeed.map((r) => r.accuracy)),
    ...(task === 'ordinal' && perSeed.every((r) => r.mae !== undefined) ? { mae: stat(perSeed.map((r) => r.mae!)) } : {}),
    seconds: stat(perSeed.map((r) => r.seconds)),
    perSeed,
  }));
  const peerEntries = methods.filter((m) => m.kind === 'peer');
  if (peerEntries.length > 0) {
    for (const m of methods) {
      if (m.kind === 'dsgkit') m.vsBestPeer = { metric: gapToBestPeer(m, peerEntries, 'metric'), accuracy: gapToBestPeer(m, peerEntries, 'accuracy') };
    }
  }
  const entry: DatasetEntry = {
    dataset: path,
    task,
    protocol,
    rows: raw.n,
    features: raw.d,
    trainRows: first.train.n,
    labeledTrainRows: labeledTrain,
    testRows: first.test!.n,
    seeds,
    unlabeledCap: Number(opt['unlabeled-cap']),
    wallSeconds: (performance.now() - started) / 1000,
    loadavg: loadavg(),
    date: new Date().toISOString(),
    methods,
  };
  return { entry, versions };
}

const pm = (s: Stat, digits: number) => `${s.mean.toFixed(digits)} ± ${s.sd.toFixed(digits)}`;
const gap = (g: PairedGap) => `${g.mean >= 0 ? '+' : ''}${g.mean.toFixed(4)} ± ${g.sd.toFixed(4)} vs ${g.peer}${Number.isFinite(g.t) ? ` (t = ${g.t.toFixed(2)})` : ''}`;
function tableRows(entries: DatasetEntry[]): Array<Record<string, string | number>> {
  return entries.flatMap((e) =>
    e.methods.map((m) => ({
      dataset: e.dataset.replace(/^.*\//, ''),
      protocol: e.protocol,
      method: m.method,
      [e.task === 'ordinal' ? 'metric (mean thr. AUC)' : 'metric (AUC)']: pm(m.metric, 4),
      accuracy: pm(m.accuracy, 4),
      ...(m.mae ? { MAE: pm(m.mae, 3) } : {}),
      'seconds / seed': pm(m.seconds, 1),
      'vs best peer (paired: metric; accuracy)': m.vsBestPeer ? `${gap(m.vsBestPeer.metric)}; ${gap(m.vsBestPeer.accuracy)}` : '',
    })),
  );
}

const fresh: DatasetEntry[] = [];
let versions: Record<string, string> = {};
for (const path of paths) {
  const r = await benchDataset(path);
  fresh.push(r.entry);
  if (Object.keys(r.versions).length) versions = r.versions;
}

// Merge with earlier runs: one entry per (dataset, task, protocol).
const resultsPath = fileURLToPath(new URL(`./results/${opt.name}.json`, import.meta.url));
const key = (e: DatasetEntry) => `${e.dataset}|${e.task}|${e.protocol}`;
const previous = existsSync(resultsPath) ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as { entries?: DatasetEntry[]; python?: Record<string, string> }) : {};
const entries = [...(previous.entries ?? []).filter((e) => !fresh.some((f) => key(f) === key(e))), ...fresh];

console.log(`${availableCores()} cores (${cpus()[0]?.model}), load ${loadavg().map((v) => v.toFixed(2)).join(' ')}; seeds ${seeds.join(',')}; peers single-threaded, dsgkit on all cores`);
console.log(markdownTable(tableRows(fresh)));

const svg = dotPlotSvg({
  title: 'dsgkit vs scikit-learn peers: held-out AUC (binary) / mean threshold AUC (ordinal), mean ± sd over seeds',
  xLabel: 'held-out AUC (binary) · mean threshold AUC (ordinal)',
  groups: entries.map((e) => ({
    name: `${e.dataset.replace(/^.*\//, '').replace(/\.(arrow|csv|libsvm)$/, '')}${e.protocol.includes('hide') ? ' (hide)' : ''}${e.task === 'ordinal' ? ' (ordinal)' : ''}`,
    rows: e.methods.map((m) => ({ series: m.method, mean: m.metric.mean, sd: m.metric.sd })),
  })),
  width: 900,
});
const out = writeBenchOutputs(
  opt.name,
  {
    description:
      'dsgkit vs scikit-learn peers on identical splits (dsgkit splitDataset; features min-max scaled on the training rows). metric: held-out AUC (binary, larger label positive) or mean threshold AUC (ordinal, src/metrics/ordinal.ts); sd is the sample sd over seeds; vsBestPeer (dsgkit rows) is the per-seed paired difference to the peer with the best mean, by metric and by accuracy, with its paired t (seeds − 1 df); seconds per seed include hyperparameter search and test scoring (self-training reuses the svc search and excludes its time).',
    machine: { cores: availableCores(), cpu: cpus()[0]?.model, loadavg: loadavg() },
    python: Object.keys(versions).length ? versions : previous.python,
    entries,
  },
  svg,
);
console.log(`wrote ${out.json} and ${out.svg}`);
