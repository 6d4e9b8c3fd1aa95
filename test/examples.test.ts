/**
 * Every example a user is shown runs as written, on the bundled data:
 * - each script in examples/ (`.mjs` with node, `.ts` with tsx), importing
 *   `dsgkit` as a user would (the package's own name, resolved to dist/);
 * - every shell block of README.md, and the example of `dsgkit --help` and
 *   of every command's `--help`, with `dsgkit` on the PATH;
 * each in a fresh folder holding a copy of data/, expecting exit 0.
 * README's script snippets must be copied from examples/ (so they run too).
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/commands/index.ts';

const repo = resolve(import.meta.dirname, '..');
const base = mkdtempSync(join(tmpdir(), 'dsgkit-examples-'));
const binDir = join(base, 'bin');

/** The newest modification time under `dir` of files ending in `.ts`. */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (e.name.endsWith('.ts')) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

/** dist/ as `import 'dsgkit'` resolves it: built when missing or older than a source file. */
function ensureBuilt(): void {
  const entry = join(repo, 'dist/src/index.js');
  let built = 0;
  try {
    built = statSync(entry).mtimeMs;
  } catch {
    // not built yet
  }
  if (built < Math.max(newest(join(repo, 'src')), newest(join(repo, 'workers')))) {
    execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: repo, stdio: 'inherit' });
  }
}

/** A fresh folder with a copy of data/, as a user's clone has it. */
function workdir(name: string): string {
  const dir = join(base, name.replace(/[^\w.-]+/g, '_'));
  mkdirSync(dir, { recursive: true });
  cpSync(join(repo, 'data'), join(dir, 'data'), { recursive: true });
  return dir;
}

/**
 * Runs a command in `cwd` with `dsgkit` on the PATH; fails the test with its
 * output unless it exits 0. (Asynchronous: a long synchronous child would
 * starve the test runner's own messages.)
 */
function runIn(cwd: string, cmd: string, args: string[]): Promise<string> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, NO_COLOR: '1', DSGKIT_EXAMPLE_T: '40' }, timeout: 90_000, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      const out = `${stdout}${stderr}`;
      expect(error?.code ?? 0, `${[cmd, ...args].join(' ')} in ${cwd}\n${out}${error ? `\n${error.message}` : ''}`).toBe(0);
      done(out);
    });
  });
}

/** The ```sh blocks of a Markdown text. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

/** The `Example:` section of a help text: its indented lines, dedented. */
function helpExample(help: string): string {
  const lines = help.split('\n');
  const at = lines.findIndex((l) => /^Examples?:$/.test(l));
  if (at < 0) return '';
  const body: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith('  ')) break;
    body.push(l.slice(2));
  }
  return body.join('\n') + '\n';
}

/** npm lines (install, test, link, the project's scripts) are run from the clone by CI itself, not from a user's folder. */
const SETUP = /^npm /;

beforeAll(() => {
  ensureBuilt();
  mkdirSync(binDir, { recursive: true });
  const shim = join(binDir, 'dsgkit');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${join(repo, 'bin/dsgkit.js')}" "$@"\n`);
  chmodSync(shim, 0o755);
}, 120_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('examples/', () => {
  const files = readdirSync(join(repo, 'examples')).filter((f) => /\.(mjs|ts)$/.test(f)).sort();

  it('has a .mjs and a .ts of each example', () => {
    const stems = (ext: string) => files.filter((f) => f.endsWith(ext)).map((f) => f.slice(0, -ext.length));
    expect(stems('.mjs')).toEqual(stems('.ts'));
    expect(stems('.mjs')).toEqual(expect.arrayContaining(['train-evaluate', 'tune', 'scaling', 'large-data', 'off-thread']));
  });

  for (const file of files) {
    it(`${file} runs and prints a short report`, async () => {
      const dir = workdir(`example-${file}`);
      const path = join(repo, 'examples', file);
      const out = file.endsWith('.ts') ? await runIn(dir, join(repo, 'node_modules/.bin/tsx'), [path]) : await runIn(dir, process.execPath, [path]);
      // Quiet: a few lines of results, no progress lines.
      expect(out.trim().split('\n').length, out).toBeLessThanOrEqual(12);
      expect(out).not.toMatch(/warning|%.*iterations/i);
    });
  }
});

describe('README.md', () => {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');

  it('is at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('every shell example runs as written, in order, in one folder', async () => {
    const dir = workdir('readme');
    const blocks = shellBlocks(readme).map((b) => b.split('\n').filter((l) => !SETUP.test(l.trim())).join('\n'));
    expect(blocks.join('').trim()).not.toBe('');
    for (const block of blocks) await runIn(dir, 'bash', ['-euo', 'pipefail', '-c', block]);
  });

  it('README and docs/ speak of the project as it is, not of how it was developed', () => {
    const pages = [join(repo, 'README.md'), ...readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(repo, 'docs', f))];
    const history = /\b(this|one|that|first|second|third|fourth|fifth|sixth|seventh|eighth|earlier|later) session\b|\b20\d\d-\d\d-\d\d\b|\buntil 20\d\d|\bsuperseded\b/i;
    for (const page of pages) {
      const hit = readFileSync(page, 'utf8').split('\n').find((l) => history.test(l));
      expect(hit, `${page}: ${hit}`).toBeUndefined();
    }
  });

  it('every script snippet is taken from a file in examples/', () => {
    const sources = readdirSync(join(repo, 'examples')).map((f) => readFileSync(join(repo, 'examples', f), 'utf8'));
    const snippets = [...readme.matchAll(/^```(?:js|ts|javascript|typescript)\n([\s\S]*?)^```/gm)].map((m) => m[1]);
    expect(snippets.length).toBeGreaterThan(0);
    for (const s of snippets) {
      const lines = s.split('\n').filter((l) => l.trim() !== '' && !/^\/\/ …|^…$/.test(l.trim()));
      expect(sources.some((src) => lines.every((l) => src.includes(l))), `README snippet not found in examples/:\n${s}`).toBe(true);
    }
  });
});

describe('--help examples', () => {
  for (const name of ['', ...COMMANDS.map((c) => c.name)]) {
    it(`dsgkit ${name ? `${name} ` : ''}--help: its example runs as written`, async () => {
      const help = await runIn(repo, join(binDir, 'dsgkit'), [...(name ? [name] : []), '--help']);
      const example = helpExample(help);
      expect(example.trim(), 'an example').not.toBe('');
      // A worker serves a Redis queue until stopped: its example (a recipe across hosts) is run for
      // real, workers and all, by test/distributed.test.ts; here it must at least name the command.
      if (name === 'worker') {
        expect(example).toMatch(/dsgkit worker --queue redis:\/\//);
        return;
      }
      await runIn(workdir(`help-${name || 'top'}`), 'bash', ['-euo', 'pipefail', '-c', example]);
    });
  }
});
