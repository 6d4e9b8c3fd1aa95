// Train a semi-supervised model on the bundled breast-cancer split (100 of
// 455 training rows labeled), evaluate it on the held-out rows, save it and
// load it back. Run from the repository root: node examples/train-evaluate.mjs
import { load, readDataset, train } from 'dsgkit';

// Iterations T (the test suite sets DSGKIT_EXAMPLE_T to run every example quickly).
const T = Number(process.env.DSGKIT_EXAMPLE_T ?? 400);

const data = await readDataset('data/breast_cancer-train.arrow');
const test = await readDataset('data/breast_cancer-test.arrow');
console.log(`training rows: ${data.n} (${data.d} features)`);

const model = await train({ learner: 'qsg-s2auc', data, T, seed: 1 });
const metrics = await model.evaluate(test); // every metric of the task: binary here
if (metrics.kind !== 'binary') throw new Error('expected a binary model');
console.log(`held-out AUC ${metrics.auc.toFixed(4)}, accuracy ${metrics.accuracy.toFixed(4)}`);

const scores = await model.decisionFunction(test); // one real score per row
const labels = await model.predict(test); // the class of each row (1 or -1)
console.log(`first row: score ${scores[0].toFixed(3)}, class ${labels[0]}`);

await model.save('bc.dsg');
const again = await load('bc.dsg');
console.log(`reloaded: same AUC ${(await again.score(test)) === (await model.score(test))}`);
