#!/usr/bin/env node
// The dsgkit command: runs the compiled CLI in dist/ (shipped in the package;
// in a clone of the sources, `npm run build` makes it).
let cli;
try {
  cli = await import('../dist/src/cli/main.js');
} catch (err) {
  if (err?.code === 'EMFILE' || err?.code === 'ENFILE') {
    // Node's module loader opens the program's files (apache-arrow has hundreds) many at a time.
    process.stderr.write(`dsgkit: too many open files while starting (${err.code}): the open-file limit is too low for Node.js to load dsgkit (it opens over 100 files at once); raise it, e.g. 'ulimit -n 1024'\n`);
    process.exit(1);
  }
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist')) throw err;
  process.stderr.write("dsgkit: the compiled CLI (dist/) is missing; in a clone of the sources run 'npm run build' first\n");
  process.exit(1);
}
process.exitCode = await cli.runCli(process.argv.slice(2));
