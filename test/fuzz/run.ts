/**
 * The long fuzz campaign (`npm run fuzz`): every target of `targets.ts`,
 * 100,000 cases each for the in-memory readers and the model loader and
 * 20,000 for the readers that go through a file on disk (so each of the three
 * parsers gets 120,000); 100,000 for each structure-aware target (forged
 * model headers, Arrow files changed while read). `npm run fuzz -- 5000` runs 5,000 per target instead;
 * `--only csv` picks targets by name. Failing inputs are written to
 * `fuzz-findings/<target>.bin` (shrunk) to reproduce with the target's reader.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fuzz, fuzzTargets, scratch } from './targets.ts';

const args = process.argv.slice(2);
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
const fixed = args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--only');
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

const { dir, cleanup } = await scratch();
let failures = 0;
try {
  // Fastest first, so a cut-short run still covers every reader in memory and the model loader.
  const order = ['model loader', 'libsvm (text)', 'csv (text)', 'arrow (bytes)', 'libsvm (file)', 'csv (file)', 'arrow (file)', 'model header (forged, checksummed)', 'arrow (file changed while read)'];
  const targets = (await fuzzTargets(dir))
    .filter((t) => only === undefined || t.name.includes(only))
    .sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  console.log(`fuzz seed ${seed}`);
  for (const target of targets) {
    const runs = fixed !== undefined ? Number(fixed) : target.name.endsWith('(file)') ? 20_000 : 100_000;
    const r = await fuzz(target, runs, seed);
    const line = `${target.name.padEnd(34)} ${String(r.runs).padStart(7)} cases  ${String(r.typedErrors).padStart(7)} typed errors  ${(r.wallMs / 1000).toFixed(1).padStart(6)} s  slowest case ${r.slowestMs.toFixed(0)} ms`;
    if (r.failure) {
      failures++;
      await mkdir('fuzz-findings', { recursive: true });
      const path = `fuzz-findings/${target.name.replace(/\W+/g, '-')}.bin`;
      await writeFile(path, r.failure.input);
      console.log(`${line}  FAILED: ${r.failure.problem.split('\n')[0]} (input: ${path})`);
    } else console.log(`${line}  ok`);
  }
} finally {
  await cleanup();
}
process.exitCode = failures > 0 ? 1 : 0;
