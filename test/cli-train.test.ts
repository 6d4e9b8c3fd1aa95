import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromArrays, tableFromIPC, tableToIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from '../src/api.ts';
import { formatDuration, remainingMs } from '../src/cli/progress.ts';
import { readArrow, writeArrow } from '../src/data/arrow.ts';
import { makeDataset, selectRows } from '../src/data/dataset.ts';
import { splitDataset } from '../src/data/split.ts';
import { LEARNERS, learnerSpec, resolveParams } from '../src/api.ts';
import { cliName, defaultText } from '../src/learners/params.ts';
import { poolTasksCompleted } from '../src/engine/pool.ts';
import { runCli, writeBreastCancerSplit } from './support/cli.ts';

const DEFAULTS = resolveParams(learnerSpec('qsg-s2auc'), {});

const bcPath = new URL('../data/breast_cancer.arrow', import.meta.url).pathname;
const spamPath = new URL('../data/spam.arrow', import.meta.url).pathname;
/** Tiny runs: each training here takes well under a second. */
const TINY = ['--iterations', '30', '--batch-size', '16', '--random-features', '16', '--threads', '1'];

let dir: string;
let trainFile: string;
let testFile: string;
let modelFile: string;
let trainOut: { code: number; out: string; err: string };

/** Runs the CLI in-process, capturing what it writes; `onErr` sees each stderr write. */
const run = (argv: string[], onErr?: (s: string) => void) => runCli(argv, onErr);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-cli-train-'));
  ({ trainFile, testFile } = await writeBreastCancerSplit(dir));
  modelFile = join(dir, 'bc.dsg');
  trainOut = await run(['train', '--learner', 'qsg-s2auc', '--data', trainFile, '--out', modelFile, '--validation', testFile, ...TINY]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('dsgkit train', () => {
  it('writes a model that load() reads back, and prints a summary', async () => {
    expect(trainOut.code).toBe(0);
    expect(existsSync(modelFile)).toBe(true);
    const model = await load(modelFile);
    expect(model.learner).toBe('qsg-s2auc');
    expect(model.header.predictor).toMatchObject({ kind: 'random-features', history: { t: 30 } });
    expect(model.header.training).toMatchObject({ rows: 455, labeledRows: 100, data: trainFile });
    expect(trainOut.out).toMatch(/learner\s+qsg-s2auc/);
    expect(trainOut.out).toMatch(/rows\s+455 \(100 labeled, 355 unlabeled\)/);
    expect(trainOut.out).toMatch(/iterations\s+30\n/);
    expect(trainOut.out).toMatch(/threads\s+1\n/);
    expect(trainOut.out).toMatch(/validation\s+AUC 0\.\d{4} at t = 30/);
    expect(trainOut.out).toContain(`model       ${modelFile}`);
  });

  it('FRS3VM: the summary says how many SGD steps its epochs made, at least 40 a pass on a small set', async () => {
    // 355 unlabeled rows at B = 64: a pass is 6 steps, so 2 epochs are 80 steps, not 12.
    const out = join(dir, 'frs.dsg');
    const r = await run(['train', '--learner', 'frs3vm', '--data', trainFile, '--out', out, '--epochs', '2', '--random-features', '8', '--blocks', '2', '--threads', '1', '--quiet']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/SGD steps\s+80 \(2 epochs: passes over the unlabeled rows, at least 40 steps each; --epochs sets them\)/);
    expect((await load(out)).header.hyperparameters.iterations).toBe(80);
  });

  it('off a terminal, reports progress as one line per tenth of the run, with the validation AUC', () => {
    const lines = trainOut.err.split('\n').filter((l) => /^qsg-s2auc: +\d+% \(\d+\/30 iterations\)/.test(l));
    expect(lines.map((l) => Number(/(\d+)%/.exec(l)![1]))).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(lines.at(-1)).toMatch(/it\/s, elapsed .*validation AUC 0\.\d{4} \(t = 30\)/);
    expect(lines[0]).toMatch(/ETA /);
  });

  it('--quiet prints no progress; a dsg model trains with the options given (a negative --positive needs no "=")', async () => {
    const out = join(dir, 'dsg.dsg');
    const r = await run(['train', '--learner', 'dsg', '--data', trainFile, '--out', out, '--quiet', '--loss', 'logistic', '--positive', '-1', ...TINY]);
    expect(r).toMatchObject({ code: 0, err: '' });
    const model = await load(out);
    expect(model.header.hyperparameters).toMatchObject({ loss: 'logistic', T: 30, batchSize: 16 });
    expect(model.header.task).toMatchObject({ positive: -1, negative: 1 });
  });

  it('--threads and --cache-mb never change the model: 1 thread with the cache and 2 threads (the pool proven used) without give the same file', async () => {
    const a = join(dir, 'a.dsg');
    const b = join(dir, 'b.dsg');
    // T = 120, 3·32 points, m = 16: the later iterations (96 points × 100+ blocks × 16 × 38 ≈ 6e6 work) are above the
    // parallel crossover (3e6), so the 2-thread run hands chunks to the worker pool — checked by the pool's task counter.
    const common = ['train', '--learner', 'qsg-s2auc', '--data', trainFile, '--quiet', '--iterations', '120', '--batch-size', '32', '--random-features', '16'];
    expect((await run([...common, '--out', a, '--threads', '1'])).code).toBe(0);
    const before = poolTasksCompleted();
    expect((await run([...common, '--out', b, '--threads', '2', '--cache-mb', '0'])).code).toBe(0);
    expect(poolTasksCompleted()).toBeGreaterThan(before);
    expect((await readFile(b)).equals(await readFile(a))).toBe(true);
    const [ma, mb] = [await load(a), await load(b)];
    const test = await readArrow(testFile);
    expect(Array.from(await mb.decisionFunction(test, { threads: 1 }))).toEqual(Array.from(await ma.decisionFunction(test, { threads: 1 })));
  });

  it('warns (on stderr, prefixed) when θλ leaves (1, 2)', async () => {
    const out = join(dir, 'warn.dsg');
    const r = await run(['train', '--learner', 'dsg', '--data', trainFile, '--out', out, '--quiet', '--theta', '1', '--lambda', '0.5', ...TINY]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^dsgkit: warning: θλ = 0\.5 is outside \(1, 2\)/);
  });

  it('Ctrl-C (SIGINT) mid-run cancels: exit 130, the iteration count in the message, no model and no temp file', async () => {
    const out = join(dir, 'cancelled.dsg');
    const before = await readdir(dir);
    const listeners = process.listenerCount('SIGINT');
    let sent = false;
    // The first progress line (10%, t = 20) triggers the signal, through the same process listener a real Ctrl-C reaches.
    const r = await run(['train', '--learner', 'qsg-s2auc', '--data', trainFile, '--out', out, ...TINY, '--iterations', '200'], (s) => {
      if (!sent && / 10% /.test(s)) {
        sent = true;
        process.emit('SIGINT');
      }
    });
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    expect(r.err).toMatch(/dsgkit: training cancelled after 20 of 200 iterations\n$/);
    expect(r.out).toBe('');
    expect(existsSync(out)).toBe(false);
    expect(await readdir(dir)).toEqual(before);
    expect(process.listenerCount('SIGINT')).toBe(listeners); // the handler is gone once the command returns
  });

  it('Ctrl-C during the exact O(n³) solve stops it there (its own thread), not after it: exit 130, no model', async () => {
    // 1,000 rows of spam: a solve of several seconds, during which the calling thread stays free for the signal.
    const spam = await readArrow(spamPath);
    const rows = selectRows(spam, Array.from({ length: 1000 }, (_, i) => 4 * i));
    const file = join(dir, 'spam-1000.arrow');
    await writeArrow(file, splitDataset(rows, { labeled: 100, seed: 1 }).train);
    const out = join(dir, 'exact-cancelled.dsg');
    const timer = setTimeout(() => process.emit('SIGINT'), 300);
    const r = await run(['train', '--learner', 'exact-s2auc', '--data', file, '--out', out, '--quiet']);
    clearTimeout(timer);
    expect(r.code).toBe(130);
    // Solved on the calling thread, the timer would fire only after the solve, and the message would be the
    // loop's "after 0 iterations".
    expect(r.err).toMatch(/dsgkit: training cancelled during the exact solve \(1000 rows\), before the model was kept\n$/);
    expect(existsSync(out)).toBe(false);
  });

  const bad: [string, string[], RegExp][] = [
    ['unknown learner', ['--learner', 'svm'], /--learner: unknown learner 'svm' \(expected one of qsg-s2auc, dsg, /],
    ['negative lambda', ['--learner', 'dsg', '--lambda', '-1'], /--lambda must be a number in \(0, ∞\), got '-1'/],
    ['non-numeric sigma', ['--learner', 'dsg', '--sigma', 'wide'], /--sigma must be a number in \(0, 1000000\], got 'wide'/],
    ['non-integer threads', ['--learner', 'dsg', '--threads', '1.5'], /--threads must be a whole number ≥ 1, got '1.5'/],
    ['zero iterations', ['--learner', 'dsg', '--iterations', '0'], /--iterations must be a whole number in \[1, 10000000\], got '0'/],
    ['gamma out of [0, 1]', ['--learner', 'qsg-s2auc', '--gamma', '2'], /--gamma must be a number in \[0, 1\], got '2'/],
    ['gamma for dsg', ['--learner', 'dsg', '--gamma', '0.5'], /--gamma applies to qsg-s2auc, exact-s2auc, qs3orao only \(training: dsg\)/],
    ['constant step without eta', ['--learner', 'dsg', '--step', 'constant'], /--step constant needs --eta/],
    ['eta without constant step', ['--learner', 'dsg', '--eta', '0.1'], /--eta applies to --step constant only/],
    ['unknown kernel', ['--learner', 'dsg', '--kernel', 'poly'], /--kernel must be one of rbf, laplacian, got 'poly'/],
    ['unknown loss', ['--learner', 'dsg', '--loss', 'l1'], /--loss must be one of hinge, logistic, square, got 'l1'/],
    ['seed too large', ['--learner', 'dsg', '--seed', '5000000000'], /--seed must be a whole number in \[0, 4294967295\]/],
    ['missing --out', ['--learner', 'dsg'], /missing required option --out/],
    ['--validate-every without --validation', ['--learner', 'dsg', '--validate-every', '5'], /--validate-every needs --validation <file>/],
    ['negative cache budget', ['--learner', 'dsg', '--cache-mb', '-1'], /--cache-mb must be a number in \[0, ∞\), got '-1'/],
  ];
  it.each(bad)('exits 2 on %s, naming the option, before reading any data', async (name, args, message) => {
    const out = join(dir, 'never.dsg');
    const argv = ['train', '--data', join(dir, 'does-not-exist.arrow'), ...args, ...(name === 'missing --out' ? [] : ['--out', out])];
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toContain("Run 'dsgkit train --help' for usage.");
    expect(existsSync(out)).toBe(false);
  });

  it('exits 2 when the output directory does not exist, 1 when the data has one class only or no unlabeled rows for qsg-s2auc', async () => {
    const r = await run(['train', '--learner', 'dsg', '--data', trainFile, '--out', join(dir, 'no', 'such', 'dir', 'm.dsg'), ...TINY]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--out: directory '.*no\/such\/dir' does not exist/);
    const ds = await readArrow(trainFile);
    const negatives = selectRows(ds, Array.from({ length: ds.n }, (_, i) => i).filter((i) => ds.y[i] !== 1));
    const oneClass = join(dir, 'one-class.arrow');
    await writeArrow(oneClass, negatives);
    const out = join(dir, 'one-class.dsg');
    const r1 = await run(['train', '--learner', 'dsg', '--data', oneClass, '--out', out, ...TINY]);
    expect(r1.code).toBe(1);
    expect(r1.err).toMatch(/one-class\.arrow: column 'label': no labeled rows of the negative class/);
    expect(existsSync(out)).toBe(false);
    // qsg-s2auc on fully labeled data (γ < 1 needs unlabeled rows) is a data problem, not a crash.
    const r2 = await run(['train', '--learner', 'qsg-s2auc', '--data', testFile, '--out', out, ...TINY]);
    expect(r2.code).toBe(1);
    expect(r2.err).toMatch(/bc-test\.arrow: column 'label': QSG-S2AUC with γ = 0.9 needs unlabeled rows .*every row is labeled/);
    expect((await run(['train', '--learner', 'qsg-s2auc', '--data', testFile, '--out', out, '--gamma', '1', '--quiet', ...TINY])).code).toBe(0);
  });
});

describe('dsgkit predict', () => {
  it('writes score and predicted (and the label column) for every row; scores are the model\u2019s f(x)', async () => {
    const out = join(dir, 'scores.arrow');
    const r = await run(['predict', '--model', modelFile, '--data', testFile, '--out', out, '--threads', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/wrote .*scores\.arrow: 114 rows \(score, predicted, label\)/);
    const table = tableFromIPC(await readFile(out));
    expect(table.numRows).toBe(114);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['score', 'predicted', 'label']);
    const score = table.getChild('score')!.toArray() as Float64Array;
    const predicted = table.getChild('predicted')!.toArray() as Float64Array;
    const model = await load(modelFile);
    const test = await readArrow(testFile);
    expect(Array.from(score)).toEqual(Array.from(await model.decisionFunction(test, { threads: 1 })));
    const task = model.header.task;
    if (task.kind !== 'binary') throw new Error('expected a binary model');
    const { positive, negative, threshold } = task;
    for (let i = 0; i < score.length; i++) expect(predicted[i]).toBe(score[i] > threshold ? positive : negative);
    expect(Array.from(table.getChild('label')!.toArray() as Float64Array)).toEqual(Array.from(test.y));
  });

  it('scores a file without a label column (only score and predicted come out)', async () => {
    const test = await readArrow(testFile);
    // An Arrow file with the feature columns only (predict streams it: the label column is copied when there is one).
    const unlabeled = join(dir, 'unlabeled.arrow');
    const columns = Object.fromEntries(test.featureNames.map((name, k) => [name, Float64Array.from({ length: test.n }, (_, i) => test.X[i * test.d + k])]));
    await writeFile(unlabeled, tableToIPC(tableFromArrays(columns), 'file'));
    const out = join(dir, 'unlabeled-scores.arrow');
    const r = await run(['predict', '--model', modelFile, '--data', unlabeled, '--out', out]);
    expect(r.code).toBe(0);
    const table = tableFromIPC(await readFile(out));
    expect(table.schema.fields.map((f) => f.name)).toEqual(['score', 'predicted']);
    expect(table.numRows).toBe(test.n);
  });

  it('exits 1 with the model error when the data has other features, and writes nothing', async () => {
    const out = join(dir, 'mismatch.arrow');
    const r = await run(['predict', '--model', modelFile, '--data', spamPath, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^dsgkit: .*spam\.arrow: the model expects 30 features \(mean_radius, .*\), the data has 57/);
    expect(existsSync(out)).toBe(false);
  });

  it('exits 1 on an unreadable model file, 2 on an --out of unknown type', async () => {
    const r = await run(['predict', '--model', join(dir, 'missing.dsg'), '--data', testFile, '--out', join(dir, 'x.arrow')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/missing\.dsg: cannot read model file \(ENOENT\)/);
    expect((await run(['predict', '--model', modelFile, '--data', testFile, '--out', join(dir, 'x.txt')])).code).toBe(2);
  });
});

describe('dsgkit evaluate', () => {
  it('prints AUC, accuracy, F1 and counts on the held-out rows; the AUC is high on breast cancer', async () => {
    const r = await run(['evaluate', '--model', modelFile, '--data', testFile, '--threads', '1']);
    expect(r.code).toBe(0);
    const aucValue = Number(/^AUC\s+([\d.]+)$/m.exec(r.out)![1]);
    expect(aucValue).toBeGreaterThan(0.8);
    expect(r.out).toMatch(/^accuracy\s+0\.\d{4}$/m);
    expect(r.out).toMatch(/^F1\s+0\.\d{4}$/m);
    expect(r.out).toMatch(/114 labeled rows \(1: 42, other: 72\)/);
    const j = JSON.parse((await run(['evaluate', '--model', modelFile, '--data', testFile, '--json'])).out);
    expect(j.auc.toFixed(4)).toBe(aucValue.toFixed(4));
    expect(j.tp + j.fp + j.tn + j.fn).toBe(114);
    expect(j.accuracy).toBeCloseTo((j.tp + j.tn) / 114, 12);
    expect(j.f1).toBeCloseTo((2 * j.tp) / (2 * j.tp + j.fp + j.fn), 12);
  });

  it('exits 1 with a clear message when no row is labeled, or only one class is', async () => {
    const test = await readArrow(testFile);
    const none = join(dir, 'none-labeled.arrow');
    await writeArrow(none, makeDataset({ X: test.X, d: test.d, y: new Float64Array(test.n).fill(NaN), featureNames: test.featureNames }));
    const r0 = await run(['evaluate', '--model', modelFile, '--data', none]);
    expect(r0.code).toBe(1);
    expect(r0.err).toMatch(/none-labeled\.arrow: column 'label': no labeled rows to evaluate on/);
    const pos = join(dir, 'positives.arrow');
    await writeArrow(pos, selectRows(test, Array.from({ length: test.n }, (_, i) => i).filter((i) => test.y[i] === 1)));
    const r1 = await run(['evaluate', '--model', modelFile, '--data', pos]);
    expect(r1.code).toBe(1);
    expect(r1.err).toMatch(/positives\.arrow: column 'label': the labeled rows are of one class only \(1\)/);
  });
});

describe('dsgkit compare', () => {
  it('trains both learners on one split and prints the split and a row per learner', async () => {
    const r = await run(['compare', '--data', bcPath, '--labeled', '50', '--test', '0.2', '--seed', '2', '--quiet', ...TINY]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/split\s+seed 2: train 455 rows \(50 labeled, 405 unlabeled\), test 114 labeled rows/);
    expect(r.out).toMatch(/T = 30, seed 2; 1 thread/);
    // σ's default comes from the training split: the line names its value.
    expect(r.out).toMatch(/settings\s+rbf kernel σ = \d+(\.\d+)? \(σ₀·2\^k by kernel–target alignment\), λ = 0\.01/);
    expect(r.out).toMatch(/learner\s+test AUC\s+accuracy\s+F1\s+train time/);
    expect(r.out).toMatch(/^qsg-s2auc\s+0\.\d{4}\s+0\.\d{4}\s+0\.\d{4}\s+\d+/m);
    expect(r.out).toMatch(/^dsg\s+0\.\d{4}\s+0\.\d{4}\s+0\.\d{4}\s+\d+/m);
  });

  it('names every default in the settings line, the ones taken from the data included (C* and π of the semi-supervised SVM), each learner\'s own where they differ', async () => {
    const s3vms = await run(['compare', '--data', bcPath, '--labeled', '50', '--learners', 'tsgs3vm,frs3vm', '--quiet', ...TINY]);
    expect(s3vms.code, s3vms.err).toBe(0);
    expect(s3vms.out).toMatch(/scaling\s+each feature over its 2%–98% quantiles of the training rows, clipped into \[0, 1\] \(--clip-quantile 0\.02\)\n/);
    expect(s3vms.out).toMatch(/settings\s+rbf kernel σ = \d+(\.\d+)? \(σ₀·2\^k by kernel–target alignment\), C = 300 \(tsgs3vm\), C = 100 \(frs3vm\), C\* = C\/10, u = shg, .*π = the labeled rows' share/);
    // One scaling for both: one σ, untagged.
    const same = await run(['compare', '--data', bcPath, '--labeled', '50', '--learners', 'tsgs3vm,frs3vm', '--clip-quantile', '0', '--quiet', ...TINY]);
    expect(same.code, same.err).toBe(0);
    expect(same.out).toMatch(/scaling\s+each feature over its minimum to maximum on the training rows\n/);
    expect(same.out).toMatch(/settings\s+rbf kernel σ = \d+(\.\d+)? \(σ₀·2\^k by kernel–target alignment\), C = 300 \(tsgs3vm\)/);
    // Given on the command line, one value for both: one part, untagged.
    const given = await run(['compare', '--data', bcPath, '--labeled', '50', '--learners', 'tsgs3vm,frs3vm', '--c', '10', '--quiet', ...TINY]);
    expect(given.code, given.err).toBe(0);
    expect(given.out).toMatch(/\(σ₀·2\^k by kernel–target alignment\), C = 10, C\* = C\/10,/);
  });

  it('--json gives the same split and one result per learner, in --learners order, with progress labelled by learner', async () => {
    const r = await run(['compare', '--data', bcPath, '--labeled', '50', '--learners', 'dsg,qsg-s2auc', '--json', ...TINY]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.split).toEqual({ seed: DEFAULTS.seed, train: 455, labeled: 50, unlabeled: 405, test: 114 });
    expect(j.results.map((x: { learner: string }) => x.learner)).toEqual(['dsg', 'qsg-s2auc']);
    for (const x of j.results) {
      expect(x.auc).toBeGreaterThan(0.5);
      expect(x.labeled).toBe(114);
      expect(x.trainSeconds).toBeGreaterThan(0);
    }
    expect(r.err).toMatch(/^dsg: 100% \(30\/30 iterations\)/m);
    expect(r.err).toMatch(/^qsg-s2auc: 100% \(30\/30 iterations\)/m);
  });

  it('exits 2 on an unknown learner in --learners, 1 when more labeled rows are asked for than exist', async () => {
    const r = await run(['compare', '--data', bcPath, '--learners', 'qsg-s2auc,svm']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--learners: unknown learner 'svm'/);
    const r1 = await run(['compare', '--data', bcPath, '--labeled', '1000', ...TINY]);
    expect(r1.code).toBe(1);
    expect(r1.err).toMatch(/breast_cancer\.arrow: asked for 1000 labeled training rows but only 455 labeled rows remain/);
  });
});

describe('help', () => {
  it('each training command documents every registered parameter on its own line, with the default from its declaration, and an example', async () => {
    for (const cmd of ['train', 'compare']) {
      const h = (await run([cmd, '--help'])).out;
      for (const option of ['--step', '--theta', '--eta', '--eta0', '--eta1', '--positive', '--label', '--threads', '--cache-mb', '--validate-every', '--quiet']) {
        expect(h, `${cmd} --help mentions ${option}`).toMatch(new RegExp(`^  ${option}(?![\\w-])`, 'm'));
      }
      for (const spec of LEARNERS) {
        for (const [key, param] of Object.entries(spec.params)) {
          // The option's own line carries its default: a default on another option's line does not count.
          // (An option two learners declare differently, e.g. GKM's own T, has one line per declaration.)
          const own = h.split('\n').filter((l) => new RegExp(`^  --${cliName(key, param)} `).test(l));
          expect(own.length, `${cmd} --help has a line for --${cliName(key, param)}`).toBeGreaterThan(0);
          expect(own.some((l) => l.includes(`(default: ${defaultText(param)})`)), `${cmd} --help: --${cliName(key, param)} (default: ${defaultText(param)}) in ${JSON.stringify(own)}`).toBe(true);
        }
      }
      expect(h).toContain('Example');
    }
    expect((await run(['compare', '--help'])).out).toContain('dsgkit compare --data data/spam.arrow --labeled 200');
    for (const cmd of ['predict', 'evaluate']) expect((await run([cmd, '--help'])).out).toMatch(/Example:\n {2}dsgkit train .*data\/breast_cancer-train\.arrow/);
    const top = (await run(['--help'])).out;
    for (const cmd of ['train', 'predict', 'evaluate', 'compare']) expect(top).toMatch(new RegExp(`^  ${cmd} +\\S`, 'm'));
  });
});

describe('ETA of an O(T²) run', () => {
  it('assumes per-iteration cost grows linearly in t (not the average rate, which would be far too optimistic)', () => {
    // A run whose time to reach t is exactly c·t² (cost 2c·t per iteration) is predicted exactly, with or without the current cost.
    const c = 0.01;
    for (const t of [10, 100, 300]) {
      expect(remainingMs(t, 400, c * t * t)).toBeCloseTo(c * (400 * 400 - t * t), 9);
      expect(remainingMs(t, 400, c * t * t, 2 * c * t)).toBeCloseTo(c * (400 * 400 - t * t), 9);
    }
    // Cost a + b·s per iteration (a fixed part, as short runs have): elapsed a·t + b·t²/2, current cost a + b·t.
    const [a, b, t, T] = [5, 0.01, 100, 400];
    expect(remainingMs(t, T, a * t + (b * t * t) / 2, a + b * t)).toBeCloseTo(a * (T - t) + (b * (T * T - t * t)) / 2, 9);
    expect(remainingMs(400, 400, 1234)).toBe(0);
    expect(formatDuration(245_000)).toBe('4 min 05 s');
  });
});

describe('the exact solver through the CLI', () => {
  it('trains a kernel-expansion model, saves it, and evaluate scores it', async () => {
    const out = join(dir, 'exact.dsg');
    const r = await run(['train', '--learner', 'exact-s2auc', '--data', trainFile, '--out', out, '--quiet', '--threads', '1']);
    expect(r.code, r.err).toBe(0);
    const model = await load(out);
    expect(model.header.predictor).toMatchObject({ kind: 'kernel-expansion', n: 455 });
    const e = await run(['evaluate', '--model', out, '--data', testFile]);
    expect(e.code, e.err).toBe(0);
    expect(Number(/AUC +(0\.\d+)/.exec(e.out)![1])).toBeGreaterThan(0.95);
  }, 60_000);
});
