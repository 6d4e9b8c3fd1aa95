/**
 * The package as a user gets it: `npm pack` of the dist/ that `npm test`
 * has just built (with `--ignore-scripts`: `prepack` would rebuild dist/ in
 * place while other test files run the CLI from it), installed from the tarball into a fresh project with no dev
 * tools, gives a working `npx dsgkit`, an ESM import that trains (worker
 * threads from dist/), and types a TypeScript user can compile against — with
 * no warning from npm or Node anywhere.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };

let dir: string;
let project: string;
let files: string[];
let packErr: string;
let installErr: string;
let installOut: string;

/** npm with a clean environment: no colour, no update notice, the cache the lockfile install filled. */
const npm = (args: string[], cwd: string) => exec('npm', args, { cwd, env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }, maxBuffer: 64 * 2 ** 20 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-pack-'));
  const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root);
  packErr = packed.stderr;
  const info = (JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>)[0];
  files = info.files.map((f) => f.path);
  project = join(dir, 'project');
  await exec('mkdir', [project]);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, type: 'module' }));
  const installed = await npm(['install', '--prefer-offline', join(dir, info.filename)], project);
  installErr = installed.stderr;
  installOut = installed.stdout;
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** npm's warnings in its output (lines starting `npm warn` / `npm WARN`). */
const warnings = (text: string) => text.split('\n').filter((l) => /^npm warn/i.test(l));

describe('the packed package', () => {
  it('packs with no warning: built dist/ with types, LICENSE, CHANGELOG, docs; no source maps, no sources', () => {
    expect(warnings(packErr)).toEqual([]);
    for (const f of ['LICENSE', 'CHANGELOG.md', 'README.md', 'bin/dsgkit.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.js', 'docs/architecture.md']) expect(files).toContain(f);
    expect(files.some((f) => f.startsWith('dist/workers/') && f.endsWith('.js'))).toBe(true);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('installs into a fresh project with no warning and no build step', () => {
    expect(warnings(installErr)).toEqual([]);
    expect(installOut).not.toMatch(/build|prepare/);
  });

  it('`npx dsgkit --help` and `--version` work with no dev tools installed', async () => {
    const help = await exec('npx', ['--no-install', 'dsgkit', '--help'], { cwd: project });
    expect(help.stdout).toMatch(/^dsgkit — /);
    expect(help.stdout).toMatch(/Usage: dsgkit <command>/);
    expect(help.stderr).toBe('');
    const version = await exec('npx', ['--no-install', 'dsgkit', '--version'], { cwd: project });
    expect(version.stdout.trim()).toBe(pkg.version);
  });

  it('an ESM import trains on two worker threads from dist/, with nothing on stderr', async () => {
    await writeFile(
      join(project, 'train.mjs'),
      `import { train } from 'dsgkit';
const X = [], y = [];
for (let i = 0; i < 200; i++) { const a = (i * 37 % 101) / 101, b = (i * 53 % 97) / 97; X.push([a, b]); y.push(i % 4 === 0 ? (a + b > 1 ? 1 : -1) : null); }
const model = await train({ learner: 'qsg-s2auc', data: { X, y }, T: 20, threads: 2 });
console.log(model.learner, (await model.decisionFunction(X.slice(0, 3))).length);
`,
    );
    const r = await exec(process.execPath, ['train.mjs'], { cwd: project });
    expect(r.stdout.trim()).toBe('qsg-s2auc 3');
    expect(r.stderr).toBe('');
  });

  /** `tsc --strict` in the installed project — no dev dependency of dsgkit there, and no skipLibCheck: the shipped types must stand alone. */
  const tsc = async (file: string): Promise<{ status: number; output: string }> => {
    await copyFile(join(root, 'test/fixtures/consumer', file), join(project, file));
    const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--typeRoots', join(root, 'node_modules/@types'), '--types', 'node', file];
    return exec(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), ...args], { cwd: project })
      .then((r) => ({ status: 0, output: `${r.stdout}${r.stderr}` }))
      .catch((e: { code: number; stdout: string; stderr: string }) => ({ status: e.code, output: `${e.stdout}${e.stderr}` }));
  };

  it('its types compile in a strict TypeScript project without skipLibCheck (test/fixtures/consumer/good.ts)', async () => {
    const r = await tsc('good.ts');
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  }, 60_000);

  it('a misspelt, foreign or wrongly typed learner parameter is a compile error naming it (bad.ts)', async () => {
    const r = await tsc('bad.ts');
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/bad\.ts\(4,[0-9]+\).*'lamda'/);
    expect(r.output).toMatch(/bad\.ts\(5,[0-9]+\).*'gamma'/);
    expect(r.output).toMatch(/bad\.ts\(6,[0-9]+\).*squared/);
  }, 60_000);
});
