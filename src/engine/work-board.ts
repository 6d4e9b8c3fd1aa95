/**
 * The work board: how the calling thread and the pool's workers share one
 * engine call through shared memory, without a message per task.
 *
 * A call's range (chunks of a history, or cached rows) is cut into UNITS of
 * `grain` chunks or rows. Unit boundaries never change a result: each chunk's
 * partial sum lands in its own slot and is reduced in chunk order by the
 * calling thread, and a cached row's value does not depend on who adds the
 * blocks to it (see chunk-runner.ts). The units are split into one contiguous
 * RUN per thread (thread 0 is the calling thread, 1 … the workers); a thread
 * takes the units of its own run one at a time, then takes units from the
 * other runs — so a thread that is slow or descheduled no longer holds the
 * call: the others finish its run. Each worker's first unit is offered to it:
 * the calling thread takes it only when it has nothing else left and the
 * worker has not started it (the worker is descheduled, or slow to wake), and
 * never in a session's first call, so every worker of a session is known to
 * take part.
 *
 * Workers stay in a long-running loop ({@link serveBoard}): between calls they
 * wait on the call generation — on a spinning board (every thread on a core
 * of its own) checking it for up to {@link SPIN_BUDGET_MS} first, then asleep
 * in `Atomics.wait`; the calling thread publishes a call by writing its
 * numbers here and bumping the generation (`Atomics.notify`). The parts of a
 * task that are not numbers (buffers, feature and kernel specs) change
 * rarely; they travel as a message on the worker's own port, read
 * synchronously (`receiveMessageOnPort`) only when the call's template
 * version says they changed.
 *
 * Layout of the board's SharedArrayBuffer: an Int32 header (generation, stop
 * flag, template version, units done, units, runs, grain, range start and
 * end, count of task numbers, strict flag, spin budget), per run its start,
 * end and cursor, per thread its thread id; then
 * Float64s: the task's numbers, and per thread the units done and the busy
 * milliseconds since the board was made.
 *
 * Claims are safe across calls: a run's cursor and its first-unit claim hold
 * the call's tag (its generation) beside the unit index, and a unit is taken
 * by compare-and-swap only under the tag the taker read, so a thread that
 * wakes late can never take a unit of a newer call with an older call's
 * numbers; and a thread prepares a task only once it holds a unit of it.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { ChunkRunner, EngineTask } from './chunk-runner.ts';
import { splitChunks } from './chunks.ts';

const GEN = 0;
const STOP = 1;
const VERSION = 2;
const DONE = 3;
const UNITS = 4;
const RUNS = 5;
const GRAIN = 6;
const FROM = 7;
const TO = 8;
const SCALARS = 9;
const STRICT = 10;
/** Microseconds a worker checks for the next call before it sleeps (0: it sleeps at once). */
const SPIN_US = 11;
const HEADER = 12;
/** Int32 slots per run: start, end, cursor, and the claim on its first unit. */
const RUN_SLOTS = 4;

/** Most numbers a task may carry (its fields that are numbers). */
export const MAX_TASK_NUMBERS = 24;
/** Bits of a cursor that hold the unit index; the rest hold the call's tag. */
const INDEX_BITS = 20;
/** Most units one call may be cut into. */
export const MAX_UNITS = 2 ** INDEX_BITS - 1;
const INDEX_MASK = MAX_UNITS;
const TAG_MASK = 0x7ff;
/** How long the calling thread checks for the last units before it waits through its event loop (ms), when the board does not spin. */
const SPIN_MS = 0.1;
/**
 * How long a thread of a spinning board checks for what it waits on before it
 * sleeps (ms): a worker, for the next call; the calling thread, for the last
 * units. It covers the calling thread's serial work between two calls of a
 * training loop (about 0.4 ms an iteration, docs/efficiency.md), so in a run
 * the workers are running when a call is published and no wake-up is paid
 * (`w` per worker, the cost that grows with the threads), and it bounds what
 * an idle worker burns to 1 ms a call.
 */
export const SPIN_BUDGET_MS = 1;
/**
 * Checks of what a spinning thread waits on between two readings of the
 * clock. Each `performance.now()` allocates: a spin that read it on every
 * check filled a worker's young generation every few calls, and the scavenge
 * that followed stalled the call that worker was in (15–16 scavenges of the
 * evaluation worker in a 400-call probe, against 4 for a board that does not
 * spin; docs/efficiency.md). At about 20 ns a check, 1,024 of them are about
 * 20 µs between readings.
 */
const CHECKS_PER_CLOCK = 1024;

/**
 * Checks `waiting()` until it is false or `ms` have passed, reading the clock
 * only every {@link CHECKS_PER_CLOCK} checks; true if it stopped waiting.
 */
function spinWhile(ms: number, waiting: () => boolean): boolean {
  const until = performance.now() + ms;
  for (let n = 1; waiting(); n++) if (n % CHECKS_PER_CLOCK === 0 && performance.now() >= until) return false;
  return true;
}

/** A published call as a thread read it. */
export interface BoardCall {
  /** The generation it was published under (even). */
  readonly gen: number;
  /** The task template version it needs. */
  readonly version: number;
  readonly units: number;
  readonly grain: number;
  /** The range the units cut: `[from, to)` chunks or rows. */
  readonly from: number;
  readonly to: number;
  /** Unit runs: run `r` is units `[starts[r], ends[r])`. */
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  /** Whether each worker's first unit is left to it (see {@link WorkBoard.publish}). */
  readonly strict: boolean;
  /** The task's numbers, in the template's key order. */
  readonly numbers: Float64Array;
}

/** The part of a task that is not numbers, and the names of its number fields (in the board's order). */
export interface TaskTemplate {
  readonly version: number;
  readonly shape: Readonly<Record<string, unknown>>;
  readonly keys: readonly string[];
}

/** What a thread did in one call. */
export interface ThreadShare {
  /** Units of the range (chunks or rows) it computed. */
  readonly done: number;
  readonly busyMs: number;
}

/**
 * Splits a task into its template (the fields that are not numbers) and its
 * numbers, keys sorted so that both ends agree on the order.
 *
 * @example
 * splitTask(task); // { shape: { kind: 'rows', history, … }, keys: ['cacheFirst', …], values: [0, …] }
 */
export function splitTask(task: EngineTask): { shape: Record<string, unknown>; keys: string[]; values: number[] } {
  const shape: Record<string, unknown> = {};
  const keys: string[] = [];
  for (const key of Object.keys(task).sort()) {
    const value = (task as unknown as Record<string, unknown>)[key];
    if (typeof value === 'number') keys.push(key);
    else shape[key] = value;
  }
  if (keys.length > MAX_TASK_NUMBERS) throw new RangeError(`work board: a task carries at most ${MAX_TASK_NUMBERS} numbers, got ${keys.length}`);
  return { shape, keys, values: keys.map((k) => (task as unknown as Record<string, number>)[k]) };
}

/**
 * Where a board for `threads` threads keeps what (see the module comment):
 * Int32 slots `[0, threadBase)` the header and the runs, then the thread ids;
 * Float64 slots from `numberBase` the task's numbers, from `doneBase` the
 * units done and from `busyBase` the busy ms per thread; `bytes` in all.
 */
function boardLayout(threads: number): { threadBase: number; numberBase: number; doneBase: number; busyBase: number; bytes: number } {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`work board: threads must be a positive integer, got ${threads}`);
  const threadBase = HEADER + RUN_SLOTS * threads;
  const numberBase = Math.ceil((threadBase + threads) / 2);
  const doneBase = numberBase + MAX_TASK_NUMBERS;
  const busyBase = doneBase + threads;
  return { threadBase, numberBase, doneBase, busyBase, bytes: 8 * (busyBase + threads) };
}

/**
 * The shared control block of one pool session (see the module comment).
 *
 * @example
 * const board = WorkBoard.create(3);             // the calling thread + 2 workers
 * const call = board.publish(1, values, [0, 100], 1, 3); // 100 chunks, one per unit, 3 runs
 * board.work(call, 0, () => runner.begin(task, board.home(call, 0))); // the calling thread's share, then stealing
 */
export class WorkBoard {
  readonly buffer: SharedArrayBuffer;
  /** Threads the board has slots for (the calling thread included). */
  readonly threads: number;
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  private readonly runBase: number;
  private readonly threadBase: number;
  private readonly numberBase: number;
  private readonly doneBase: number;
  private readonly busyBase: number;

  constructor(buffer: SharedArrayBuffer, threads: number) {
    const lay = boardLayout(threads);
    if (buffer.byteLength < lay.bytes) throw new RangeError(`work board: a board for ${threads} threads needs ${lay.bytes} bytes, got ${buffer.byteLength}`);
    this.buffer = buffer;
    this.threads = threads;
    this.runBase = HEADER;
    this.threadBase = lay.threadBase;
    this.numberBase = lay.numberBase;
    this.doneBase = lay.doneBase;
    this.busyBase = lay.busyBase;
    this.i32 = new Int32Array(buffer, 0, 2 * lay.numberBase);
    this.f64 = new Float64Array(buffer, 0, lay.bytes / 8);
  }

  /**
   * A fresh board for `threads` threads (the calling thread and the workers).
   * `spin`: its threads check for what they wait on for up to
   * {@link SPIN_BUDGET_MS} before they sleep — for a board whose threads each
   * have a core of their own; where threads outnumber cores a spinning thread
   * would take the core of one with work, so the default is to sleep at once.
   *
   * @example
   * const board = WorkBoard.create(pool.threads + 1, pool.threads + 1 <= availableCores());
   */
  static create(threads: number, spin = false): WorkBoard {
    const board = new WorkBoard(new SharedArrayBuffer(boardLayout(threads).bytes), threads);
    board.i32[SPIN_US] = spin ? Math.round(SPIN_BUDGET_MS * 1000) : 0;
    return board;
  }

  /** Whether the board's threads check for a while before they sleep (see {@link WorkBoard.create}). */
  get spins(): boolean {
    return this.i32[SPIN_US] > 0;
  }

  /** How long the board's threads check before they sleep, ms (0: they sleep at once). */
  private get spinMs(): number {
    return this.i32[SPIN_US] / 1000;
  }

  /** Whether the board has been told to stop. */
  get stopped(): boolean {
    return Atomics.load(this.i32, STOP) !== 0;
  }

  /**
   * Tells every thread to leave its loop, and wakes the sleeping ones.
   *
   * @example
   * board.stop();
   */
  stop(): void {
    Atomics.store(this.i32, STOP, 1);
    // Move the generation on too: a worker that found the board running just before it waits compares the
    // generation as it goes to sleep (Atomics.wait), so it cannot sleep through the stop (the flag alone can be missed).
    Atomics.add(this.i32, GEN, 2);
    Atomics.notify(this.i32, GEN);
  }

  /**
   * Publishes a call (calling thread): the range `[from, to)` in units of
   * `grain`, split into `runs` runs, with the task's numbers under template
   * `version`; wakes the workers. The previous call must be finished.
   * `strict`: the calling thread leaves each worker's first unit to that
   * worker however late it comes (a session's first call: every worker is
   * then known to serve); otherwise it takes a first unit nobody has started
   * once it has nothing else to do. Returns the call as the workers will read it.
   *
   * @example
   * const call = board.publish(version, values, [0, cache.n], 3128, 2);
   */
  publish(version: number, values: readonly number[], range: readonly [number, number], grain: number, runs: number, strict = false): BoardCall {
    const [from, to] = range;
    if (!(Number.isInteger(grain) && grain >= 1)) throw new RangeError(`work board: grain must be a positive integer, got ${grain}`);
    const units = Math.ceil((to - from) / grain);
    if (!(units >= 1 && units <= MAX_UNITS)) throw new RangeError(`work board: a call must have 1 … ${MAX_UNITS} units, got ${units}`);
    if (!(Number.isInteger(runs) && runs >= 1 && runs <= Math.min(units, this.threads))) throw new RangeError(`work board: runs must be in 1 … ${Math.min(units, this.threads)}, got ${runs}`);
    const { i32, f64 } = this;
    const gen = Atomics.load(i32, GEN);
    Atomics.store(i32, GEN, gen + 1); // odd: being written
    const next = gen + 2;
    const tag = ((next >>> 1) & TAG_MASK) << INDEX_BITS;
    i32[VERSION] = version;
    i32[UNITS] = units;
    i32[RUNS] = runs;
    i32[GRAIN] = grain;
    i32[FROM] = from;
    i32[TO] = to;
    i32[SCALARS] = values.length;
    i32[STRICT] = strict ? 1 : 0;
    for (let i = 0; i < values.length; i++) f64[this.numberBase + i] = values[i];
    const split = splitChunks(0, units, runs);
    const starts: number[] = [];
    const ends: number[] = [];
    for (let r = 0; r < runs; r++) {
      const [s, e] = split[r];
      starts.push(s);
      ends.push(e);
      const at = this.runBase + RUN_SLOTS * r;
      i32[at] = s;
      i32[at + 1] = e;
      // A worker's first unit is offered to it: the cursor starts after it, and the unit is claimed apart.
      Atomics.store(i32, at + 2, tag | (r === 0 ? s : s + 1));
      Atomics.store(i32, at + 3, tag);
    }
    Atomics.store(i32, DONE, 0);
    Atomics.store(i32, GEN, next);
    Atomics.notify(i32, GEN);
    return { gen: next, version, units, grain, from, to, starts, ends, strict, numbers: Float64Array.from(values) };
  }

  /**
   * The call published now, read consistently; undefined while one is being
   * written (or when it changed while being read).
   *
   * @example
   * const call = board.read();
   */
  read(): BoardCall | undefined {
    const { i32, f64 } = this;
    const gen = Atomics.load(i32, GEN);
    if (gen % 2 !== 0) return undefined;
    const runs = i32[RUNS];
    const starts: number[] = [];
    const ends: number[] = [];
    for (let r = 0; r < runs; r++) {
      starts.push(i32[this.runBase + RUN_SLOTS * r]);
      ends.push(i32[this.runBase + RUN_SLOTS * r + 1]);
    }
    const numbers = f64.slice(this.numberBase, this.numberBase + i32[SCALARS]);
    const call: BoardCall = { gen, version: i32[VERSION], units: i32[UNITS], grain: i32[GRAIN], from: i32[FROM], to: i32[TO], starts, ends, strict: i32[STRICT] !== 0, numbers };
    return Atomics.load(i32, GEN) === gen ? call : undefined;
  }

  /**
   * The part of the range thread `k` takes first (its run), `[from, to)`; empty for a thread the split does not name.
   *
   * @example
   * runner.begin(task, board.home(call, k));
   */
  home(call: BoardCall, k: number): [number, number] {
    if (k >= call.starts.length) return [call.from, call.from];
    return [call.from + call.starts[k] * call.grain, Math.min(call.to, call.from + call.ends[k] * call.grain)];
  }

  /**
   * Thread `k`'s part of a call: a worker named in the split first claims the
   * first unit of its run, then every thread takes the units left in its own
   * run and then in the others', until none is left (or the board stops).
   * Last, unless the call is strict, the calling thread (k = 0) takes any
   * worker's first unit that worker has not claimed yet: a worker that has
   * not even started by then is descheduled or slow to wake, and waiting for
   * it could only be slower. `begin()` is called once, before the first unit
   * this thread gets (a thread that gets none never prepares the task), and
   * returns the function that computes one unit's range. Returns what this
   * thread did.
   *
   * @example
   * board.work(call, 0, () => runner.begin(task, board.home(call, 0)));
   */
  work(call: BoardCall, k: number, begin: () => (from: number, to: number) => void): ThreadShare {
    const runs = call.starts.length;
    const tag = ((call.gen >>> 1) & TAG_MASK) << INDEX_BITS;
    let done = 0;
    let busyMs = 0;
    let part: ((from: number, to: number) => void) | undefined;
    const unit = (u: number): void => {
      const t0 = performance.now();
      part ??= begin();
      const from = call.from + u * call.grain;
      const to = Math.min(call.to, from + call.grain);
      part(from, to);
      const ms = performance.now() - t0;
      done += to - from;
      busyMs += ms;
      this.f64[this.doneBase + k] += to - from;
      this.f64[this.busyBase + k] += ms;
      if (Atomics.add(this.i32, DONE, 1) + 1 === call.units) Atomics.notify(this.i32, DONE);
    };
    if (k >= 1 && k < runs && this.claimFirst(k, tag)) unit(call.starts[k]);
    let victim = k % runs;
    for (let tried = 0; tried < runs && !this.stopped; ) {
      const u = this.take(victim, tag);
      if (u < 0) {
        victim = (victim + 1) % runs;
        tried++;
      } else unit(u);
    }
    if (k === 0 && !call.strict) for (let r = 1; r < runs; r++) if (this.claimFirst(r, tag)) unit(call.starts[r]);
    return { done, busyMs };
  }

  /** Claims the first unit of run `r` (≥ 1) under the call's tag; false if someone has, or the call is over. */
  private claimFirst(r: number, tag: number): boolean {
    return Atomics.compareExchange(this.i32, this.runBase + RUN_SLOTS * r + 3, tag, tag | 1) === tag;
  }

  /** Takes the next unit of run `r` under the call's tag; −1 when the run is empty or the call is over. */
  private take(r: number, tag: number): number {
    const { i32 } = this;
    const at = this.runBase + RUN_SLOTS * r + 2;
    const end = i32[this.runBase + RUN_SLOTS * r + 1];
    for (;;) {
      const c = Atomics.load(i32, at);
      if ((c & ~INDEX_MASK) !== tag) return -1;
      const u = c & INDEX_MASK;
      if (u >= end) return -1;
      if (Atomics.compareExchange(i32, at, c, c + 1) === c) return u;
    }
  }

  /**
   * Whether every unit of the call published as `units` units is done.
   *
   * @example
   * board.finished(call.units);
   */
  finished(units: number): boolean {
    return Atomics.load(this.i32, DONE) >= units;
  }

  /**
   * Resolves when every unit of the current call is done (the calling thread
   * waits without blocking its event loop), or when `failure` rejects.
   *
   * @example
   * await board.whenDone(call.units, session.failure);
   */
  async whenDone(units: number, failure: Promise<never>): Promise<void> {
    const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
    if (spinWhile(this.spinMs || SPIN_MS, () => Atomics.load(this.i32, DONE) < units)) return;
    for (;;) {
      const done = Atomics.load(this.i32, DONE);
      if (done >= units) return;
      const w = waitAsync(this.i32, DONE, done, 1000);
      if (w.async) await Promise.race([w.value, failure]);
    }
  }

  /**
   * Thread `k`'s totals since the board was made: units of range done, busy ms, and its thread id.
   *
   * @example
   * const { done, busyMs } = board.totals(1);
   */
  totals(k: number): { done: number; busyMs: number; thread: number } {
    return { done: this.f64[this.doneBase + k], busyMs: this.f64[this.busyBase + k], thread: Atomics.load(this.i32, this.threadBase + k) };
  }

  /**
   * Records thread `k`'s thread id (a worker does, when it starts serving).
   *
   * @example
   * board.register(index, threadId);
   */
  register(k: number, thread: number): void {
    Atomics.store(this.i32, this.threadBase + k, thread);
  }

  /**
   * Waits (worker threads only) until the generation is no longer `gen` or
   * the board stops: on a spinning board it checks for up to
   * {@link SPIN_BUDGET_MS} first, then it sleeps.
   *
   * @example
   * board.sleep(call.gen);
   */
  sleep(gen: number): void {
    const { i32 } = this;
    const spinMs = this.spinMs;
    if (spinMs > 0 && spinWhile(spinMs, () => Atomics.load(i32, GEN) === gen && !this.stopped)) return;
    if (!this.stopped) Atomics.wait(i32, GEN, gen);
  }

  /** The generation as it stands. */
  get generation(): number {
    return Atomics.load(this.i32, GEN);
  }
}

type WaitAsync = (a: Int32Array, index: number, value: number, timeout?: number) => { async: false; value: string } | { async: true; value: Promise<string> };

/** What a worker is given to serve a board: the board, its slot, and the port its task templates come on. */
export interface ServeTask {
  readonly serve: { readonly board: SharedArrayBuffer; readonly threads: number; readonly index: number; readonly port: MessagePort };
}

/**
 * A worker's loop over a board (run as one long Piscina task): sleep until a
 * call is published, read it, take the template from the port when the call
 * needs a newer one, compute units with `runner` (its first unit, its run,
 * then the others'), and sleep again — until the board stops. An error in a
 * unit leaves the loop (the task rejects, and so does the call).
 *
 * @example
 * // workers/evaluate.ts
 * if ('serve' in task) return serveBoard(task, runner, threadId);
 */
export function serveBoard(task: ServeTask, runner: ChunkRunner, thread: number): { calls: number } {
  const { board: buffer, threads, index, port } = task.serve;
  const board = new WorkBoard(buffer, threads);
  board.register(index, thread);
  let template: TaskTemplate | undefined;
  let seen = 0;
  let calls = 0;
  try {
    for (;;) {
      board.sleep(seen);
      if (board.stopped) return { calls };
      const call = board.read();
      if (call === undefined) {
        // Being written: wait for the generation to move on from the odd value.
        const gen = board.generation;
        if (gen % 2 !== 0) board.sleep(gen);
        continue;
      }
      seen = call.gen;
      while (template === undefined || template.version < call.version) {
        const message = receiveMessageOnPort(port);
        if (message === undefined) throw new Error(`work board: call needs task template ${call.version}, none arrived`);
        template = message.message as TaskTemplate;
      }
      const fields: Record<string, unknown> = { ...template.shape };
      template.keys.forEach((key, i) => (fields[key] = call.numbers[i]));
      const task = fields as unknown as EngineTask;
      board.work(call, index, () => runner.begin(task, board.home(call, index)));
      calls++;
    }
  } finally {
    port.close();
  }
}
