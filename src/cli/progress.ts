/**
 * Training progress on stderr. On a terminal: a `cli-progress` bar with
 * iterations done/T, iterations per second, an ETA and the latest validation
 * metric. Anywhere else (CI logs, files, tests): one plain line each time
 * another tenth of the run is done. With `quiet`: nothing.
 */
import cliProgress from 'cli-progress';
import type { Progress } from '../api.ts';
import type { CliIO } from './io.ts';
import { thousands } from '../data/numbers.ts';

/**
 * Estimated time left (ms) after `t` of `T` iterations took `elapsedMs`.
 *
 * Iteration t evaluates f over all t − 1 earlier blocks, so its cost grows
 * linearly in t and the run is O(T²). An ETA from the average rate
 * (elapsed·(T − t)/t) is therefore far too optimistic. We model the cost of
 * iteration s as `a + b·s`:
 *
 * - with only the elapsed time known, take a = 0: elapsed ≈ b·t²/2, so the
 *   time left is b·(T² − t²)/2 = elapsed·(T² − t²)/t²;
 * - with the current cost per iteration `c` known too (from the recent
 *   rate), fit both: c = a + b·t and elapsed = a·t + b·t²/2 give
 *   b = 2(c·t − elapsed)/t² (clamped at 0: early on, warm-up makes the rate
 *   rise) and a = c − b·t; the time left is a·(T − t) + b·(T² − t²)/2. The
 *   fixed part `a` (sampling, small calls, pool start) is large in short runs,
 *   and the first formula then overestimates several-fold early in a run.
 *
 * @example
 * remainingMs(100, 400, 1000);     // 15000: a quarter of the iterations took 1/16 of the time
 * remainingMs(100, 400, 1000, 20); // b = 2·(2000 − 1000)/100² = 0.2, a = 0 → 15000 as well
 */
export function remainingMs(t: number, T: number, elapsedMs: number, msPerIteration?: number): number {
  if (t <= 0) return NaN;
  if (t >= T) return 0;
  if (msPerIteration === undefined || !Number.isFinite(msPerIteration)) return (elapsedMs * (T * T - t * t)) / (t * t);
  const b = Math.max(0, (2 * (msPerIteration * t - elapsedMs)) / (t * t));
  const a = Math.max(0, msPerIteration - b * t);
  return a * (T - t) + (b * (T * T - t * t)) / 2;
}

/**
 * A duration for people: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`.
 *
 * @example
 * formatDuration(245_000); // "4 min 05 s"
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ${String(Math.round(s - 60 * min)).padStart(2, '0')} s`;
  const h = Math.floor(min / 60);
  return `${h} h ${String(min - 60 * h).padStart(2, '0')} min`;
}

/** Where the progress of one training run is shown. */
export interface ProgressDisplay {
  /** Takes one `onProgress` report (called every iteration; throttles itself). */
  update(p: Progress): void;
  /** Ends the display (final bar state, newline); safe to call twice. */
  stop(): void;
}

/** Options of {@link progressDisplay}. */
export interface ProgressDisplayOptions {
  /** Shown in front of the bar or line, e.g. the learner's name. */
  label: string;
  /** Width the label is padded to in the bar, so bars of several runs line up. */
  labelWidth?: number;
  /** Show nothing. */
  quiet?: boolean;
  /** Force the plain-line mode even on a terminal (default: bar iff stderr is a TTY). */
  plain?: boolean;
}

/** Iterations per second over the last second or so (the rate falls as t grows, so a run-long average misleads). */
class RecentRate {
  private readonly samples: Array<[number, number]> = [];

  add(t: number, ms: number): number {
    const s = this.samples;
    if (s.length === 0 || ms - s[s.length - 1][1] >= 100) s.push([t, ms]);
    while (s.length > 2 && ms - s[1][1] >= 1000) s.shift();
    const [t0, ms0] = s[0];
    return ms > ms0 && t > t0 ? ((t - t0) * 1000) / (ms - ms0) : t > 0 && ms > 0 ? (t * 1000) / ms : NaN;
  }
}

function formatRate(rate: number): string {
  if (!Number.isFinite(rate)) return '?';
  return rate >= 100 ? rate.toFixed(0) : rate >= 10 ? rate.toFixed(1) : rate.toFixed(2);
}

function formatMetric(p: Progress): string {
  return p.metric ? `validation ${p.metric.name} ${p.metric.value.toFixed(4)} (t = ${p.metric.t})` : '';
}

/**
 * A progress display for one training run on `io.stderr`: a bar when stderr
 * is a TTY, else a line at every 10 % (`<learner>: 30% (120/400 iterations), …`),
 * nothing when `quiet`.
 *
 * @example
 * const shown = progressDisplay(io, { label: spec.name });
 * try { await train({ ..., onProgress: (p) => shown.update(p) }); } finally { shown.stop(); }
 */
export function progressDisplay(io: CliIO, opts: ProgressDisplayOptions): ProgressDisplay {
  if (opts.quiet) return { update() {}, stop() {} };
  const tty = !opts.plain && (io.stderr as { isTTY?: boolean }).isTTY === true;
  return tty ? barDisplay(io, opts.label.padEnd(opts.labelWidth ?? 0)) : lineDisplay(io, opts.label);
}

function lineDisplay(io: CliIO, label: string): ProgressDisplay {
  const rate = new RecentRate();
  let lastTenth = 0;
  return {
    update(p) {
      const r = rate.add(p.t, p.elapsedMs);
      const tenth = Math.floor((10 * p.t) / p.T);
      if (tenth <= lastTenth) return;
      lastTenth = tenth;
      const metric = formatMetric(p);
      const eta = p.t < p.T ? `, ETA ${formatDuration(remainingMs(p.t, p.T, p.elapsedMs, 1000 / r))}` : '';
      io.stderr.write(
        `${label}: ${String(Math.floor((100 * p.t) / p.T)).padStart(3)}% (${p.t}/${p.T} iterations), ${formatRate(r)} it/s, ` +
          `elapsed ${formatDuration(p.elapsedMs)}${eta}${metric ? `, ${metric}` : ''}\n`,
      );
    },
    stop() {},
  };
}

function barDisplay(io: CliIO, label: string): ProgressDisplay {
  const rate = new RecentRate();
  const bar = new cliProgress.SingleBar({
    format: `${label} [{bar}] {percentage}% | {value}/{total} it | {rate} it/s | ETA {remaining}{metric}`,
    stream: io.stderr as NodeJS.WritableStream,
    barsize: 24,
    fps: 10,
    hideCursor: null,
    gracefulExit: false, // SIGINT is ours: it cancels training, and the command stops the bar
    linewrap: null,
  });
  let started = false;
  let stopped = false;
  return {
    update(p) {
      if (stopped) return;
      const r = rate.add(p.t, p.elapsedMs);
      const payload = {
        rate: formatRate(r),
        remaining: p.t >= Math.max(2, p.T / 50) ? formatDuration(remainingMs(p.t, p.T, p.elapsedMs, 1000 / r)) : '…',
        metric: p.metric ? ` | ${p.metric.name} ${p.metric.value.toFixed(4)}` : '',
      };
      if (!started) {
        bar.start(p.T, p.t, payload);
        started = true;
      } else bar.update(p.t, payload);
    },
    stop() {
      if (started && !stopped) bar.stop();
      stopped = true;
    },
  };
}

/** Reports of a pass over the rows of a file, as {@link rowsProgress} shows them. */
export interface RowsProgress {
  /** Rows done so far. */
  update(rows: number): void;
  /** The last line (when anything was shown). */
  stop(): void;
}

/**
 * Progress of a streaming pass over `n` rows on stderr (`predict`, `evaluate`,
 * sample on read): one line each time another tenth is done, with rows per
 * second and the time left (rows cost the same, so the ETA is linear); none
 * in the first second (a small file says nothing). Nothing when `quiet`.
 *
 * @example
 * const p = rowsProgress(io, 'predict big.arrow', 20_000_000);
 * p.update(2_000_000); // "predict big.arrow: 2,000,000 / 20,000,000 rows (10%), 1.52 M rows/s, ETA 11.8 s"
 */
export function rowsProgress(io: CliIO, label: string, n: number, quiet = false): RowsProgress {
  const start = performance.now();
  let shown = 0;
  let last = 0;
  const line = (rows: number) => {
    const s = (performance.now() - start) / 1000;
    const rate = s > 0 ? rows / s : NaN;
    const eta = rate > 0 ? ((n - rows) / rate) * 1000 : NaN;
    const pct = n > 0 ? Math.floor((100 * rows) / n) : 100;
    io.stderr.write(`${label}: ${thousands(rows)} / ${thousands(n)} rows (${pct}%), ${(rate / 1e6).toFixed(2)} M rows/s, ETA ${formatDuration(eta)}\n`);
  };
  return {
    update(rows) {
      last = rows;
      if (quiet || n <= 0) return;
      const tenth = Math.floor((10 * rows) / n);
      if (tenth > shown && performance.now() - start >= 1000) {
        shown = tenth;
        line(rows);
      }
    },
    stop() {
      if (!quiet && shown > 0 && shown < 10) line(last);
    },
  };
}
