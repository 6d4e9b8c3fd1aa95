/** `dsgkit generate`: a large synthetic semi-supervised binary dataset, streamed to Arrow. */
import { statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeSynthetic } from '../../data/index.ts';
import { MAX_SPREAD } from '../../data/synthetic.ts';
import { intOption, numberOption, parseCommandArgs, requireArrowOutput, requireString } from '../args.ts';
import { UsageError } from '../../errors.ts';
import { MAX_COLUMNS } from '../../data/validate.ts';
import { checkOutputs } from '../outputs.ts';
import type { Command } from './command.ts';

/** Bytes free to this user on the file system of `dir`, or undefined when it cannot be asked. */
function freeBytes(dir: string): number | undefined {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return undefined;
  }
}

const HELP = `dsgkit generate — write a large synthetic semi-supervised binary dataset

Usage: dsgkit generate --out <file.arrow> --rows <N> [options]

The problem is a noisy XOR of Gaussian blobs: features x1, x2 decide the class
(+1 near (¼,¼) and (¾,¾), −1 near (¼,¾) and (¾,¼)); x3 … are uniform noise;
every value lies in [0,1]; labels are flipped with probability --label-noise.
A linear model scores AUC ≈ 0.5 on it, a Gaussian-kernel model far better.
Exactly round(N × --positive) rows are +1 and exactly --labeled rows keep
their label (stratified); the others have a null (= unlabeled) label.
Rows are streamed to disk in record batches, so memory stays flat for any N;
the file's size, (d + 1) × 8 bytes a row, is checked against the free disk
space before anything is written.
Same options and --seed → same file. For a labeled test set from the same
distribution, run again with another --seed and --labeled equal to --rows.
With --labeled-within W, every row is drawn from (seed, row index) alone and
the labeled rows lie among the first W rows: files that differ only in
--rows are then prefixes of one another (the first 2M rows of a 20M-row file
ARE the 2M-row file, labels included); the count of +1 rows is then binomial
around N × --positive instead of exact (the labeled count stays exact).

Options:
  --out <path>          output file (required; '.arrows' = stream format)
  --rows <N>            number of rows (required; e.g. 2000000 or 2e6)
  --dim <d>             number of features, 2 … 1,000,000 (default: 10)
  --positive <p>        fraction of +1 rows, in (0,1) (default: 0.5)
  --labeled <L>         rows that keep their label (default: min(N, 1000))
  --label-noise <e>     probability of a flipped label, in [0,0.5) (default: 0.05)
  --spread <s>          standard deviation of the blobs, in (0, 1e6] (default: 0.12)
  --seed <S>            seed (default: 0)
  --batch-rows <B>      rows per Arrow record batch (default: 65536)
  --labeled-within <W>  prefix-stable layout, labeled rows among the first W
                        (--labeled ≤ W ≤ --rows; default: the one-stream layout)
  -h, --help            show this help

Example:
  dsgkit generate --out xor.arrow --rows 2e4 --dim 10 --labeled 1000 --seed 1
  dsgkit generate --out xor-big.arrow --rows 2e5 --labeled 200 --labeled-within 2e4 --seed 1
`;

export const generate: Command = {
  name: 'generate',
  summary: 'stream a large synthetic semi-supervised dataset (noisy XOR) to Arrow',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      out: { type: 'string', short: 'o' },
      rows: { type: 'string' },
      dim: { type: 'string' },
      positive: { type: 'string' },
      labeled: { type: 'string' },
      'label-noise': { type: 'string' },
      spread: { type: 'string' },
      seed: { type: 'string' },
      'batch-rows': { type: 'string' },
      'labeled-within': { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`generate takes no positional arguments, got: ${positionals.join(' ')}`);
    const out = requireArrowOutput(requireString(values, 'out'), 'out');
    await checkOutputs({ out }, {});
    if (values.rows === undefined) throw new UsageError('missing required option --rows');
    const rows = intOption(values, 'rows', { min: 1 })!;
    const dim = intOption(values, 'dim', { min: 2, fallback: 10 })!;
    if (dim > MAX_COLUMNS) throw new UsageError(`--dim is at most ${MAX_COLUMNS} (features are stored dense; a row of ${dim} would be ${dim * 8} bytes), got ${dim}`);
    const labeled = intOption(values, 'labeled', { min: 0, fallback: Math.min(rows, 1000) })!;
    if (labeled > rows) throw new UsageError(`--labeled (${labeled}) cannot exceed --rows (${rows})`);
    const positiveFraction = numberOption(values, 'positive', { min: 0, max: 1, openMin: true, openMax: true, fallback: 0.5 })!;
    const labelNoise = numberOption(values, 'label-noise', { min: 0, max: 0.5, openMax: true, fallback: 0.05 })!;
    const spread = numberOption(values, 'spread', { min: 0, openMin: true, max: MAX_SPREAD, fallback: 0.12 })!;
    const batchRows = intOption(values, 'batch-rows', { min: 1, fallback: 65536 })!;
    const labeledWithin = intOption(values, 'labeled-within', { min: 0 });
    if (labeledWithin !== undefined && (labeledWithin < labeled || labeledWithin > rows)) {
      throw new UsageError(`--labeled-within (${labeledWithin}) must lie between --labeled (${labeled}) and --rows (${rows})`);
    }
    const seed = typeof values.seed === 'string' ? values.seed : '0';
    // The file's size is known in advance (float64 features and label): refuse, before writing, what the disk cannot hold.
    const bytes = rows * (dim + 1) * 8 + Math.ceil(rows / batchRows) * (1024 + 16 * (dim + 1)) + (rows / 8) * 2;
    const free = freeBytes(dirname(resolve(out)));
    if (free !== undefined && bytes > free) {
      throw new UsageError(`${out}: ${rows} rows × ${dim} features need ${(bytes / 1e9).toFixed(2)} GB, and ${dirname(resolve(out))} has ${(free / 1e9).toFixed(2)} GB free`);
    }
    const s = await writeSynthetic(out, { rows, dim, labeled, positiveFraction, labelNoise, spread, batchRows, seed, ...(labeledWithin !== undefined ? { labeledWithin } : {}) });
    io.stdout.write(
      `wrote ${out}: ${s.rows} rows, ${s.dim} features, ${s.positives} positive (${(100 * s.positives / s.rows).toFixed(1)}%), ` +
        `${s.labeled} labeled (${s.labeledPositives} positive), ${s.rows - s.labeled} unlabeled, ${s.batches} batches\n`,
    );
    return 0;
  },
};
