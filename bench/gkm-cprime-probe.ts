/**
 * What the graph term of GKM/LapSVM does, by graph (k-NN, full) and C′: held-out
 * accuracy and the share of held-out labels that differ from the same run with
 * C′ = 0, 80% of the training labels hidden, 20% held out, seeds 1–3, at σ = m·σ₀.
 *
 *   npx tsx bench/gkm-cprime-probe.ts data/breast_cancer.arrow,bench/data-public/pima.arrow 0,1,8,64 gkm 1
 *   npx tsx bench/gkm-cprime-probe.ts data/breast_cancer.arrow 0,1,8 gkm 16     # a narrow kernel, σ = 16σ₀
 *
 * Arguments: data files (comma-separated), C′ values, learner, σ multiplier m. Results: bench/results/gkm-cprime-probe.txt.
 */
import { train } from '../src/api.ts';
import { readDataset, splitDataset } from '../src/data/index.ts';
import { defaultSigma } from '../src/train/defaults.ts';
const mult = Number(process.argv[5] ?? 1);
const sets = (process.argv[2] ?? 'data/breast_cancer.arrow').split(',');
const cps = (process.argv[3] ?? '0,1,8,64').split(',').map(Number);
const learner = process.argv[4] ?? 'gkm';
for (const path of sets) {
  const raw = await readDataset(path);
  const labeled = Math.round(0.2 * (raw.n - Math.round(0.2 * raw.n)));
  const rows: string[] = [];
  for (const graph of ['knn', 'full'] as const) {
    for (const Cprime of cps) {
      let acc = 0; let flips = 0;
      for (const seed of [1, 2, 3]) {
        const { train: tr, test } = splitDataset(raw, { labeled, test: 0.2, seed });
        const sigma = mult * defaultSigma(tr);
        const m = await train({ learner, data: tr, seed, threads: 2, Cprime, graph, sigma, onWarning: () => {} } as never);
        const m0 = await train({ learner, data: tr, seed, threads: 2, Cprime: 0, sigma, onWarning: () => {} } as never);
        const a = await m.predict(test!); const b = await m0.predict(test!);
        flips += a.filter((v, i) => v !== b[i]).length / a.length / 3;
        acc += (await m.evaluate(test!)).accuracy / 3;
      }
      rows.push(`${path} ${graph} C'=${Cprime}: acc ${acc.toFixed(4)} flipped ${(100 * flips).toFixed(2)}%`);
      console.log(rows.at(-1));
    }
  }
}
