/**
 * Reads V8 CPU profiles (`node --cpu-prof`, one file per thread) and prints,
 * per thread, its sampled time, the functions it spent the most in by
 * themselves (self time) and with their callees (inclusive time): where a
 * short run's wall time went on the calling thread and how busy each worker
 * was. bench/device/run-carried.sh `cpuprofile` writes such a folder.
 *
 * @example
 * // npx tsx bench/profile-summary.ts /tmp/prof            (every .cpuprofile in the folder)
 * // npx tsx bench/profile-summary.ts /tmp/prof --top 40   (more rows)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A frame's name as the tables print it: function (file:line), the file without its folders. */
function frameName(f: CallFrame): string {
  const file = basename(f.url) || '-';
  return `${f.functionName || '(anonymous)'} (${file}:${f.lineNumber + 1})`;
}

/** Self and inclusive milliseconds by frame name, and the sampled and idle totals. */
export function summarise(p: CpuProfile): { self: Map<string, number>; inclusive: Map<string, number>; sampledMs: number; idleMs: number; wallMs: number } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let sampledMs = 0;
  let idleMs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const ms = p.timeDeltas[i] / 1000;
    const leaf = byId.get(p.samples[i])!;
    const name = frameName(leaf.callFrame);
    sampledMs += ms;
    if (leaf.callFrame.functionName === '(idle)') idleMs += ms;
    self.set(name, (self.get(name) ?? 0) + ms);
    // Inclusive: each frame once per sample, however deep it recurses.
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const n = frameName(byId.get(id)!.callFrame);
      if (seen.has(n)) continue;
      seen.add(n);
      inclusive.set(n, (inclusive.get(n) ?? 0) + ms);
    }
  }
  return { self, inclusive, sampledMs, idleMs, wallMs: (p.endTime - p.startTime) / 1000 };
}

function top(m: Map<string, number>, k: number): string {
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([name, ms]) => `  ${ms.toFixed(1).padStart(9)} ms  ${name}`)
    .join('\n');
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
const k = Number(values.top);
for (const dir of positionals) {
  const files = statSync(dir).isDirectory() ? readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort().map((f) => join(dir, f)) : [dir];
  const all = files.map((f) => ({ f, s: summarise(JSON.parse(readFileSync(f, 'utf8')) as CpuProfile) }));
  // Busiest first: the calling thread and the busiest workers in full, the other threads by their totals.
  all.sort((a, b) => b.s.sampledMs - b.s.idleMs - (a.s.sampledMs - a.s.idleMs));
  all.forEach(({ f, s }, i) => {
    process.stdout.write(`\n== ${f}: wall ${s.wallMs.toFixed(0)} ms, busy ${(s.sampledMs - s.idleMs).toFixed(0)} ms, idle ${s.idleMs.toFixed(0)} ms\n`);
    if (i < 3) process.stdout.write(`self:\n${top(s.self, k)}\ninclusive:\n${top(s.inclusive, k)}\n`);
  });
}
