// Train in a thread of its own (servers, notebooks, UIs): progress arrives on
// the caller's thread, and cancel() stops the run. Here one run finishes and a
// second is cancelled after its first progress report.
// Run from the repository root: npx tsx examples/off-thread.ts
import { CancelledError, startTraining, type TrainingHandle, type TrainRequest } from 'dsgkit';

// Iterations T (the test suite sets DSGKIT_EXAMPLE_T to run every example quickly).
const T = Number(process.env.DSGKIT_EXAMPLE_T ?? 400);

const options: TrainRequest = { learner: 'qsg-s2auc', data: 'data/breast_cancer-train.arrow', T, seed: 1 };

let reports = 0;
const done = startTraining(options, { onProgress: () => reports++ });
const model = await done.result;
console.log(`finished: ${model.header.learner} after ${reports} progress reports`);

const handle: TrainingHandle = startTraining({ ...options, T: 100_000 }, {
  onProgress: (p) => {
    if (p.t > 0) void handle.cancel(); // e.g. request.on('close', () => handle.cancel())
  },
});
try {
  await handle.result;
} catch (e) {
  if (!(e instanceof CancelledError)) throw e;
  console.log(`cancelled at iteration ${handle.progress?.t} of ${handle.progress?.T}`);
}
