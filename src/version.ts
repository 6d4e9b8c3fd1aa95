/** The installed dsgkit's version, for reports and `dsgkit --version`. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The version in dsgkit's package.json, looked up from this file's location
 * (`src/` when run from source, `dist/src/` when built); 'unknown' if absent.
 *
 * @example
 * dsgkitVersion(); // '0.1.0'
 */
export function dsgkitVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'dsgkit' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return 'unknown';
}
