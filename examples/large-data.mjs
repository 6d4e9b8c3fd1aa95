// Data larger than memory: write a seeded synthetic file batch by batch, train
// on it reading only the rows the run draws (sample on read: the same model
// bytes as reading it whole), and score the file batch by batch.
// Run from the repository root: node examples/large-data.mjs
import { train, writeSynthetic } from 'dsgkit';

// Iterations T (the test suite sets DSGKIT_EXAMPLE_T to run every example quickly).
const T = Number(process.env.DSGKIT_EXAMPLE_T ?? 200);

// 20,000 rows here; the same code streams 2e7 rows in flat memory.
const summary = await writeSynthetic('xor.arrow', { rows: 20_000, dim: 10, labeled: 200, seed: 1 });
console.log(`wrote xor.arrow: ${summary.rows} rows, ${summary.labeled} labeled, ${summary.batches} record batches`);

const model = await train({ learner: 'qsg-s2auc', data: 'xor.arrow', sampleOnRead: true, T, seed: 1 });

// evaluate() on a path streams the file through the model one record batch at a time.
const m = await model.evaluate('xor.arrow');
if (m.kind !== 'binary') throw new Error('expected a binary model');
console.log(`AUC on the ${m.labeled} labeled rows: ${m.auc.toFixed(4)} (${m.unlabeled} unlabeled rows scored too)`);
