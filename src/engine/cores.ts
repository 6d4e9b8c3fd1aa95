/**
 * How many cores this process may keep busy: what the default thread count,
 * the clamp on a requested count, and the workers' choice to spin between
 * calls (work-board.ts) are decided from.
 *
 * `os.availableParallelism()` counts the CPUs the process may be scheduled
 * on (its affinity mask), but on Node 20 (libuv 1.46) not a cgroup CPU quota:
 * a container started with `--cpus=8` on a 56-core host reports 56. Training
 * there with 56 threads, whose workers spin between calls, would burn the
 * quota seven times over and be throttled. So the quota is read here, from
 * the cgroup files the kernel exposes, the way libuv ≥ 1.49 (Node ≥ 22) and
 * Rust's `available_parallelism` read it: the smallest `quota / period` of
 * the process's cgroup and its ancestors, rounded down, at least 1.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, posix } from 'node:path';

/** A cgroup hierarchy the process is in: where it is mounted and the process's directory in it. */
interface Hierarchy {
  readonly version: 1 | 2;
  /** Mount point of the hierarchy (its root as this process sees it). */
  readonly mount: string;
  /** The process's cgroup, relative to the mount point. */
  readonly path: string;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The cgroup hierarchies that hold a CPU quota for this process: the v2
 * (unified) one, and the v1 one with the `cpu` controller — found by matching
 * `/proc/self/cgroup` against the mounts in `/proc/self/mountinfo`.
 */
function cpuHierarchies(root: string): Hierarchy[] {
  const membership = readText(join(root, 'proc/self/cgroup'));
  const mounts = readText(join(root, 'proc/self/mountinfo'));
  if (membership === undefined || mounts === undefined) return [];
  // The process's cgroup in each kind of hierarchy: "0::<path>" (v2), "<id>:<controllers>:<path>" (v1).
  const entries = membership.split('\n').map((l) => l.split(':')).filter((f) => f.length >= 3);
  const pathIn = { 2: entries.find((f) => f[0] === '0' && f[1] === '')?.slice(2).join(':'), 1: entries.find((f) => f[1].split(',').includes('cpu'))?.slice(2).join(':') };
  const found: Hierarchy[] = [];
  for (const line of mounts.split('\n')) {
    // "36 35 98:0 <root> <mount point> <options> [optional fields] - <fstype> <source> <super options>"
    const [before, after] = line.split(' - ');
    if (after === undefined) continue;
    const fields = before.split(' ');
    const [fstype, , superOptions = ''] = after.split(' ');
    const mountRoot = fields[3];
    const mountPoint = fields[4];
    if (mountRoot === undefined || mountPoint === undefined) continue;
    const version = fstype === 'cgroup2' ? 2 : fstype === 'cgroup' && superOptions.split(',').includes('cpu') ? 1 : undefined;
    const cgroupPath = version !== undefined ? pathIn[version] : undefined;
    if (version === undefined || cgroupPath === undefined) continue;
    // The process's cgroup relative to what the mount shows (a container sees its own cgroup as the mount's root).
    const relative = posix.relative(mountRoot, cgroupPath);
    found.push({ version, mount: join(root, mountPoint), path: relative.startsWith('..') ? '' : relative });
  }
  return found;
}

/** The cores one cgroup directory's quota allows (fractional), or undefined where it sets none. */
function quotaAt(dir: string, version: 1 | 2): number | undefined {
  if (version === 2) {
    const [quota, period] = (readText(join(dir, 'cpu.max')) ?? 'max').trim().split(/\s+/);
    const q = Number(quota);
    const p = Number(period ?? 100_000);
    return quota !== 'max' && q > 0 && p > 0 ? q / p : undefined;
  }
  const q = Number(readText(join(dir, 'cpu.cfs_quota_us'))?.trim());
  const p = Number(readText(join(dir, 'cpu.cfs_period_us'))?.trim());
  return q > 0 && p > 0 ? q / p : undefined;
}

/**
 * The cores a cgroup CPU quota allows this process (the smallest over its
 * cgroup and their ancestors, in v2 and v1 hierarchies; rounded down, at
 * least 1), or undefined where no quota is set or the files cannot be read.
 * `root` is where the filesystem is read from (`/`; a directory holding
 * `proc/self/…` and the mounts' files for tests).
 *
 * @example
 * cgroupCpuQuota(); // undefined on a machine without a quota; 8 in `docker run --cpus=8.5`
 */
export function cgroupCpuQuota(root = '/'): number | undefined {
  let least: number | undefined;
  for (const { version, mount, path } of cpuHierarchies(root)) {
    // From the process's cgroup up to the mount's root, each level's quota applies.
    for (let rel = path; ; rel = posix.dirname(rel)) {
      const cores = quotaAt(join(mount, rel === '.' ? '' : rel), version);
      if (cores !== undefined) least = Math.min(least ?? Infinity, cores);
      if (rel === '' || rel === '.' || rel === '/') break;
    }
  }
  return least === undefined ? undefined : Math.max(1, Math.floor(least));
}

let cached: number | undefined;

/**
 * Cores this process may keep busy: `os.availableParallelism()` capped by a
 * cgroup CPU quota ({@link cgroupCpuQuota}); read once per process.
 *
 * @example
 * availableCores(); // 2 on the development VM; 8 in a --cpus=8 container on a 56-core host
 */
export function availableCores(): number {
  cached ??= Math.min(availableParallelism(), cgroupCpuQuota() ?? Infinity);
  return cached;
}
