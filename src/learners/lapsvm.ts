/**
 * LapSVM (Belkin et al. 2006; Melacci & Belkin 2011) as the named special case
 * of the graph-based kernel machine: hinge loss, smoothness p = 2 (the graph
 * Laplacian term), trained by the same SGD (graph-kernel-machine.ts).
 */
import { graphMachineSpec, LAPSVM_PARAMS } from './graph-kernel-machine.ts';

/** LapSVM in the learner registry. */
export const lapsvmSpec = graphMachineSpec({
  name: 'lapsvm',
  summary: 'Laplacian SVM (hinge loss + graph Laplacian) by the graph kernel machine SGD, a support-vector model',
  help: "LapSVM: ½‖w‖² + C·mean hinge loss over labeled rows + C′·mean over the edges of an approximate k-NN graph (--graph full: every pair) of μ_uv (f(x_u) − f(x_v))² — the graph-based kernel machine with hinge loss and p = 2, trained by its SGD (η_t = 2/(t+1), averaged iterate). C′ defaults to 0.99/8, inside the paper's O(1/T) condition C′ < 1/8. Saves only its support rows; labels are cut where the labeled rows' class shares fall on the unlabeled training rows (no bias).",
  fixed: { loss: 'hinge', p: 2 },
}, LAPSVM_PARAMS);
