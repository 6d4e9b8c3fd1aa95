/**
 * The support-vector kind of the engine: `f(x) = Σ_e β_e K(x_{r_e}, x)` over
 * the live entries of a {@link SupportVectorHistory}, with the exact kernel,
 * on the same chunking, pool and ordered reduction as random-feature blocks
 * ({@link HistoryEvaluator}).
 */
import { checkKernelSpec, type KernelSpec } from '../features/kernel-spec.ts';
import { DEFAULT_SV_CHUNK_SIZE } from './chunks.ts';
import { HistoryEvaluator, type EngineOptions, type KindFields } from './evaluator.ts';
import type { SharedRows } from './shared-rows.ts';
import type { SupportVectorHistory } from './sv-history.ts';

/** What the entries of a support-vector history mean: the kernel and the training rows their indices refer to. */
export interface SupportVectorBasis {
  readonly kernel: KernelSpec;
  readonly rows: SharedRows;
}

/**
 * Work of one entry at one point beyond the `d`-term distance, in the units of
 * `DEFAULT_PARALLEL_MIN_WORK` (where a random feature costs `d + 8`): the
 * vector exp and the gather of the entry's row. Measured by bench/sv-kernel.ts
 * against bench/kernel.ts on the development machine.
 */
export const SV_WORK_EXTRA = 8;

/**
 * Parallel, deterministic evaluator of a support-vector history.
 *
 * @example
 * const rows = SharedRows.from(ds.X, ds.n, ds.d);
 * const history = new SupportVectorHistory({ capacity: 3 * T });
 * const ev = new SupportVectorEvaluator(history, { kernel: { kind: 'rbf', sigma: 0.5 }, rows }, { threads: 4, chunkSize: svChunkSizeFor(3 * T) });
 * history.add(12, 0.3);
 * const f = await ev.evaluate(X, n); // f[p] = Σ_e β_e K(rows.row(r_e), x_p)
 * await ev.close();
 */
export class SupportVectorEvaluator extends HistoryEvaluator {
  readonly kernel: KernelSpec;
  readonly rows: SharedRows;

  constructor(history: SupportVectorHistory, basis: SupportVectorBasis, opts: EngineOptions = {}) {
    checkKernelSpec(basis.kernel);
    super(history, basis.rows.d, DEFAULT_SV_CHUNK_SIZE, opts);
    this.kernel = basis.kernel;
    this.rows = basis.rows;
  }

  protected kindFields(): KindFields {
    return { kind: 'sv', kernel: this.kernel, rows: this.rows.buffer };
  }

  protected itemWork(): number {
    return this.d + SV_WORK_EXTRA;
  }

  protected outputFactor(scale: number): number {
    return scale;
  }
}
