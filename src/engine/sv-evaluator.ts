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
 * Work of one entry at one point in random features: the pool's threshold
 * (`DEFAULT_PARALLEL_MIN_WORK`) counts a random feature at one point as
 * `d + 8`, and an entry (a `d`-term distance read from a row in place, one
 * vector exp) costs up to about 2 features: bench/sv-kernel.ts measured
 * 0.6–2.5 × (d + 8) over three runs for d = 8, 28, 128, near 2 at d = 128
 * (noisy: load 9–12 on the shared 2-core machine; re-measure on a quiet one).
 */
export const SV_WORK_IN_FEATURES = 2;

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
    return { kind: 'sv', kernel: this.kernel, rows: this.rows.memory };
  }

  protected itemWork(): number {
    return SV_WORK_IN_FEATURES * (this.d + 8);
  }

  protected outputFactor(scale: number): number {
    return scale;
  }
}
