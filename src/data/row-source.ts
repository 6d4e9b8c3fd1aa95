/**
 * A file read as a stream of row blocks ({@link RowSource}): the text readers
 * produce one, {@link readRowSource} gathers it into a {@link Dataset}, and
 * `dsgkit convert` writes each block out as it comes (flat memory).
 */
import type { LabelCoder } from './class-labels.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import { concatBatches, type RowBatch } from './row-batches.ts';
import { validateDataset } from './validate.ts';

/** Values per row block (1 MiB of float64): rows per block = this / features. */
export const VALUES_PER_BLOCK = 2 ** 17;

/**
 * Rows per block for `d` features: about {@link VALUES_PER_BLOCK} values, at
 * least 1 row and at most 65,536.
 *
 * @example
 * rowsPerBlock(20);    // 6553
 * rowsPerBlock(1e6);   // 1
 */
export function rowsPerBlock(d: number): number {
  return Math.max(1, Math.min(65_536, Math.floor(VALUES_PER_BLOCK / Math.max(1, d))));
}

/** What a stream of row blocks is: its columns, its labels, and the blocks. */
export interface RowSource {
  /** The file, for messages and as the dataset's source. */
  readonly file: string;
  readonly featureNames: readonly string[];
  readonly labelName: string;
  /** Decides numbers or names and holds the class names seen so far (blocks carry provisional indices). */
  readonly labels: LabelCoder;
  /** The rows, in order, in blocks. */
  batches(): AsyncGenerator<RowBatch>;
}

/**
 * The rows of `batches` as a validated {@link Dataset} with the source's
 * columns; for labels that are names, `y` becomes final class indices and
 * `classNames` is set.
 *
 * @example
 * const ds = blocksToDataset(source, [block1, block2]);
 */
export function blocksToDataset(source: Omit<RowSource, 'batches'>, batches: readonly RowBatch[]): Dataset {
  const { file, featureNames, labelName, labels } = source;
  const d = featureNames.length;
  const { X, y } = concatBatches(batches, d, { file });
  const classNames = labels.finish(y);
  const ds = makeDataset({ X, d, y, featureNames, labelName, source: file, ...(classNames !== undefined ? { classNames } : {}) });
  validateDataset(ds);
  return ds;
}

/**
 * Reads every block of `source` into a validated {@link Dataset}.
 *
 * @example
 * const ds = await readRowSource(await openCsvRows('train.csv'));
 */
export async function readRowSource(source: RowSource): Promise<Dataset> {
  const batches: RowBatch[] = [];
  for await (const b of source.batches()) batches.push(b);
  return blocksToDataset(source, batches);
}
