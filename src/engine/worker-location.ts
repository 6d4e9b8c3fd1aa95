/**
 * Where a worker entry point of `workers/` lives, and how to start it, in the
 * same flavour as the running code: `workers/<name>.js` in the compiled
 * package (`dist/`), `workers/<name>.ts` through tsx when running from
 * TypeScript sources (vitest, `tsx`). One place for the rule, shared by every
 * module that starts a thread (the Piscina pool, the Comlink trainer handle).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker script and the `execArgv` its thread needs to load it. */
export interface WorkerLocation {
  /** `file:` URL of the entry point. */
  readonly url: URL;
  /** True when the entry point is TypeScript (running from sources). */
  readonly fromSource: boolean;
  /**
   * `['--import', <tsx loader>]` from sources, `[]` from `dist/`. Enough for
   * Piscina, whose own worker loads the task file after start-up; a plain
   * `new Worker` of a `.ts` file needs {@link startWorker} instead.
   */
  readonly execArgv: string[];
}

/**
 * Locates `workers/<name>.ts|js` relative to this module (this file and the
 * workers keep their relative places under `dist/`).
 *
 * @example
 * const { url, execArgv } = workerLocation('evaluate');
 * const pool = new Piscina({ filename: url.href, execArgv });
 */
export function workerLocation(name: string): WorkerLocation {
  if (!/^[\w-]+$/.test(name)) throw new RangeError(`worker name must be a plain file stem, got '${name}'`);
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`../../workers/${name}.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  // From sources the worker needs tsx's loader (a dev dependency); resolve it here so the
  // worker does not depend on the cwd. (`import.meta.resolve` is not available under vitest.)
  const execArgv = fromSource ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : [];
  return { url, fromSource, execArgv };
}

/**
 * Starts `workers/<name>` in a new `worker_threads` thread. From `dist/` that
 * is `new Worker(url)`; from sources the thread first registers tsx's ESM
 * hooks through its API and then imports the `.ts` entry (measured on Node
 * 20.20 with tsx 4: with tsx's `--import` loader in `execArgv`, a worker's `.ts`
 * entry fails with ERR_UNKNOWN_FILE_EXTENSION).
 *
 * @example
 * const worker = startWorker('trainer', { name: 'dsgkit-trainer' });
 * worker.once('exit', (code) => console.log('trainer exited', code));
 */
export function startWorker(name: string, options: WorkerOptions = {}): Worker {
  const { url, fromSource } = workerLocation(name);
  if (!fromSource) return new Worker(url, options);
  const boot =
    `import(${JSON.stringify(tsxEsmApi())})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

let tsxEsmApiUrl: string | undefined;

/** `file:` URL of tsx's ESM API (`tsx/esm/api`, import condition), read from tsx's package.json. */
function tsxEsmApi(): string {
  if (tsxEsmApiUrl) return tsxEsmApiUrl;
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import?: { default?: string } }> };
  const entry = pkg.exports['./esm/api']?.import?.default;
  if (!entry) throw new Error(`${pkgPath}: no "./esm/api" import entry; cannot start a TypeScript worker from sources`);
  tsxEsmApiUrl = pathToFileURL(join(dirname(pkgPath), entry)).href;
  return tsxEsmApiUrl;
}
