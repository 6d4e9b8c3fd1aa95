/**
 * The published types, as a consumer sees them: the package's own files
 * (`npm pack`'s list) in a scratch project's node_modules beside its
 * production dependencies only — no dev dependency, no skipLibCheck — and
 * `tsc --strict` on a consumer script. A script using the API as the README
 * does compiles; one with a misspelt, foreign or wrongly typed learner
 * parameter does not, and each error names the parameter.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = process.cwd();
let scratch: string;

/** The package's production dependency closure, as paths under the repository's node_modules. */
function productionDependencies(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return out.split('\n').filter((p) => p.startsWith(join(repo, 'node_modules')));
}

function tsc(file: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', file], { cwd: scratch, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  if (!existsSync(join(repo, 'dist/src/index.d.ts'))) throw new Error('dist/src/index.d.ts is missing: build the package first (npm run build)');
  scratch = mkdtempSync(join(tmpdir(), 'dsgkit-consumer-'));
  const pkg = join(scratch, 'node_modules/dsgkit');
  const files = (JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, encoding: 'utf8' })) as Array<{ files: Array<{ path: string }> }>)[0].files;
  for (const { path } of files) {
    mkdirSync(dirname(join(pkg, path)), { recursive: true });
    cpSync(join(repo, path), join(pkg, path));
  }
  for (const dep of productionDependencies()) {
    const to = join(scratch, 'node_modules', relative(join(repo, 'node_modules'), dep));
    if (existsSync(to)) continue;
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(dep, to, 'dir');
  }
  // Node's own types, which a consumer's Node project has.
  symlinkSync(join(repo, 'node_modules/@types'), join(scratch, 'node_modules/@types'), 'dir');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  for (const f of ['good.ts', 'bad.ts']) cpSync(join(repo, 'test/fixtures/consumer', f), join(scratch, f));
}, 60_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the published types', () => {
  it('ship no dev dependency in the package', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).not.toContain('@types/seedrandom');
  });

  it('compile a consumer script under tsc --strict without skipLibCheck', () => {
    const r = tsc('good.ts');
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  }, 60_000);

  it('reject a misspelt, foreign or wrongly typed learner parameter, naming it', () => {
    const r = tsc('bad.ts');
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/bad\.ts\(4,[0-9]+\).*'lamda'/);
    expect(r.output).toMatch(/bad\.ts\(5,[0-9]+\).*'gamma'/);
    expect(r.output).toMatch(/bad\.ts\(6,[0-9]+\).*squared/);
  }, 60_000);
});
