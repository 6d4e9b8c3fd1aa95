import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lineChartSvg, writeBenchOutputs } from '../bench/lib/index.ts';

const dirs: string[] = [];
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'dsgkit-bench-lib-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('writeBenchOutputs', () => {
  it('writes <name>.json and <name>.svg into a directory it creates', () => {
    const dir = join(scratch(), 'nested', 'results');
    const results = { threads: [1, 2], speedup: [1, 1.93] };
    const svg = lineChartSvg({ title: 'Speedup', xLabel: 'threads', yLabel: 'speedup', series: [{ name: 'a', points: [[1, 1], [2, 1.93]] }] });
    const paths = writeBenchOutputs('scaling', results, svg, { dir });
    expect(paths).toEqual({ json: join(dir, 'scaling.json'), svg: join(dir, 'scaling.svg') });
    expect(JSON.parse(readFileSync(paths.json, 'utf8'))).toEqual(results);
    expect(readFileSync(paths.svg!, 'utf8')).toBe(svg);
    expect(readdirSync(dir).sort()).toEqual(['scaling.json', 'scaling.svg']); // no temp files left
  });

  it('writes only the JSON when no SVG is given, replacing an older file', () => {
    const dir = scratch();
    writeBenchOutputs('kernel', { gflops: 1 }, undefined, { dir });
    const paths = writeBenchOutputs('kernel', { gflops: 2 }, undefined, { dir });
    expect(paths.svg).toBeUndefined();
    expect(JSON.parse(readFileSync(paths.json, 'utf8'))).toEqual({ gflops: 2 });
    expect(readdirSync(dir)).toEqual(['kernel.json']);
  });

  it('leaves the previous file whole when the new results cannot be serialised', () => {
    const dir = scratch();
    writeBenchOutputs('peers', { auc: 0.9 }, undefined, { dir });
    expect(() => writeBenchOutputs('peers', { n: 10n }, undefined, { dir })).toThrow(TypeError);
    expect(JSON.parse(readFileSync(join(dir, 'peers.json'), 'utf8'))).toEqual({ auc: 0.9 });
    expect(readdirSync(dir)).toEqual(['peers.json']);
  });

  it('cleans up its temp file when the rename fails', () => {
    const dir = scratch();
    // the output path is taken by a non-empty directory: renaming a file onto it fails
    const target = join(dir, 'blocked.json');
    mkdirSync(target);
    writeFileSync(join(target, 'inside'), 'x');
    expect(() => writeBenchOutputs('blocked', { a: 1 }, undefined, { dir })).toThrow();
    expect(readdirSync(dir)).toEqual(['blocked.json']);
  });

  it('rejects names that are paths', () => {
    const dir = scratch();
    for (const bad of ['../escape', 'a/b', '.hidden', '', 'x\\y']) {
      expect(() => writeBenchOutputs(bad, {}, undefined, { dir })).toThrow(/name '.*' must be letters, digits/);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
