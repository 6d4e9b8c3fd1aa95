import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { readArrow, writeArrow } from '../../src/data/arrow.ts';
import { splitDataset } from '../../src/data/split.ts';

/** What one in-process CLI run returned and printed. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs the dsgkit command line in-process with `argv`, capturing what it
 * writes; `onErr` sees each stderr write and everything written so far (to
 * act mid-run, e.g. interrupt once progress shows).
 *
 * @example
 * const r = await runCli(['describe', 'data/spam.arrow']);
 * expect(r.code).toBe(0);
 */
export async function runCli(argv: readonly string[], onErr?: (chunk: string, all: string) => void): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await main([...argv], {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), onErr?.(s, err), true) },
  });
  return { code, out, err };
}

/**
 * The CLI tests' data: the bundled breast_cancer set split into 100 labeled
 * training rows (the rest unlabeled) and a 20% test set (seed 3), written as
 * Arrow files into `dir`.
 *
 * @example
 * const { trainFile, testFile } = await writeBreastCancerSplit(dir);
 */
export async function writeBreastCancerSplit(dir: string): Promise<{ trainFile: string; testFile: string }> {
  const split = splitDataset(await readArrow(new URL('../../data/breast_cancer.arrow', import.meta.url).pathname), { labeled: 100, test: 0.2, seed: 3 });
  const trainFile = join(dir, 'bc-train.arrow');
  const testFile = join(dir, 'bc-test.arrow');
  await writeArrow(trainFile, split.train);
  await writeArrow(testFile, split.test!);
  return { trainFile, testFile };
}
