/**
 * GKM, the graph-based semi-supervised kernel machine (Le et al.; ALGORITHMS.md
 * § GKM): SGD on `½‖w‖² + C·mean_L l + C′·mean_E μ_uv |f(x_u) − f(x_v)|^p` with
 * any of five losses and any p ≥ 1; a support-vector model. The machinery is
 * graph-kernel-machine.ts (shared with LapSVM, its hinge, p = 2 case).
 */
import { graphMachineSpec, GKM_PARAMS } from './graph-kernel-machine.ts';

/** GKM in the learner registry. */
export const gkmSpec = graphMachineSpec({
  name: 'gkm',
  summary: 'graph-based semi-supervised kernel machine: SGD over labeled rows and graph edges, a support-vector model',
  // tune ranks GKM by the pooled out-of-fold AUC, not accuracy at the cut, which moves in steps of 1/l
  // with few labeled rows (docs/tuning.md has the comparison).
  tuneMetric: 'auc',
  help: 'GKM (Le et al.): minimises ½‖w‖² + C·mean over labeled rows of a loss (hinge, smooth hinge, logistic, L1, ε-insensitive) + C′·mean over the edges of a graph (by default each row to its k = 10 nearest rows in an approximate k-NN graph; --graph full: every pair, the paper; never labeled–labeled) of μ_uv |f(x_u) − f(x_v)|^p, μ_uv = exp(−σ_s‖x_u − x_v‖²) computed on the fly; SGD with η_t = 2/(t+1), B labeled rows (in reshuffled epochs) and B edges per step (T and B by default from the labeled rows: each visited 6 times), the averaged iterate as the model. Saves only its support rows. There is no bias: labels are cut where the labeled rows\' class shares fall on the unlabeled training rows (class-mass normalisation).',
}, GKM_PARAMS);
