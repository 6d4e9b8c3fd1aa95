// How training scales across thread counts on your data: the same model is
// trained at each count (the bytes must match) and timed.
// Run from the repository root: npx tsx examples/scaling.ts
import { scaling, scalingTable, type ScalingResult } from 'dsgkit';

// Iterations T (the test suite sets DSGKIT_EXAMPLE_T to run every example quickly).
const T = Number(process.env.DSGKIT_EXAMPLE_T ?? 200);

const result: ScalingResult = await scaling({ learner: 'qsg-s2auc', data: 'data/breast_cancer-train.arrow', threads: [1, 2], T, seed: 1, ceiling: false });
process.stdout.write(scalingTable(result));
console.log(`identical models at every thread count: ${result.identical}`);
