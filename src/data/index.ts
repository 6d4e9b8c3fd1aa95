/**
 * The data layer's public surface: readers and writers, validation, scaling,
 * splits and the synthetic generator. {@link readDataset} picks a reader by
 * file extension.
 */
import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { UsageError } from '../errors.ts';
import { readArrow, type ReadOptions } from './arrow.ts';
import { readCsv } from './csv.ts';
import type { Dataset } from './dataset.ts';
import { readLibsvm } from './libsvm.ts';

export { makeDataset, selectRows, withRows, labelText, labeledCount, type Dataset } from './dataset.ts';
export { LabelCoder, UNLABELED_MARKERS, type ClassOptions, type LabelKind } from './class-labels.ts';
export { openCsvRows, csvRecordStream } from './csv.ts';
export { readRowSource, blocksToDataset, rowsPerBlock, type RowSource } from './row-source.ts';
export { allocateFloat64, RowBuffer, concatBatches, type RowBatch } from './row-batches.ts';
export {
  readArrow,
  writeArrow,
  encodeArrow,
  arrowBytesToDataset,
  tableToDataset,
  datasetToTable,
  datasetSchema,
  makeBatch,
  formatForPath,
  type ArrowFormat,
  type ReadOptions,
} from './arrow.ts';
export { readCsv, parseCsv, csvRecords, MAX_CSV_RECORD_CHARS } from './csv.ts';
export { readLibsvm, parseLibsvm, DEFAULT_MAX_FEATURES, type LibsvmOptions } from './libsvm.ts';
export { validateDataset, requireLabelColumn, requireClasses, classCounts } from './validate.ts';
export { MinMaxScaler, type MinMaxScalerJSON } from './scaler.ts';
export { splitDataset, stratifiedCounts, labeledFolds, repeatedLabeledFolds, type SplitOptions, type Split, type LabeledFold, type LabeledFoldsOptions } from './split.ts';
export {
  writeSynthetic,
  syntheticBatches,
  syntheticDataset,
  type SyntheticOptions,
  type SyntheticSummary,
  type SyntheticBatch,
} from './synthetic.ts';
export { arraysToDataset, isArrayData, type ArrayData, type ArrayLabel } from './arrays.ts';
export { binLabels, quantileSorted, type Binned } from './binning.ts';
export { writeBatchesStreaming, writeRowSource, type RowSourceSummary } from './batch-writer.ts';
export { outputChunks, outputFormatFor, batchText, OUTPUT_FORMAT_BY_EXTENSION, FORMAT_NAMES, type OutputFormat, type TextFormat, type FormatName } from './text-output.ts';
export { withAtomicFile, withAtomicFiles, writeFileAtomic, tempPathFor, pendingTempFiles, removePendingTempFiles, removeStaleTempFiles } from './atomic.ts';

/** The input formats {@link readDataset} knows, by lower-case extension. */
export const FORMAT_BY_EXTENSION: Readonly<Record<string, 'arrow' | 'csv' | 'libsvm'>> = {
  '.arrow': 'arrow',
  '.feather': 'arrow',
  '.arrows': 'arrow',
  '.ipc': 'arrow',
  '.csv': 'csv',
  '.libsvm': 'libsvm',
  '.svm': 'libsvm',
  '.txt': 'libsvm',
  '.t': 'libsvm',
};

/** Options of {@link readDataset}: those of every reader. */
export interface ReadDatasetOptions extends ReadOptions {
  /** LIBSVM only: number of features (default: the largest index in the file). */
  features?: number;
  /** LIBSVM only: the largest feature index accepted when `features` is not given [1,000,000]. */
  maxFeatures?: number;
}

/**
 * The input format of `path` by its extension, or a UsageError listing the known ones.
 *
 * @example
 * formatOf('a9a.t');        // 'libsvm'
 * formatOf('train.arrows'); // 'arrow'
 */
export function formatOf(path: string): 'arrow' | 'csv' | 'libsvm' {
  const ext = extname(path).toLowerCase();
  const format = FORMAT_BY_EXTENSION[ext];
  if (!format) {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${path} is a directory; give a data file (${Object.keys(FORMAT_BY_EXTENSION).join(' ')})`);
    throw new UsageError(
      `${path}: unknown file type '${ext || '(no extension)'}'; expected one of ${Object.keys(FORMAT_BY_EXTENSION).join(' ')}`,
    );
  }
  return format;
}

/**
 * Reads any supported file into a validated {@link Dataset}, choosing the
 * reader by extension: `.arrow .feather .arrows .ipc` → Arrow IPC (file or
 * stream), `.csv` → CSV with header, `.libsvm .svm .txt .t` → LIBSVM.
 *
 * @example
 * const ds = await readDataset('data/spam.arrow');
 * const raw = await readDataset('a9a.t', { features: 123 });
 * const csv = await readDataset('train.csv', { labelColumn: 'y' });
 */
export async function readDataset(path: string, opts: ReadDatasetOptions = {}): Promise<Dataset> {
  switch (formatOf(path)) {
    case 'arrow':
      return readArrow(path, opts);
    case 'csv':
      return readCsv(path, opts);
    case 'libsvm':
      return readLibsvm(path, {
        ...(opts.features !== undefined ? { features: opts.features } : {}),
        ...(opts.maxFeatures !== undefined ? { maxFeatures: opts.maxFeatures } : {}),
        ...(opts.labelColumn !== undefined ? { labelColumn: opts.labelColumn } : {}),
        ...(opts.classes !== undefined ? { classes: opts.classes } : {}),
      });
  }
}
