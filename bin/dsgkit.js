#!/usr/bin/env node
// The dsgkit command: runs the compiled CLI (built by `npm install` through `prepare`).
import { runCli } from '../dist/src/cli/main.js';

process.exitCode = await runCli(process.argv.slice(2));
