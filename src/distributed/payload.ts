/**
 * Checks on a job's payload before a worker acts on it: every field has the
 * type and range it must, nothing else is there, and every path is absolute,
 * normalised and — symbolic links resolved — inside one of the worker's
 * allowed roots (`dsgkit worker --data-root`). A payload is data, never code:
 * a worker runs only dsgkit's own job types (queue.ts's `JOB_TYPES`).
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, normalize, sep } from 'node:path';

/** A payload the worker refuses; the coordinator shows the message. */
export class PayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadError';
  }
}

type Field = 'string' | 'int' | 'path' | 'hex64' | 'id' | 'json' | 'base64';

/**
 * The payload's fields, checked against `spec` (a trailing `?` marks an
 * optional field). Returns the payload typed as `T`.
 *
 * @example
 * const p = checkFields<{ model: string; first: number }>('predict-range', data, { model: 'path', first: 'int' });
 */
export function checkFields<T>(type: string, data: unknown, spec: Record<string, Field>): T {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new PayloadError(`${type}: the payload is not an object`);
  const obj = data as Record<string, unknown>;
  const names = new Map(Object.entries(spec).map(([k, v]) => [k.replace(/\?$/, ''), { kind: v, optional: k.endsWith('?') }]));
  for (const key of Object.keys(obj)) if (!names.has(key)) throw new PayloadError(`${type}: unknown field '${key}'`);
  for (const [key, { kind, optional }] of names) {
    const v = obj[key];
    if (v === undefined) {
      if (optional) continue;
      throw new PayloadError(`${type}: field '${key}' is missing`);
    }
    const ok =
      kind === 'string' ? typeof v === 'string' && v.length <= 4096
      : kind === 'int' ? Number.isSafeInteger(v) && (v as number) >= 0
      : kind === 'path' ? typeof v === 'string' && v.length <= 4096 && isAbsolute(v) && normalize(v) === v && !v.includes('\0')
      : kind === 'hex64' ? typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)
      : kind === 'id' ? typeof v === 'string' && /^[0-9a-z]{1,40}$/.test(v)
      : kind === 'base64' ? typeof v === 'string' && v.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(v)
      : v !== null && typeof v === 'object';
    if (!ok) throw new PayloadError(`${type}: field '${key}' is not ${kind === 'path' ? 'an absolute, normalised path' : kind === 'int' ? 'a non-negative integer' : `a valid ${kind}`}`);
  }
  return obj as T;
}

/** The real paths of the allowed roots, resolved once. */
export async function resolveRoots(roots: readonly string[]): Promise<string[]> {
  return Promise.all(roots.map(async (r) => realpath(r)));
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Throws a PayloadError unless `path` (a file to read, or with `toWrite` a
 * file whose folder must exist) resolves inside one of `roots`.
 *
 * @example
 * await checkUnderRoots('/shared/big.arrow', ['/shared'], 'data'); // ok
 * await checkUnderRoots('/etc/passwd', ['/shared'], 'data');       // PayloadError
 */
export async function checkUnderRoots(path: string, roots: readonly string[], field: string, toWrite = false): Promise<void> {
  let real: string;
  try {
    real = toWrite ? `${await realpath(dirname(path))}${sep}${path.slice(dirname(path).length + 1)}` : await realpath(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new PayloadError(`${field} '${toWrite ? dirname(path) : path}' cannot be read on this worker (${code}); every worker must see the same files at the same paths (a shared filesystem)`);
  }
  if (!roots.some((r) => inside(real, r))) {
    throw new PayloadError(`${field} '${path}' is outside this worker's allowed roots (${roots.join(', ')}); start the worker with --data-root naming the shared folder`);
  }
}
