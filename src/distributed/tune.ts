/** `tune` units as jobs: not yet implemented (the worker refuses them). */
import { PayloadError } from './payload.ts';

/** What a worker gives {@link runTuneUnit}. */
export interface UnitContext {
  readonly roots: readonly string[];
  readonly threads?: number;
  readonly checkpoint: () => Promise<void>;
  readonly log: (line: string) => void;
}

/** Runs one tune unit; refused until distributed tune lands. */
export async function runTuneUnit(_data: unknown, _ctx: UnitContext): Promise<unknown> {
  throw new PayloadError('tune-unit: this worker does not run tune units yet');
}
