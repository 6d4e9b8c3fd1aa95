/**
 * The public quality benchmark: every dsgkit learner, at its defaults and
 * after `tune`, and each semi-supervised learner's own supervised special
 * case, against the scikit-learn peers, on the very same splits of 20 public
 * data sets (17 from bench/public-data.sh + the 3 shipped in data/, seeds
 * 1–3 each, 1–10 where fewer than 200 rows are held out: SMALL_SET_SEEDS),
 * in the papers' protocol. The summary — wins / ties / losses of each
 * learner against the best peer per set, the mean gap and the worst set, and
 * what the unlabeled rows bought (learner against its supervised special
 * case) — is written to docs/benchmarks-quality.md, bench/results/quality.json
 * and bench/results/quality.svg.
 *
 * Protocols (the splits are dsgkit's own `splitDataset`, seeded by the seed):
 * - `labeled`: 20% of the rows held out (stratified), 200 labeled training
 *   rows (stratified), the other training rows unlabeled. Binary learners
 *   qsg-s2auc, dsg, tsgs3vm, frs3vm; ordinal learners qs3orao, sorao.
 * - `hide`: 20% held out, 80% of the training labels hidden (the graph
 *   learners' papers): gkm, lapsvm; the peers' CV is scored by accuracy
 *   here, the measure these learners are judged by. A set of more than {@link HIDE_MAX_ROWS}
 *   rows is first cut to a seeded sample of that many rows (so at most 1,000
 *   labeled training rows: the SVC peer's CV grid on 12,000 labeled rows
 *   would take hours).
 *
 * Every finished cell (set × protocol × seed × method) is appended to
 * bench/results/quality-cells.jsonl at once, and a re-run skips it, so a
 * long run can be stopped and resumed; a dsgkit cell is reused only when it
 * was made from the same committed src/ tree (`git rev-parse HEAD:src`), so a
 * change to the learners re-runs them and not the peers. `--fresh` ignores
 * the cache for the selection.
 *
 * Needs bench/data-public/ (`bash bench/public-data.sh`) and
 * /usr/bin/python3 with python3-sklearn.
 *
 * @example
 * // npm run bench:quality -- --no-tune                        (peers + every learner at its defaults, all sets, each at its seeds)
 * // npm run bench:quality                                     (the same plus tune: long)
 * // npm run bench:quality -- --sets spam,pima --learners qsg-s2auc --seeds 1 --no-peers
 * // npm run bench:quality -- --summary-only                   (tables and picture from the cells recorded so far)
 * // npx tsx bench/quality.ts --no-peers --threads 1 --sets pima --seeds 2 --cells /tmp/pima-2.jsonl   (one process of a many-core run: no summary)
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { train, type LearnerName, type Model } from '../src/api.ts';
import { CancelledError } from '../src/errors.ts';
import { readDataset, type Dataset } from '../src/data/index.ts';
import { availableCores } from '../src/engine/cores.ts';
import { mean, sampleSd } from '../src/metrics/index.ts';
import { tune } from '../src/tune.ts';
import { dotPlotSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';
import { runPythonPeers, type PeerRecord } from './peers/python-peers.ts';
import { cellKey, gapToBestPeer as peerGap, HIDE_MAX_ROWS, heldOut, latestCells, LEARNERS, listOption, measureOf, PEERS, QUALITY_CELLS, qualitySplit, readCells, SETS, SMALL_SET_SEEDS, srcTreeOf, tally, type BenchSet, type Protocol, type QualityCell, type Task } from './lib/quality.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const DOC = join(REPO, 'docs/benchmarks-quality.md');

export { HIDE_MAX_ROWS } from './lib/quality.ts';
/** Two results closer than this are a tie in the wins / ties / losses tables. */
export const TIE = 0.005;

/** A dsgkit row: a learner at its defaults or tuned, optionally with parameters fixed (its supervised special case). */
interface DsgkitMethod {
  name: string;
  learner: LearnerName;
  mode: 'default' | 'tune';
  /** Parameters fixed (and so not searched by tune): the supervised special case. */
  fixed?: Record<string, unknown>;
  /** The learner this is the supervised special case of. */
  specialOf?: string;
  /** Parameters given to every run of this row (`--params`): a candidate default under study, named in the row. */
  variant?: Record<string, unknown>;
}

/** Which rows of a learner run: its own and its supervised special case's (`with`), its own (`without`), or the special case's (`only`). */
type Specials = 'with' | 'without' | 'only';

function dsgkitMethods(learner: (typeof LEARNERS)[number], modes: ('default' | 'tune')[], specials: Specials, variant?: Record<string, unknown>): DsgkitMethod[] {
  const out: DsgkitMethod[] = [];
  // A variant's rows are named for it, `dsg {lambda=0.001,loss=square}`, so they never mix with the defaults' rows.
  const suffix = variant ? ` {${Object.entries(variant).map(([k, v]) => `${k}=${String(v)}`).join(',')}}` : '';
  const v = variant ? { variant } : {};
  for (const mode of modes) {
    const prefix = mode === 'tune' ? 'tune ' : '';
    if (specials !== 'only') out.push({ name: `${prefix}${learner.learner}${suffix}`, learner: learner.learner, mode, ...v });
    if (specials !== 'without' && learner.special) out.push({ name: `${prefix}${learner.learner} [${learner.special.label}]${suffix}`, learner: learner.learner, mode, fixed: learner.special.fixed, specialOf: learner.learner, ...v });
  }
  return out;
}

/**
 * `--params 'dsg:loss=square,lambda=0.001;tsgs3vm:C=1000'`: per learner, the
 * parameters every one of its runs is given (numbers where they parse) — a
 * candidate default measured on the benchmark before it becomes the default.
 */
function parseVariants(value: string | undefined): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  if (value === undefined) return out;
  for (const part of value.split(';').map((s) => s.trim()).filter(Boolean)) {
    const colon = part.indexOf(':');
    if (colon < 0) throw new Error(`--params: '${part}' is not learner:key=value,…`);
    const learner = part.slice(0, colon);
    const params: Record<string, unknown> = {};
    for (const kv of part.slice(colon + 1).split(',')) {
      const [k, v] = kv.split('=');
      if (!k || v === undefined) throw new Error(`--params: '${kv}' in '${part}' is not key=value`);
      params[k.trim()] = v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v.trim();
    }
    out.set(learner, params);
  }
  return out;
}

type Cell = QualityCell;

const { values: opt } = parseArgs({
  options: {
    sets: { type: 'string' },
    learners: { type: 'string' },
    seeds: { type: 'string' },
    peers: { type: 'string', default: PEERS.join(',') },
    'no-peers': { type: 'boolean', default: false },
    'no-dsgkit': { type: 'boolean', default: false },
    'no-tune': { type: 'boolean', default: false },
    'tune-only': { type: 'boolean', default: false },
    'no-special': { type: 'boolean', default: false },
    'special-only': { type: 'boolean', default: false },
    fresh: { type: 'boolean', default: false },
    'cell-timeout': { type: 'string' },
    'summary-only': { type: 'boolean', default: false },
    'unlabeled-cap': { type: 'string', default: '4000' },
    python: { type: 'string', default: '/usr/bin/python3' },
    cells: { type: 'string' },
    threads: { type: 'string' },
    params: { type: 'string' },
  },
});

const sets = listOption(opt.sets, SETS.map((s) => s.name), 'sets').map((n) => SETS.find((s) => s.name === n)!);
const learners = listOption(opt.learners, LEARNERS.map((l) => l.learner), 'learners').map((n) => LEARNERS.find((l) => l.learner === n)!);
const peers = opt['no-peers'] ? [] : listOption(opt.peers, PEERS, 'peers');
// --seeds: these seeds for every set; by default seeds 1…n for a set of n = BenchSet.seeds (10 for the small ones).
const givenSeeds = opt.seeds?.split(',').map((s) => {
  const v = Number(s);
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`--seeds: '${s}' is not a whole number ≥ 0`);
  return v;
});
const seedsOfSet = (set: BenchSet): number[] => givenSeeds ?? Array.from({ length: set.seeds }, (_, i) => i + 1);
const seeds = [...new Set(sets.flatMap(seedsOfSet))].sort((a, b) => a - b);
const cellTimeout = opt['cell-timeout'] === undefined ? undefined : Number(opt['cell-timeout']);
if (cellTimeout !== undefined && !(cellTimeout > 0)) throw new Error(`--cell-timeout: seconds > 0, got '${opt['cell-timeout']}'`);
const variants = parseVariants(opt.params);
for (const l of variants.keys()) if (!LEARNERS.some((x) => x.learner === l)) throw new Error(`--params: unknown learner '${l}'`);
const modes: ('default' | 'tune')[] = opt['tune-only'] ? ['tune'] : opt['no-tune'] ? ['default'] : ['default', 'tune'];
if (opt['special-only'] && opt['no-special']) throw new Error('--special-only and --no-special leave no dsgkit row to run: give one of them');
const specials: Specials = opt['special-only'] ? 'only' : opt['no-special'] ? 'without' : 'with';
/** Where cells are read and appended: one file per process when several run side by side (a many-core machine), merged afterwards. */
const CELLS = opt.cells ?? QUALITY_CELLS;
const threads = opt.threads === undefined ? undefined : Number(opt.threads);
if (threads !== undefined && !(Number.isSafeInteger(threads) && threads >= 1)) throw new Error(`--threads: a whole number ≥ 1, got '${opt.threads}'`);
const srcTree = srcTreeOf(REPO);

/** The split of `set` for `seed` under `protocol` (see the module comment). */
function makeSplit(raw: Dataset, set: BenchSet, protocol: Protocol, seed: number): { train: Dataset; test: Dataset; rows: number } {
  return qualitySplit(raw, set.name, protocol, seed);
}

async function runDsgkit(m: DsgkitMethod, task: Task, trainSet: Dataset, testSet: Dataset, seed: number): Promise<Pick<Cell, 'metric' | 'accuracy' | 'mae' | 'seconds' | 'params'>> {
  const t0 = performance.now();
  let model: Model;
  let params: Record<string, unknown> | undefined;
  const warnings: string[] = [];
  const signal = cellTimeout !== undefined ? AbortSignal.timeout(cellTimeout * 1000) : undefined;
  const run = { seed, ...(m.variant ?? {}), ...(m.fixed ?? {}), ...(threads !== undefined ? { threads } : {}), onWarning: (w: string) => warnings.push(w), ...(signal ? { signal } : {}) };
  if (m.mode === 'tune') {
    const r = await tune({ learner: m.learner, data: trainSet, ...run, onProgress: () => undefined });
    model = r.model;
    // The chosen σ/σ₀ and the pick's CV gain over the defaults (± se): what docs/tuning.md reports per set.
    // With the pick's CV score and the defaults' (the score ranked by): a change to tune's search shows in both.
    const cv = r.table.find((row) => row.status === 'best')?.score;
    const cvDefaults = r.table.find((row) => row.id === r.defaultsId)?.score;
    params = { ...r.best, ...(r.sigmaRatio !== undefined ? { sigmaRatio: r.sigmaRatio } : {}), overDefaults: r.overDefaults, cv, cvDefaults };
  } else {
    model = await train({ learner: m.learner, data: trainSet, ...run });
    // The default σ's rung (σ/σ₀), when σ came from the data: what docs/learners.md reports per set.
    const chosen = model.header.training.defaultSigma;
    if (chosen !== undefined) params = { sigmaRatio: chosen.ratio };
  }
  const f = await model.decisionFunction(testSet);
  const seconds = (performance.now() - t0) / 1000;
  return { ...heldOut(task, testSet, f, model.labelsFromScores(f)), seconds, ...(params ? { params } : {}) };
}

async function runCells(): Promise<void> {
  mkdirSync(dirname(CELLS), { recursive: true });
  const done = new Map<string, Cell>();
  if (!opt.fresh) for (const c of readCells(CELLS)) if (c.timedOut === undefined && (c.kind === 'peer' || c.srcTree === srcTree)) done.set(cellKey(c), c);
  const raws = new Map<string, Dataset>();
  const started = performance.now();
  // Seed-major: every set gets seed 1 before any gets seed 2, so a stopped run still covers every set.
  for (const seed of seeds) {
    for (const set of sets) {
      if (!seedsOfSet(set).includes(seed)) continue;
      const setLearners = learners.filter((l) => l.task === set.task);
      const protocols = [...new Set(setLearners.map((l) => l.protocol))];
      for (const protocol of protocols) {
        const methods = opt['no-dsgkit'] ? [] : setLearners.filter((l) => l.protocol === protocol).flatMap((l) => dsgkitMethods(l, modes, specials, variants.get(l.learner)));
        const peersTodo = peers.filter((p) => !done.has(cellKey({ set: set.name, protocol, seed, method: p })));
        const dsgTodo = methods.filter((m) => !done.has(cellKey({ set: set.name, protocol, seed, method: m.name })));
        if (peersTodo.length === 0 && dsgTodo.length === 0) continue;
        if (!raws.has(set.name)) {
          if (!existsSync(join(REPO, set.path))) throw new Error(`${set.path} is missing: run \`bash bench/public-data.sh\` first`);
          raws.clear(); // one set in memory at a time
          raws.set(set.name, await readDataset(join(REPO, set.path)));
        }
        const { train: tr, test, rows } = makeSplit(raws.get(set.name)!, set, protocol, seed);
        let labeledTrainRows = 0;
        for (let i = 0; i < tr.n; i++) labeledTrainRows += tr.labeled[i];
        const base = { set: set.name, task: set.task, protocol, seed, rows, trainRows: tr.n, labeledTrainRows, testRows: test.n, srcTree };
        const record = (c: Cell) => {
          appendFileSync(CELLS, JSON.stringify(c) + '\n');
          done.set(cellKey(c), c);
          const min = ((performance.now() - started) / 60000).toFixed(1);
          console.log(`[${min} min] ${set.name} (${protocol}) seed ${seed} ${c.method}: metric ${c.metric.toFixed(4)}, accuracy ${c.accuracy.toFixed(4)}, ${c.seconds.toFixed(1)} s`);
        };
        if (peersTodo.length > 0) {
          const py = await runPythonPeers<PeerRecord>(opt.python!, { dataset: set.path, task: set.task, unlabeledCap: Number(opt['unlabeled-cap']), peers: peersTodo, ...(protocol === 'hide' ? { cvScoring: 'accuracy' as const } : {}) }, [{ seed, train: tr, test }]);
          for (const r of py.records) {
            const m = heldOut(set.task, test, r.scores, r.predicted);
            if (Math.abs(m.metric - r.metric) > 1e-12 || Math.abs(m.accuracy - r.accuracy) > 1e-12) {
              throw new Error(`${set.name} seed ${seed} ${r.method}: Python says metric ${r.metric}, accuracy ${r.accuracy}; dsgkit's metrics say ${m.metric}, ${m.accuracy}`);
            }
            record({ ...base, method: r.method, kind: 'peer', ...m, seconds: r.seconds, params: r.params, loadavg: loadavg(), date: new Date().toISOString() });
          }
        }
        for (const m of dsgTodo) {
          const t0 = performance.now();
          try {
            const r = await runDsgkit(m, set.task, tr, test, seed);
            record({ ...base, method: m.name, kind: 'dsgkit', ...r, ...(process.env.DSGKIT_MACHINE ? { machine: process.env.DSGKIT_MACHINE } : {}), loadavg: loadavg(), date: new Date().toISOString() });
          } catch (e) {
            if (!(e instanceof CancelledError) || cellTimeout === undefined) throw e;
            // Recorded (so the timing table can say "more than"), never aggregated, and retried by the next run.
            record({ ...base, method: m.name, kind: 'dsgkit', metric: NaN, accuracy: NaN, seconds: (performance.now() - t0) / 1000, timedOut: cellTimeout, loadavg: loadavg(), date: new Date().toISOString() });
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------- summary

interface Stat {
  mean: number;
  sd: number;
  n: number;
}
const stat = (v: number[]): Stat => ({ mean: mean(v), sd: v.length > 1 ? sampleSd(v) : 0, n: v.length });
const fmt = (v: number, digits = 3) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const signed = (v: number, digits = 3) => (Number.isFinite(v) ? `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(digits)}` : '—');

/** The measure a learner is judged by: its own metric (AUC, mean threshold AUC, or accuracy). */
const measureName = (learner: string, task: Task) => (measureOf(learner) === 'accuracy' ? 'accuracy' : task === 'ordinal' ? 'mean threshold AUC' : 'AUC');

function summarize(): void {
  const recorded = readCells(CELLS);
  const all = latestCells(recorded);
  const cells = all.filter((c) => c.timedOut === undefined);
  const bySet = new Map<string, Cell[]>();
  for (const c of cells) {
    const k = `${c.set}|${c.protocol}`;
    bySet.set(k, [...(bySet.get(k) ?? []), c]);
  }
  const seedsOf = (list: Cell[], method: string) => new Map(list.filter((c) => c.method === method).map((c) => [c.seed, c]));
  const gapToBestPeer = (list: Cell[], method: string, measure: 'metric' | 'accuracy') => peerGap(list, method, measure, PEERS);

  const setOrder = SETS.map((s) => s.name);
  const groups = [...bySet.entries()].sort(([a], [b]) => setOrder.indexOf(a.split('|')[0]) - setOrder.indexOf(b.split('|')[0]) || a.localeCompare(b));

  // Per set × method aggregate (quality.json).
  const entries = groups.map(([key, list]) => {
    const first = list[0];
    const methods = [...new Set(list.map((c) => c.method))].map((method) => {
      const cs = list.filter((c) => c.method === method).sort((a, b) => a.seed - b.seed);
      return {
        method,
        kind: cs[0].kind,
        seeds: cs.map((c) => c.seed),
        metric: stat(cs.map((c) => c.metric)),
        accuracy: stat(cs.map((c) => c.accuracy)),
        ...(cs.every((c) => c.mae !== undefined) ? { mae: stat(cs.map((c) => c.mae!)) } : {}),
        seconds: stat(cs.map((c) => (c.untimed === undefined ? c.seconds : NaN))),
        params: cs.map((c) => c.params ?? null),
      };
    });
    return { set: first.set, task: first.task, protocol: first.protocol, key, rows: first.rows, trainRows: first.trainRows, labeledTrainRows: first.labeledTrainRows, testRows: first.testRows, methods };
  });

  // Wins / ties / losses against the best peer.
  const wtl: Record<string, unknown>[] = [];
  const gapRows: { set: string; method: string; gap: number; sd: number }[] = [];
  for (const l of LEARNERS) {
    for (const mode of ['tune', 'default'] as const) {
      const method = `${mode === 'tune' ? 'tune ' : ''}${l.learner}`;
      const measure = measureOf(l.learner);
      const per: { set: string; gap: number }[] = [];
      for (const [, list] of groups) {
        if (list[0].protocol !== l.protocol || list[0].task !== l.task) continue;
        const g = gapToBestPeer(list, method, measure);
        if (!g) continue;
        per.push({ set: list[0].set, gap: g.gap });
        gapRows.push({ set: `${list[0].set}${list[0].task === 'ordinal' ? ' (ord.)' : list[0].protocol === 'hide' ? ' (80% hidden)' : ''}`, method, gap: g.gap, sd: g.sdGap });
      }
      if (per.length === 0) continue;
      const t = tally(per, TIE);
      wtl.push({
        learner: l.learner,
        mode: mode === 'tune' ? 'after tune' : 'defaults',
        measure: measureName(l.learner, l.task),
        sets: per.length,
        wins: t.wins,
        ties: t.ties,
        losses: t.losses,
        'mean gap': signed(t.meanGap),
        'worst set': `${t.worst.set} ${signed(t.worst.gap)}`,
      });
    }
  }

  // Learner against its supervised special case (same mode, same seeds).
  const special: Record<string, unknown>[] = [];
  const specialDetail: Record<string, unknown>[] = [];
  for (const l of LEARNERS.filter((x) => x.special)) {
    for (const mode of ['tune', 'default'] as const) {
      const method = `${mode === 'tune' ? 'tune ' : ''}${l.learner}`;
      const sup = `${method} [${l.special!.label}]`;
      const measure = measureOf(l.learner);
      const diffs: { set: string; d: number; semi: number; sup: number; n: number }[] = [];
      for (const [, list] of groups) {
        const a = seedsOf(list, method);
        const b = seedsOf(list, sup);
        const common = [...a.keys()].filter((s) => b.has(s));
        if (common.length === 0) continue;
        const semi = mean(common.map((s) => a.get(s)![measure]));
        const supv = mean(common.map((s) => b.get(s)![measure]));
        diffs.push({ set: list[0].set, d: semi - supv, semi, sup: supv, n: common.length });
      }
      if (diffs.length === 0) continue;
      const t = tally(diffs.map((x) => ({ set: x.set, gap: x.d })), TIE);
      special.push({
        learner: `${method} vs [${l.special!.label}]`,
        measure: measureName(l.learner, l.task),
        sets: diffs.length,
        'unlabeled helps': t.wins,
        ties: t.ties,
        'unlabeled hurts': t.losses,
        'mean difference': signed(t.meanGap, 4),
        'sets exactly equal': diffs.filter((x) => x.d === 0).length,
      });
      for (const x of diffs) specialDetail.push({ learner: method, set: x.set, seeds: x.n, semi: fmt(x.semi, 4), supervised: fmt(x.sup, 4), difference: signed(x.d, 4) });
    }
  }

  // Per-set overview: best peer and each learner (defaults / tune) on its own measure.
  const overview: Record<string, unknown>[] = [];
  for (const [, list] of groups) {
    const { set, task, protocol } = list[0];
    for (const l of LEARNERS.filter((x) => x.task === task && x.protocol === protocol)) {
      const d = gapToBestPeer(list, l.learner, measureOf(l.learner));
      const t = gapToBestPeer(list, `tune ${l.learner}`, measureOf(l.learner));
      if (!d && !t) continue;
      const peer = (t ?? d)!;
      const secs = (m: string) => mean(list.filter((c) => c.method === m && c.untimed === undefined).map((c) => c.seconds));
      overview.push({
        set: `${set}${protocol === 'hide' ? ' (80% hidden)' : ''}`,
        'train rows (labeled)': `${list[0].trainRows.toLocaleString('en-US')} (${list[0].labeledTrainRows.toLocaleString('en-US')})`,
        learner: l.learner,
        measure: measureName(l.learner, task),
        'best peer': `${fmt(peer.peerMean)} ${peer.peer}`,
        defaults: d ? `${fmt(d.value)} (${signed(d.gap)})` : '—',
        'after tune': t ? `${fmt(t.value)} (${signed(t.gap)})` : '—',
        seeds: `${d?.seeds ?? 0}/${t?.seeds ?? 0}`,
        's defaults / tune': `${fmt(secs(l.learner), 1)} / ${fmt(secs(`tune ${l.learner}`), 1)}`,
      });
    }
  }

  // tune vs one train at defaults on the largest set where both ran.
  // A tune cell that ran out of --cell-timeout counts here as "more than" its time.
  const timing: Record<string, unknown>[] = [];
  // Every recorded cell (not only the latest), so a tune cell meets a defaults cell of its own src tree and machine.
  const withTimeouts = new Map<string, Cell[]>();
  for (const c of recorded) withTimeouts.set(`${c.set}|${c.protocol}`, [...(withTimeouts.get(`${c.set}|${c.protocol}`) ?? []), c]);
  for (const l of LEARNERS) {
    // The newest tune code only: the src tree of the learner's most recent tune cell.
    const tuneCells = [...withTimeouts.values()].flat().filter((c) => c.method === `tune ${l.learner}` && c.untimed === undefined);
    if (tuneCells.length === 0) continue;
    const tree = tuneCells.reduce((a, b) => (b.date > a.date ? b : a)).srcTree;
    const candidates = [...withTimeouts.values()]
      .map((list) => list.filter((c) => (c.srcTree === tree || c.kind === 'peer') && c.untimed === undefined))
      .filter((list) => list.length > 0 && list[0].task === l.task && list[0].protocol === l.protocol && list.some((c) => c.method === `tune ${l.learner}`) && list.some((c) => c.method === l.learner && c.timedOut === undefined));
    if (candidates.length === 0) continue;
    const largest = candidates.reduce((a, b) => (b[0].trainRows > a[0].trainRows ? b : a));
    const tuneSeeds = new Set(largest.filter((c) => c.method === `tune ${l.learner}`).map((c) => c.seed));
    const tuned = [...new Map(largest.filter((c) => c.method === `tune ${l.learner}`).map((c) => [c.seed, c])).values()];
    const sameRun = (c: Cell) => tuned.some((t) => t.seed === c.seed && t.srcTree === c.srcTree && t.machine === c.machine);
    const def = mean(largest.filter((c) => c.method === l.learner && c.timedOut === undefined && tuneSeeds.has(c.seed) && sameRun(c)).map((c) => c.seconds));
    const tun = mean(tuned.map((c) => c.seconds));
    const more = tuned.some((c) => c.timedOut !== undefined) ? '> ' : '';
    timing.push({ learner: l.learner, set: largest[0].set, 'train rows': largest[0].trainRows.toLocaleString('en-US'), seeds: tuned.length, 'train at defaults, s': fmt(def, 1), 'tune, s': `${more}${fmt(tun, 1)}`, ratio: `${more}${fmt(tun / def, 1)}×`, 'load average': fmt(mean(tuned.map((c) => c.loadavg[0])), 1) });
  }

  const peerRows: Record<string, unknown>[] = [];
  for (const e of entries) {
    for (const m of e.methods.filter((x) => x.kind === 'peer')) {
      peerRows.push({ set: `${e.set}${e.protocol === 'hide' ? ' (80% hidden)' : ''}`, peer: m.method, metric: `${fmt(m.metric.mean)} ± ${fmt(m.metric.sd)}`, accuracy: `${fmt(m.accuracy.mean)} ± ${fmt(m.accuracy.sd)}`, 's / seed': fmt(m.seconds.mean, 1), seeds: m.metric.n });
    }
  }

  const svg =
    gapRows.length > 0
      ? dotPlotSvg({
          title: `Each learner minus the best peer per set (its own measure: AUC, mean threshold AUC or accuracy), mean ± sd over seeds; ties within ±${TIE}`,
          xLabel: 'learner − best peer',
          groups: [...new Set(gapRows.map((r) => r.set))].map((set) => ({ name: set, rows: gapRows.filter((r) => r.set === set).map((r) => ({ series: r.method, mean: r.gap, sd: r.sd })) })),
          width: 960,
        })
      : undefined;
  const srcTrees = [...new Set(cells.filter((c) => c.kind === 'dsgkit').map((c) => c.srcTree))];
  const seedList = (list: Cell[]) => [...new Set(list.map((c) => c.seed))].sort((a, b) => a - b).join(',') || '–';
  const coverage = SETS.map((set) => {
    const list = cells.filter((c) => c.set === set.name);
    if (list.length === 0) return `${set.name} not run`;
    const peersOf = list.filter((c) => c.kind === 'peer');
    const defaults = list.filter((c) => c.kind === 'dsgkit' && !c.method.startsWith('tune '));
    const tuned = list.filter((c) => c.method.startsWith('tune '));
    return `${set.name} ${seedList(peersOf)} / ${seedList(defaults)} / ${seedList(tuned)}`;
  }).join('; ');
  const out = writeBenchOutputs(
    'quality',
    {
      description:
        'bench/quality.ts: dsgkit learners (defaults, tune, supervised special cases) against scikit-learn peers on identical splits of public sets. metric: held-out AUC (binary) or mean threshold AUC (ordinal); accuracy; mean ± sample sd over seeds; seconds per seed include search and scoring the test rows. Protocol labeled: 20% test, 200 labeled training rows; hide: 20% test, 80% of training labels hidden, on at most 6,250 rows.',
      command: 'npm run bench:quality',
      machine: { cores: availableCores(), cpu: cpus()[0]?.model, loadavg: loadavg() },
      srcTrees,
      tie: TIE,
      winsTiesLosses: wtl,
      specialCase: special,
      specialCaseDetail: specialDetail,
      tuneVsTrain: timing,
      entries,
    },
    svg,
  );

  const md = `# Quality benchmark: dsgkit against scikit-learn peers on public data

Made by \`npm run bench:quality\` (bench/quality.ts; data: \`bash bench/public-data.sh\`,
provenance and label codings in bench/README.md § Public datasets). Numbers:
bench/results/quality.json; every run's cells: bench/results/quality-cells.jsonl.
Picture: [bench/results/quality.svg](../bench/results/quality.svg).

**Protocol.** The split is dsgkit's \`splitDataset\`, seeds 1–3 of each set, 1–${SMALL_SET_SEEDS} of a set
whose held-out 20% is fewer than 200 rows (ionosphere, musk, breast cancer, pima, diabetes, boston:
there one row moves a seed's accuracy by 0.006–0.014) or holds fewer than 200 of a rare positive class
(hmda 57, lending 103: an AUC is as noisy as its rarer class); the coverage line below says which seeds ran:
20% of the rows held out (stratified); binary and ordinal learners get 200
labeled training rows and the rest of the training rows unlabeled; the graph
learners (GKM, LapSVM) get 80% of the training labels hidden, on a seeded
sample of at most ${HIDE_MAX_ROWS.toLocaleString('en-US')} rows. The peers (bench/README.md, bench/peers/run_peers.py)
run on the identical rows: RBF SVC with C and γ by 5-fold CV on the labeled
rows, LabelSpreading (RBF on ≤ 4,000 rows, and kNN on all), self-training
around the SVC, and RBFSampler + SGD (their CV scored by AUC, or by accuracy
under the 80%-hidden protocol whose learners are judged by accuracy); scored by AUC (binary) or the mean
threshold AUC (ordinal) and by accuracy. Each learner is judged by its own
measure — AUC (QSG-S2AUC, DSG), mean threshold AUC (QS3ORAO, SORAO), accuracy
(TSGS3VM, FRS3VM, GKM, LapSVM) — against the peer best on that measure on
that set (a **tie** is within ±${TIE}). \`tune\` is the public \`tune()\` at its
defaults, as a user runs it. A learner's supervised special case fixes the
parameter that switches its unlabeled term off (QSG-S2AUC and QS3ORAO γ = 1,
TSGS3VM and FRS3VM C* = 0, GKM and LapSVM C′ = 0), tuned over the rest.
Times are seconds per seed on ${availableCores()} cores shared with other jobs, or, for cells whose \`machine\` field says so in the cells file, on a lent 16-core Xeon running a cell per process, on one thread unless that field names more (read them within a set and a machine; the tune-against-train table pairs cells of one src tree and machine). A time shown as — is of cells whose process was stopped for a while (their \`untimed\` field says why): their seconds are no timing.

dsgkit source: \`git rev-parse HEAD:src\` = ${srcTrees.join(', ') || '—'}.

**Coverage** (seeds with results, peers / dsgkit at defaults / tuned): ${coverage}.

## Wins / ties / losses against the best peer

${wtl.length ? markdownTable(wtl) : '(no dsgkit cells yet)'}

## What the unlabeled rows bought: each learner against its supervised special case

Difference = learner − its special case on the same seeds (> ${TIE}: the unlabeled rows helped).

${special.length ? markdownTable(special) : '(none yet)'}

<details><summary>Per set</summary>

${specialDetail.length ? markdownTable(specialDetail) : ''}

</details>

## tune against one train at defaults (largest set where both ran)

${timing.length ? markdownTable(timing) : '(tune has not run yet)'}

## Per set: best peer and each learner (value and gap to the best peer)

Seeds: how many seeds the defaults / the tuned row have.

${overview.length ? markdownTable(overview) : ''}

## The peers

${peerRows.length ? markdownTable(peerRows) : ''}
`;
  mkdirSync(dirname(DOC), { recursive: true });
  writeFileSync(DOC, md);
  console.log(markdownTable(wtl.length ? wtl : [{ note: 'no dsgkit cells' }]));
  console.log(`wrote ${out.json}${out.svg ? `, ${out.svg}` : ''} and ${DOC}`);
}

if (!opt['summary-only']) await runCells();
// A side file (--cells) holds a part of a run: it is merged into the main file, which the summary reads.
if (opt.cells === undefined) summarize();
