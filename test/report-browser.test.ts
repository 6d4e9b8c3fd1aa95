/**
 * The HTML reports of `dsgkit scaling --out r` and `dsgkit tune --report r`,
 * opened in a real headless Chromium (Debian's `chromium`): each renders its
 * table and its chart, logs no console error, and asks the network for
 * nothing. Skipped, with the reason printed, only where no browser exists
 * (`.ci/run` installs one). DSGKIT_REPORT_SHOTS=<dir> keeps screenshots.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromium, type BrowserContext } from 'playwright-core';
import { main } from '../src/cli/main.ts';

const CHROMIUM = process.env.DSGKIT_CHROMIUM ?? '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser) console.log(`report-browser.test.ts skipped: no browser at ${CHROMIUM} (apt-get install chromium, or set DSGKIT_CHROMIUM)`);

const dir = mkdtempSync(join(tmpdir(), 'dsgkit-report-'));

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

/** Opens `file` in a fresh headless Chromium profile; returns what the page shows and what went wrong. */
async function open(file: string, shot: string): Promise<{ tables: number[]; svgBox: { width: number; height: number } | null; lines: number; errors: string[]; requests: string[]; text: string }> {
  const profile = mkdtempSync(join(tmpdir(), 'dsgkit-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 1400 },
  });
  try {
    const errors: string[] = [];
    const requests: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const tables = await page.$$eval('table', (ts) => ts.map((t) => t.querySelectorAll('tbody tr').length));
    const svgBox = await page.locator('figure svg').first().boundingBox();
    const lines = await page.locator('figure svg polyline').count();
    const text = await page.locator('body').innerText();
    await page.screenshot({ path: shot, fullPage: true });
    return { tables, svgBox, lines, errors, requests, text };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const shots = process.env.DSGKIT_REPORT_SHOTS ?? dir;
mkdirSync(shots, { recursive: true });
const tiny = ['--random-features', '8', '--batch-size', '8', '--quiet'];

describe.skipIf(!haveBrowser)('HTML reports in headless Chromium', () => {
  it('dsgkit scaling --out r: r.html shows the timing table, the speedup chart and the machine, with no console error', async () => {
    const r = join(dir, 'scaling');
    const res = await run(['scaling', '--data', 'data/breast_cancer-train.arrow', '--learner', 'qsg-s2auc', '--threads', '1,2', '--iterations', '20', ...tiny, '--out', r]);
    expect(res.code, res.err).toBe(0);
    for (const ext of ['.html', '.json', '.svg', '.chart.json']) expect(existsSync(r + ext), ext).toBe(true);
    const spec = JSON.parse(readFileSync(`${r}.chart.json`, 'utf8'));
    expect(spec.series[0].points.map((p: number[]) => p[0])).toEqual([1, 2]);
    const page = await open(`${r}.html`, join(shots, 'scaling.png'));
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([]);
    expect(page.tables).toEqual([2]); // one row per thread count
    expect(page.svgBox?.width).toBeGreaterThan(300);
    expect(page.lines).toBeGreaterThanOrEqual(2); // measured + ideal (+ the ceiling)
    expect(page.text).toMatch(/What limits the speedup/);
    expect(page.text).toMatch(/Node\.js\s+v\d+/);
    expect(page.text).toMatch(/dsgkit\s+\d+\.\d+\.\d+/);
    expect(page.text).toContain(process.version);
  }, 60_000);

  it('dsgkit tune --report r: r.html shows the rounds with the winner marked and the CV table, with no console error', async () => {
    const r = join(dir, 'tune');
    const res = await run(['tune', '--learner', 'qsg-s2auc', '--data', 'data/breast_cancer-train.arrow', '--out', join(dir, 'best.dsg'), '--iterations', '30', '--folds', '3', '--grid', 'sigma=0.5,1,2;lambda=0.01;gamma=0.5,1', ...tiny, '--report', r]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain(`${r}.html`);
    const spec = JSON.parse(readFileSync(`${r}.chart.json`, 'utf8'));
    const winner = spec.series.find((s: { name: string }) => s.name.startsWith('winner:'));
    expect(winner.points.at(-1)[0]).toBe(30); // the winner reached T
    const page = await open(`${r}.html`, join(shots, 'tune.png'));
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([]);
    // The halving rounds, then the CV table: the 6 settings of the grid and the learner's defaults (not a grid point here).
    expect(page.tables.length).toBe(2);
    expect(page.tables[1]).toBe(7);
    expect(page.text).toMatch(/winner \(refit on all rows\)/);
    expect(page.svgBox?.width).toBeGreaterThan(300);
    expect(page.lines).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
