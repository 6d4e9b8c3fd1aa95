/**
 * Arrow IPC (or CSV, JSON Lines) written batch by batch, with back-pressure, through a temporary
 * file: how dsgkit writes anything large (the synthetic generator, `convert`
 * of a CSV file, `predict`), so memory stays at about one batch.
 */
import { open } from 'node:fs/promises';
import type { RecordBatch } from 'apache-arrow';
import { datasetSchema, makeBatch } from './arrow.ts';
import { outputChunks, type OutputFormat } from './text-output.ts';
import { withAtomicFile } from './atomic.ts';
import type { RowBatch } from './row-batches.ts';
import type { RowSource } from './row-source.ts';

/**
 * Writes record batches one at a time, awaiting the disk after each (real
 * back-pressure: the next batch is made only once the last is written),
 * atomically, as an Arrow IPC file or stream, CSV or JSON Lines
 * (`text-output.ts`). Returns the number of batches written.
 *
 * @example
 * await writeBatchesStreaming('out.arrow', myBatchGenerator(), 'file');
 * await writeBatchesStreaming('scores.csv', myBatchGenerator(), 'csv');
 */
export async function writeBatchesStreaming(path: string, batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, format: OutputFormat): Promise<number> {
  return withAtomicFile(path, async (tmp) => {
    const fh = await open(tmp, 'w');
    let count = 0;
    const counted = (async function* () {
      for await (const b of batches) {
        count++;
        yield b;
      }
    })();
    try {
      for await (const chunk of outputChunks(counted, format)) await (typeof chunk === 'string' ? fh.write(chunk) : fh.write(chunk));
    } finally {
      await fh.close();
    }
    return count;
  });
}

/** What {@link writeRowSource} wrote. */
export interface RowSourceSummary {
  rows: number;
  labeled: number;
  features: number;
  /** Class names (in order of first appearance) when the labels are names. */
  classNames?: string[];
}

/**
 * Streams the row blocks of `source` (a CSV file being parsed) into an Arrow
 * IPC file, one record batch per block, atomically: memory stays at about one
 * block whatever the file's size. The label column is float64, or utf8 when
 * the labels are class names — decided by the first block (a first block
 * without any label means numbers).
 *
 * @example
 * const s = await writeRowSource('big.arrow', await openCsvRows('big.csv'), 'file');
 */
export async function writeRowSource(path: string, source: RowSource, format: OutputFormat): Promise<RowSourceSummary> {
  const { featureNames, labels } = source;
  const d = featureNames.length;
  let rows = 0;
  let labeled = 0;
  const toBatch = (block: RowBatch) => {
    labels.kind ??= 'number'; // the schema is fixed now; a later class name is an error that points to --classes
    const schema = datasetSchema(source.labelName, featureNames, labels.kind);
    const columns = Array.from({ length: d }, () => new Float64Array(block.n));
    for (let i = 0; i < block.n; i++) {
      for (let k = 0; k < d; k++) columns[k][i] = block.X[i * d + k];
      if (!Number.isNaN(block.y[i])) labeled++;
    }
    rows += block.n;
    return makeBatch(schema, Float64Array.from(block.y), columns, labels.kind === 'name' ? labels.names : undefined);
  };
  const batches = (async function* () {
    let any = false;
    for await (const block of source.batches()) {
      any = true;
      yield toBatch(block);
    }
    if (!any) yield toBatch({ n: 0, X: new Float64Array(0), y: new Float64Array(0) }); // the file still gets its schema
  })();
  await writeBatchesStreaming(path, batches, format);
  return { rows, labeled, features: d, ...(labels.kind === 'name' ? { classNames: [...labels.names] } : {}) };
}
