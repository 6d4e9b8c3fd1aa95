/**
 * What every kernel host (kernel.ts, sv-kernel.ts) needs from WebAssembly:
 * compiling an embedded module once per thread, instantiating it with a
 * private memory or a shared one, laying buffers out in memory and growing it.
 *
 * tsconfig's lib is ES2022 without DOM, which is where the WebAssembly types
 * live; this is the small part of the (Node-provided) API used here.
 */

/** A module's exported memory. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmModule {
  readonly __brand: 'WebAssembly.Module';
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { readonly exports: object };
  Memory: new (desc: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Bytes per wasm page. */
export const PAGE = 65536;
/** Pages of a wasm32 memory at most (4 GiB). */
export const MAX_PAGES = 65536;
const compiled = new Map<string, WasmModule>();

/**
 * Instantiates the module whose bytes are `base64` (compiled once per thread
 * and shared): with its own private memory, or with `memory` when the module
 * imports one (`env.memory`). Returns its exports.
 *
 * @example
 * const ex = instantiate<RffExports>(RFF_WASM_BASE64);
 */
export function instantiate<T extends { memory: WasmMemory }>(base64: string, memory?: WasmMemory): T {
  let module = compiled.get(base64);
  if (module === undefined) {
    module = new wasm.Module(Buffer.from(base64, 'base64'));
    compiled.set(base64, module);
  }
  return new wasm.Instance(module, memory === undefined ? {} : { env: { memory } }).exports as unknown as T;
}

/**
 * A new shared wasm memory of at least `bytes` (its `buffer` is a
 * SharedArrayBuffer; threads that receive it see the same bytes and may grow it).
 *
 * @example
 * const memory = sharedMemory(1 << 20);
 */
export function sharedMemory(bytes: number): WasmMemory {
  const initial = Math.max(1, Math.ceil(bytes / PAGE));
  if (initial > MAX_PAGES) throw new RangeError(`a wasm memory holds at most 4 GiB, ${(bytes / 2 ** 30).toFixed(1)} GiB asked for`);
  return new wasm.Memory({ initial, maximum: MAX_PAGES, shared: true });
}

/**
 * A bump allocator of 16-byte-aligned regions from `base`: `take(doubles)` returns a byte offset.
 *
 * @example
 * const { take, end } = regions(base);
 * const points = take(n * d);
 * const out = take(n);
 * memoryEnsure(memory, end(), 'kernel');
 */
export function regions(base: number): { take: (doubles: number) => number; end: () => number } {
  let at = base;
  return {
    take: (doubles: number): number => {
      const start = at;
      at += Math.ceil((doubles * 8) / 16) * 16;
      return start;
    },
    end: () => at,
  };
}

/**
 * Grows `memory` to at least `bytes`; a failure is a RangeError that says what was asked for (`what`).
 *
 * @example
 * memoryEnsure(ex.memory, lay.end, () => `RffKernel: … for ${cap} points`);
 */
export function memoryEnsure(memory: WasmMemory, bytes: number, what: () => string): void {
  const have = memory.buffer.byteLength;
  if (bytes <= have) return;
  try {
    memory.grow(Math.ceil((bytes - have) / PAGE));
  } catch (err) {
    throw new RangeError(`${what()}: cannot grow wasm memory to ${(bytes / 2 ** 20).toFixed(0)} MiB; use smaller batches`, { cause: err });
  }
}
