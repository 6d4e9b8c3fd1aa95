// Choose qsg-s2auc's hyperparameters by 5-fold cross-validation over the
// labeled rows (successive halving over iterations), then score the refit
// winner on held-out rows. Run from the repository root: npx tsx examples/tune.ts
import { readDataset, tune, type TuneResult } from 'dsgkit';

// Iterations T (the test suite sets DSGKIT_EXAMPLE_T to run every example quickly).
const T = Number(process.env.DSGKIT_EXAMPLE_T ?? 200);

const test = await readDataset('data/breast_cancer-test.arrow');
const result: TuneResult = await tune({ learner: 'qsg-s2auc', data: 'data/breast_cancer-train.arrow', T, seed: 1 });

const { sigma, lambda, gamma } = result.best;
console.log(`${result.table.length} settings tried; best sigma=${Number(sigma).toPrecision(3)} lambda=${lambda} gamma=${gamma}`);
console.log(`cross-validated ${result.metric}: ${result.table.find((r) => r.status === 'best')!.score.toFixed(4)}`);
console.log(`held-out ${result.metric} of the refit winner: ${(await result.model.score(test)).toFixed(4)}`);
await result.model.save('best.dsg');
