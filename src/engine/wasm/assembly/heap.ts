// Shared by every kernel module: where the host may start laying out its buffers.

/**
 * First byte the host may use: past the module's static data, 16-aligned.
 * @example const base = heapBase() // host lays its buffers out from here
 */
export function heapBase(): usize {
  return (__heap_base + 15) & ~<usize>15;
}
