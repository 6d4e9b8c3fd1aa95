/**
 * The learner registry: every learner dsgkit knows, in one list. Adding a
 * learner is its own file (declaring a {@link LearnerSpec}) plus one line here;
 * the API, the CLI, the model header, `compare`, `tune` and the conformance
 * suite read this list and nothing else.
 */
import { UsageError } from '../errors.ts';
import { dsgSpec } from './dsg.ts';
import { exactS2aucSpec } from './exact.ts';
import { frs3vmSpec } from './frs3vm.ts';
import { gkmSpec } from './gkm.ts';
import { lapsvmSpec } from './lapsvm.ts';
import { qsgS2aucSpec } from './qsg-s2auc.ts';
import { qs3oraoSpec, soraoSpec } from './qs3orao.ts';
import type { LearnerSpec } from './spec.ts';
import { tsgs3vmSpec } from './tsgs3vm.ts';

/** Every registered learner with its own types (its name and parameter table), in the order listings show them. */
const REGISTERED = [qsgS2aucSpec, dsgSpec, exactS2aucSpec, qs3oraoSpec, soraoSpec, tsgs3vmSpec, frs3vmSpec, gkmSpec, lapsvmSpec] as const;

/** The type of any registered learner, each with its own name and parameter table (api.ts' typed options are built from it). */
export type RegisteredLearner = (typeof REGISTERED)[number];

/** The name of a registered learner. */
export type LearnerName = RegisteredLearner['name'];

/** Every registered learner, in the order listings show them. */
export const LEARNERS: readonly LearnerSpec[] = REGISTERED;

/** Names of the registered learners. */
export const LEARNER_NAMES: readonly LearnerName[] = REGISTERED.map((l) => l.name);

/**
 * The registered learner called `name`, or a UsageError listing the known ones.
 *
 * @example
 * learnerSpec('qsg-s2auc').task; // 'binary'
 * learnerSpec('svm', '--learner'); // UsageError "--learner: unknown learner 'svm' (expected one of …)"
 */
export function learnerSpec(name: unknown, option = 'learner'): LearnerSpec {
  const spec = LEARNERS.find((l) => l.name === name);
  if (!spec) throw new UsageError(`${option}: unknown learner ${typeof name === 'string' ? `'${name}'` : String(name)} (expected one of ${LEARNER_NAMES.join(', ')})`);
  return spec;
}
