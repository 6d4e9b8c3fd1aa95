/**
 * Child process of test/gkm.test.ts: trains GKM on n rows (large enough that an
 * n × n matrix of doubles would exceed 2 GiB) and prints its peak RSS in bytes
 * as JSON: `{ n, supportVectors, maxRssBytes }`.
 *
 * Usage: node --import tsx test/support/gkm-rss.ts N T
 */
import seedrandom from 'seedrandom';
import { makeDataset } from '../../src/data/dataset.ts';
import { fitGraphMachine, graphSettings } from '../../src/learners/graph-kernel-machine.ts';

const n = Number(process.argv[2]);
const T = Number(process.argv[3]);
const d = 4;
const rng = seedrandom('gkm-rss');
const X = new Float64Array(n * d);
const y = new Float64Array(n);
for (let i = 0; i < n; i++) {
  let s = 0;
  for (let k = 0; k < d; k++) s += (X[i * d + k] = rng());
  y[i] = i % 10 === 0 ? (s > d / 2 ? 1 : -1) : NaN; // 10% labeled
}
const ds = makeDataset({ X, y, d });
const fit = await fitGraphMachine(ds, 1, graphSettings({ sigma: 1, C: 64, T, batchSize: 1, seed: 1, loss: 'hinge', p: 1 }), { engine: { threads: 1 } });
console.log(JSON.stringify({ n, labeled: ds.labeled.reduce((a, v) => a + v, 0), supportVectors: fit.expansion.c.length, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
