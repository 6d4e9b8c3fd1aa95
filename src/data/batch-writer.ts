/**
 * Arrow IPC written batch by batch, with back-pressure, through a temporary
 * file: how dsgkit writes anything large (the synthetic generator, `convert`
 * of a CSV file, `predict`), so memory stays at about one batch.
 */
import { open } from 'node:fs/promises';
import { AsyncByteQueue, RecordBatchFileWriter, RecordBatchStreamWriter, type RecordBatch } from 'apache-arrow';
import { datasetSchema, makeBatch, type ArrowFormat } from './arrow.ts';
import { withAtomicFile } from './atomic.ts';
import type { RowBatch } from './row-batches.ts';
import type { RowSource } from './row-source.ts';

/**
 * Writes record batches to an Arrow IPC file one at a time, awaiting the disk
 * after each (real back-pressure: the bytes of a batch are on their way to
 * disk before the next batch is made), atomically, in time linear in the
 * columns. Returns the number of batches written.
 *
 * @example
 * await writeBatchesStreaming('out.arrow', myBatchGenerator(), 'file');
 */
export async function writeBatchesStreaming(path: string, batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, format: ArrowFormat): Promise<number> {
  return withAtomicFile(path, async (tmp) => {
    const writer = format === 'stream' ? new RecordBatchStreamWriter() : new RecordBatchFileWriter();
    const sink = new CollectedBytes();
    writer.reset(sink);
    const fh = await open(tmp, 'w');
    let count = 0;
    // Everything the writer has produced since the last call, in one vectored write.
    const flush = async (): Promise<void> => {
      const chunks = sink.take();
      if (chunks.length > 0) await fh.writev(chunks);
    };
    try {
      for await (const batch of batches) {
        writer.write(batch);
        count++;
        await flush();
      }
      writer.close(); // footer (file) or end-of-stream marker (stream)
      await flush();
    } finally {
      await fh.close();
    }
    return count;
  });
}

/**
 * The writer's byte sink: keeps the chunks it is given in a plain array for
 * {@link writeBatchesStreaming} to take all at once. (apache-arrow's own
 * queue hands them out one `shift()` at a time — a batch of d columns is
 * about 3d chunks, so draining it that way is O(d²): 76 s for 100,000
 * columns — and each chunk would then be a write of its own.)
 */
class CollectedBytes extends AsyncByteQueue {
  private chunks: Uint8Array[] = [];

  override write(value: Parameters<AsyncByteQueue['write']>[0]): void {
    // The writer hands over Uint8Arrays only (its `_write` converts every chunk).
    this.chunks.push(value as Uint8Array);
  }

  /** The chunks written since the last call, in order. */
  take(): Uint8Array[] {
    const out = this.chunks;
    this.chunks = [];
    return out;
  }
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
export async function writeRowSource(path: string, source: RowSource, format: ArrowFormat): Promise<RowSourceSummary> {
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
