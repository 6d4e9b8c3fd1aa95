/**
 * The cores a run may use: the CPU affinity Node reports, capped by a cgroup
 * CPU quota — read from the files the kernel exposes, here laid out as a
 * container with a v2 (unified) or v1 hierarchy would show them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { availableCores, cgroupCpuQuota } from '../src/engine/cores.ts';
import { resolveThreads } from '../src/api.ts';

/** A filesystem root holding `files` (path → contents). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'dsgkit-cgroup-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const v2Mount = '30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n';
const v1Mounts = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
  '34 31 0:31 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '',
].join('\n');

describe('cores', () => {
  it('on this machine: at least 1, never more than Node reports, the same on every call', () => {
    const cores = availableCores();
    expect(cores).toBeGreaterThanOrEqual(1);
    expect(cores).toBeLessThanOrEqual(availableParallelism());
    expect(availableCores()).toBe(cores);
    const quota = cgroupCpuQuota();
    if (quota !== undefined) expect(cores).toBe(Math.min(availableParallelism(), quota));
    else expect(cores).toBe(availableParallelism());
  });

  it('reads a v2 quota, the smallest from the cgroup up to the root, rounded down', () => {
    const root = tree({
      'proc/self/cgroup': '0::/kubepods/pod1/ctr\n',
      'proc/self/mountinfo': v2Mount,
      'sys/fs/cgroup/cpu.max': 'max 100000\n',
      'sys/fs/cgroup/kubepods/cpu.max': '1200000 100000\n',
      'sys/fs/cgroup/kubepods/pod1/cpu.max': '850000 100000\n',
      'sys/fs/cgroup/kubepods/pod1/ctr/cpu.max': 'max 100000\n',
    });
    expect(cgroupCpuQuota(root)).toBe(8);
  });

  it('reads a v1 quota where the container sees its own cgroup as the mount root', () => {
    const root = tree({
      'proc/self/cgroup': '5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n',
      'proc/self/mountinfo': v1Mounts,
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '400000\n',
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    });
    expect(cgroupCpuQuota(root)).toBe(4);
  });

  it('no quota (v2 "max", v1 −1, missing files) is undefined; a quota under one core is 1', () => {
    expect(cgroupCpuQuota(tree({ 'proc/self/cgroup': '0::/\n', 'proc/self/mountinfo': v2Mount, 'sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBeUndefined();
    expect(cgroupCpuQuota(tree({
      'proc/self/cgroup': '4:cpu,cpuacct:/docker/abc\n',
      'proc/self/mountinfo': v1Mounts,
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '-1\n',
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    }))).toBeUndefined();
    expect(cgroupCpuQuota(tree({}))).toBeUndefined();
    expect(cgroupCpuQuota(tree({ 'proc/self/cgroup': '0::/\n', 'proc/self/mountinfo': v2Mount, 'sys/fs/cgroup/cpu.max': '50000 100000\n' }))).toBe(1);
  });

  it('train clamps a requested thread count to those cores, with a warning', () => {
    const warnings: string[] = [];
    expect(resolveThreads(availableCores() + 5, (m) => warnings.push(m))).toBe(availableCores());
    expect(warnings.join()).toMatch(new RegExp(`more than the ${availableCores()} cores available`));
    expect(resolveThreads(undefined, () => {})).toBe(availableCores());
  });
});
