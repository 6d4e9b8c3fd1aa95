#!/usr/bin/env node
// The dsgkit command: runs the compiled CLI (built by `npm install` through `prepare`).
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
