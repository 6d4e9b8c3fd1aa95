/**
 * The graph GKM and LapSVM draw their edges from (the approximate k-NN graph of
 * knn-graph.ts, KnnEdges), the budget rule, and the property the graph exists
 * for: the unlabeled term changes the held-out predictions.
 */
import { describe, expect, it } from 'vitest';
import { train } from '../src/api.ts';
import { readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { MinMaxScaler } from '../src/data/scaler.ts';
import { samplingRng } from '../src/coordinator/loop.ts';
import { defaultGraphC, graphBudget, graphSettings } from '../src/learners/graph-kernel-machine.ts';
import { KnnEdges } from '../src/learners/graph-edges.ts';
import { knnGraph } from '../src/learners/knn-graph.ts';
import { defaultSigma } from '../src/train/defaults.ts';

async function scaledBreastCancer(): Promise<Dataset> {
  const raw = await readDataset('data/breast_cancer.arrow');
  return MinMaxScaler.fit(raw).transform(raw);
}

/** Exact k nearest neighbours of row u by brute force (ties by index). */
function exactNeighbours(ds: Dataset, u: number, k: number): number[] {
  const dist = (v: number) => {
    let s = 0;
    for (let j = 0; j < ds.d; j++) s += (ds.X[u * ds.d + j] - ds.X[v * ds.d + j]) ** 2;
    return s;
  };
  return Array.from({ length: ds.n }, (_, v) => v)
    .filter((v) => v !== u)
    .map((v) => [dist(v), v])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .slice(0, k)
    .map(([, v]) => v);
}

describe('the approximate k-NN graph', () => {
  it('finds most of each row’s true 10 nearest neighbours, nearest first, never the row itself', async () => {
    const ds = await scaledBreastCancer();
    const g = knnGraph(ds.X, ds.n, ds.d);
    expect(g.k).toBe(10);
    let found = 0;
    for (let u = 0; u < ds.n; u++) {
      const mine = Array.from(g.neighbours.subarray(u * 10, u * 10 + 10));
      expect(mine).not.toContain(u);
      expect(mine).not.toContain(-1);
      const d = g.distances.subarray(u * 10, u * 10 + 10);
      for (let j = 1; j < 10; j++) expect(d[j]).toBeGreaterThanOrEqual(d[j - 1]);
      const truth = new Set(exactNeighbours(ds, u, 10));
      found += mine.filter((v) => truth.has(v)).length;
    }
    const recall = found / (10 * ds.n);
    console.log(`k-NN graph recall on breast_cancer (n = ${ds.n}, d = ${ds.d}): ${recall.toFixed(3)}`);
    expect(recall).toBeGreaterThan(0.9);
  });

  it('is a function of the rows alone: the same bits when built again', async () => {
    const ds = await scaledBreastCancer();
    const a = knnGraph(ds.X, ds.n, ds.d, { k: 5, trees: 2, leafSize: 16 });
    const b = knnGraph(ds.X, ds.n, ds.d, { k: 5, trees: 2, leafSize: 16 });
    expect(Buffer.from(a.neighbours.buffer).equals(Buffer.from(b.neighbours.buffer))).toBe(true);
    expect(Buffer.from(a.distances.buffer).equals(Buffer.from(b.distances.buffer))).toBe(true);
  });

  it('handles fewer rows than k and duplicate rows', () => {
    const X = Float64Array.from([0, 0, 0, 0, 1, 1]); // 3 rows × 2, two identical
    const g = knnGraph(X, 3, 2, { k: 5 });
    expect(Array.from(g.neighbours.subarray(0, 5))).toEqual([1, 2, -1, -1, -1]);
    expect(() => knnGraph(X, 3, 2, { k: 0 })).toThrow(/k ≥ 1/);
  });
});

describe('the k-NN edges', () => {
  it('join a row to one of its neighbours, never labeled–labeled, uniformly over the graph’s edges', async () => {
    const ds = await scaledBreastCancer();
    const labeled = new Uint8Array(ds.n);
    for (let i = 0; i < ds.n; i += 5) labeled[i] = 1;
    const edges = new KnnEdges(ds.X, ds.n, ds.d, labeled, 10);
    const g = knnGraph(ds.X, ds.n, ds.d);
    const valid = new Set<string>();
    for (let u = 0; u < ds.n; u++) for (let j = 0; j < 10; j++) if (!(labeled[u] && labeled[g.neighbours[u * 10 + j]])) valid.add(`${u}-${g.neighbours[u * 10 + j]}`);
    expect(edges.count).toBe(valid.size);
    expect(edges.count).toBeLessThanOrEqual(10 * ds.n); // O(n·k), not O(n²)
    const rng = samplingRng(3);
    const hits = new Map<string, number>();
    const draws = 20 * edges.count;
    for (let s = 0; s < draws; s++) {
      const [u, v] = edges.sample(rng);
      hits.set(`${u}-${v}`, (hits.get(`${u}-${v}`) ?? 0) + 1);
    }
    expect([...hits.keys()].filter((e) => !valid.has(e))).toEqual([]);
    expect(hits.size).toBe(edges.count);
    // Each edge's count is Binomial(draws, 1/|E|) ≈ Poisson(20): none should be below 3 or above 50.
    for (const c of hits.values()) expect(c > 2 && c < 50).toBe(true);
  });
});

describe('the default budget', () => {
  it('visits each labeled row 6 times (1,000 to 24,000 draws), T ≤ 4,000, and yields to what the user gives', () => {
    expect(graphBudget(91)).toEqual({ T: 1000, batchSize: 1 });
    expect(graphBudget(1000)).toEqual({ T: 3000, batchSize: 2 });
    expect(graphBudget(2400)).toEqual({ T: 3600, batchSize: 4 });
    expect(graphBudget(1e6)).toEqual({ T: 4000, batchSize: 6 });
    for (const l of [10, 200, 777, 3001, 9999]) {
      const { T, batchSize } = graphBudget(l);
      expect(T).toBeLessThanOrEqual(4000);
      expect(T * batchSize).toBeGreaterThanOrEqual(Math.min(24_000, Math.max(1000, 6 * l)));
    }
    expect(graphBudget(2400, { T: 500 })).toEqual({ T: 500, batchSize: 1 });
    expect(graphBudget(2400, { batchSize: 2 })).toEqual({ T: 7200, batchSize: 2 });
    expect(graphBudget(2400, { T: 10, batchSize: 3 })).toEqual({ T: 10, batchSize: 3 });
  });

  it('is written to the model header when computed, and left out when given', async () => {
    const { train: tr } = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 60, test: 0.2, seed: 2 });
    const model = await train({ learner: 'gkm', data: tr, threads: 1, onWarning: () => {} });
    expect(model.header.hyperparameters).toMatchObject({ T: 1000, batchSize: 1 });
    const given = await train({ learner: 'gkm', data: tr, T: 50, threads: 1, onWarning: () => {} });
    expect(given.header.hyperparameters).toMatchObject({ T: 50, batchSize: 1 });
  });
});

describe('the default C', () => {
  it('is 4·n_l (at least 1), written to the model header when computed; a given C is kept, and the model is the one trained with that C given', async () => {
    expect([1, 91, 1000].map((l) => defaultGraphC(l))).toEqual([4, 364, 4000]);
    expect(defaultGraphC(0)).toBe(1);
    expect(graphSettings({ sigma: 1, seed: 1 }, {}, 200).C).toBe(800);
    expect(graphSettings({ sigma: 1, C: 64, seed: 1 }, {}, 200).C).toBe(64);
    const { train: tr, test } = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 60, test: 0.2, seed: 2 });
    const opts = { data: tr, T: 200, threads: 1, onWarning: () => {} };
    for (const learner of ['gkm', 'lapsvm'] as const) {
      const model = await train({ learner, ...opts });
      expect(model.header.hyperparameters.C).toBe(240);
      const given = await train({ learner, ...opts, C: 240 });
      expect(given.header.hyperparameters.C).toBe(240);
      expect(await model.decisionFunction(test!)).toEqual(await given.decisionFunction(test!));
      const other = await train({ learner, ...opts, C: 64 });
      expect(await other.decisionFunction(test!)).not.toEqual(await model.decisionFunction(test!));
    }
  });
});

describe('the unlabeled term acts', () => {
  // The paper's protocol: 80% of the training labels hidden, 20% of the rows held out.
  for (const learner of ['gkm', 'lapsvm'] as const) {
    it(`${learner}: switching C′ to 0 changes the held-out scores; at a narrow kernel the k-NN graph moves them several times more than the full graph`, async () => {
      const raw = await readDataset('data/breast_cancer.arrow');
      const labeled = Math.round(0.2 * (raw.n - Math.round(0.2 * raw.n)));
      const { train: tr, test } = splitDataset(raw, { labeled, test: 0.2, seed: 1 });
      const opts = { data: tr, seed: 1, threads: 1, onWarning: () => {} };
      /** Mean |f − f₀| over the held-out rows, relative to mean |f₀|, f₀ the model with C′ = 0 (same labeled draws). */
      const moved = async (extra: { sigma?: number; graph?: 'knn' | 'full' }) => {
        const f0 = await (await train({ learner, ...opts, ...extra, Cprime: 0, graph: 'knn' })).decisionFunction(test!);
        const f = await (await train({ learner, ...opts, ...extra })).decisionFunction(test!);
        let change = 0;
        let size = 0;
        for (let i = 0; i < f.length; i++) {
          change += Math.abs(f[i] - f0[i]);
          size += Math.abs(f0[i]);
        }
        return change / size;
      };
      const atDefaults = await moved({});
      const sigma = 16 * defaultSigma(tr);
      const knn = await moved({ sigma });
      const full = await moved({ sigma, graph: 'full' });
      console.log(`${learner}: relative change of the held-out scores from C′ = 0: defaults ${atDefaults.toFixed(4)}; σ = 16σ₀: k-NN ${knn.toFixed(4)}, full ${full.toFixed(4)}`);
      // Measured with the 2%–98% feature scaling: GKM 0.0088, LapSVM 0.0027 (its C′ = 0.99/8, the paper's
      // condition at p = 2, is an eighth of GKM's); with the former 0.5%–99.5% scaling 0.032 and 0.030.
      expect(atDefaults).toBeGreaterThan(learner === 'gkm' ? 0.005 : 0.002);
      expect(knn).toBeGreaterThan(3 * full);
    }, 60_000);
  }
});
