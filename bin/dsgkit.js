#!/usr/bin/env node
// The dsgkit command: runs the compiled CLI in dist/ (shipped in the package;
// in a clone of the sources, `npm run build` makes it).
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Whether this process is short of file descriptors: it cannot open this file
 * 128 times more. Node's module loader, failing to open a file that is there
 * at a low open-file limit, may report it as not found (ERR_MODULE_NOT_FOUND)
 * instead of EMFILE.
 */
function descriptorsShort() {
  const fds = [];
  try {
    for (let i = 0; i < 128; i++) fds.push(openSync(fileURLToPath(import.meta.url), 'r'));
    return false;
  } catch (err) {
    return err?.code === 'EMFILE' || err?.code === 'ENFILE';
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

let cli;
try {
  cli = await import('../dist/src/cli/main.js');
} catch (err) {
  const code = err?.code === 'EMFILE' || err?.code === 'ENFILE' ? err.code : err?.code === 'ERR_MODULE_NOT_FOUND' && descriptorsShort() ? 'EMFILE' : undefined;
  if (code !== undefined) {
    // Node's module loader opens the program's files (apache-arrow has hundreds) many at a time.
    process.stderr.write(`dsgkit: too many open files while starting (${code}): the open-file limit is too low for Node.js to load dsgkit (it opens over 100 files at once); raise it, e.g. 'ulimit -n 1024'\n`);
    process.exit(1);
  }
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist')) throw err;
  process.stderr.write("dsgkit: the compiled CLI (dist/) is missing; in a clone of the sources run 'npm run build' first\n");
  process.exit(1);
}
process.exitCode = await cli.runCli(process.argv.slice(2));
