/**
 * Kernels that a thread's finished runs hand back, for its next runs to take
 * instead of instantiating the wasm module again: random-feature kernels, and
 * exact (support-vector) kernels on the rows of one shared memory.
 *
 * Why: each kernel owns a wasm memory, and a fresh one costs its first touch
 * (the operating system zeroes every page: 1–7 MiB a kernel for the loop
 * learners on MNIST, a batch and its sorf group transform) and a garbage
 * collection later. `tune` runs hundreds of short fits — QSG-S2AUC's first
 * round on MNIST is 396 fits of 10 iterations, each with four kernels — and
 * fresh memories were most of that round's time.
 *
 * A kernel's results never depend on what it held before: a new owner lays
 * out and writes what it reads ({@link RffKernel.reserve}, the points, the
 * block), and what a kernel keeps between calls (a held transform, the form
 * of a block) is checked against its inputs before it is used. A shelved
 * kernel forgets what it held anyway ({@link RffKernel.forget}), so nothing it
 * referenced stays alive on the shelf.
 *
 * An exact kernel is tied to the shared memory of its rows, whose scratch
 * region past the rows it claimed for good (sv-kernel.ts): a new kernel on
 * those rows would claim another, so `tune`'s fits on one set of rows
 * (GKM, LapSVM; `SharedRows.of`) reuse the thread's kernels on that memory.
 * They are kept with the memory, not on the thread: when no one holds the
 * rows any more, the kernels go with them.
 *
 * @example
 * const k = takeKernel();  // a shelved kernel, or a new one
 * // … k.reserve(…), k.points().set(…), …
 * shelveKernel(k);         // its owner is done with it: never use k again
 */
import { RffKernel } from './kernel.ts';
import type { SvKernel } from './sv-kernel.ts';
import type { WasmMemory } from './wasm-host.ts';

/** Kernels a thread keeps at most: a run's five (evaluation, projection, two for rows, newest block) and a few more. */
export const SHELF_KERNELS = 8;

/** Largest kernel memory kept (bytes): a kernel that held many rows gives its memory back rather than keep it after the run. */
export const SHELF_KERNEL_BYTES = 64 * 2 ** 20;

const shelf: RffKernel[] = [];

/**
 * A kernel for a new owner: the last one shelved on this thread, or a new one.
 *
 * @example
 * readonly kernel = takeKernel();
 */
export function takeKernel(): RffKernel {
  return shelf.pop() ?? RffKernel.create();
}

/**
 * Hands `kernel` back (its owner must not use it again); kept when the shelf
 * has room and its memory is at most {@link SHELF_KERNEL_BYTES}, else left to
 * the garbage collector. `undefined` is ignored.
 *
 * @example
 * shelveKernel(this.kernel);
 */
export function shelveKernel(kernel: RffKernel | undefined): void {
  if (kernel === undefined || shelf.length >= SHELF_KERNELS || shelf.includes(kernel) || kernel.memoryBytes > SHELF_KERNEL_BYTES) return;
  kernel.forget();
  shelf.push(kernel);
}

/** Exact kernels shelved on each rows memory (at most {@link SHELF_KERNELS} a memory). */
const svShelves = new WeakMap<WasmMemory, SvKernel[]>();

/**
 * An exact kernel this thread shelved on the rows in `memory`, or undefined
 * (the caller then creates one).
 *
 * @example
 * const k = takeSvKernel(task.rows) ?? SvKernel.create(new SharedRows({ memory: task.rows }));
 */
export function takeSvKernel(memory: WasmMemory): SvKernel | undefined {
  return svShelves.get(memory)?.pop();
}

/**
 * Hands an exact kernel back (its owner must not use it again), kept with
 * its rows' memory; `undefined` is ignored.
 *
 * @example
 * shelveSvKernel(this.kernel);
 */
export function shelveSvKernel(kernel: SvKernel | undefined): void {
  if (kernel === undefined) return;
  const { memory } = kernel.rows;
  let list = svShelves.get(memory);
  if (list === undefined) svShelves.set(memory, (list = []));
  if (list.length < SHELF_KERNELS && !list.includes(kernel)) list.push(kernel);
}

/** Kernels on this thread's shelf now (for tests). */
export function shelvedKernels(): number {
  return shelf.length;
}
