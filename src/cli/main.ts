/**
 * The `dsgkit` command line: picks the subcommand from the table in
 * `commands/index.ts`, runs it, and maps errors to exit codes —
 * 0 success, 2 usage error (unknown command or option, missing or bad
 * option), 1 data error (or any other failure). Messages go to stderr as
 * `dsgkit: <message>`; results go to stdout.
 */
import { pathToFileURL } from 'node:url';
import { CancelledError, DataError, ModelError, QueueError, UsageError } from '../errors.ts';
import { COMMANDS, findCommand } from './commands/index.ts';
import { outputIncomplete, processIO, stdoutFailure, type CliIO, type Sink } from './io.ts';
import { runWithSignals } from './signals.ts';
import { dsgkitVersion } from '../version.ts';
import { asStdin, removeStdinCopies } from './stdin.ts';
import { didYouMean } from './suggest.ts';


/**
 * The top-level help text: what dsgkit is, the commands, where to read more.
 *
 * @example
 * io.stdout.write(generalHelp());
 */
export function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `dsgkit — large-scale semi-supervised kernel learning with doubly stochastic gradients

Usage: dsgkit <command> [options]
       dsgkit <command> --help     full help for one command

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Data files: Arrow IPC (.arrow .feather .ipc file format; .arrows stream format)
is the native input; LIBSVM (.libsvm .svm .txt .t) and CSV (.csv, header row)
convert to it with 'dsgkit convert'. The label column is 'label' unless
--label says otherwise; a missing label (null, '?', empty, NA) = unlabeled row.
Any input file may be '-' to read stdin. 'predict' writes Arrow, CSV or JSON
Lines by the extension of --out, or to stdout with --out -.

Exit codes: 0 success, 1 bad data or model (message names file, column and
row), 2 bad usage, 130 cancelled by Ctrl-C (SIGINT), 143 stopped by SIGTERM,
128 + n for the other terminating signals (129 SIGHUP, 131 SIGQUIT, …).
Outputs are written to a hidden temporary file and renamed when complete; a
cancelled run removes it. Only SIGKILL can leave one (.NAME.tmp-PID-…): the
next run writing to that folder from the same host and container removes it.

Options:
  -h, --help       show this help
  -v, --version    print the version

Example:
  dsgkit describe data/breast_cancer-train.arrow
  dsgkit train --learner qsg-s2auc --data data/breast_cancer-train.arrow --out bc.dsg
  dsgkit evaluate --model bc.dsg --data data/breast_cancer-test.arrow
  dsgkit predict --model bc.dsg --data data/breast_cancer-test.arrow --out - | head
`;
}

/**
 * Runs dsgkit with `argv` (the arguments after the program name) and resolves
 * to the exit code. Never throws for user errors; never calls process.exit.
 *
 * @example
 * const code = await main(['describe', 'data/spam.arrow']);
 * const quiet = await main(['describe', 'x.arrow'], { stdout: myStream, stderr: myStream });
 */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(generalHelp());
    return 2;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const sub = first === 'help' && rest[0] !== undefined ? findCommand(rest[0]) : undefined;
    io.stdout.write(sub ? sub.help : generalHelp());
    return 0;
  }
  if (first === '--version' || first === '-v') {
    io.stdout.write(`${dsgkitVersion()}\n`);
    return 0;
  }
  const command = findCommand(first);
  if (!command) {
    const names = COMMANDS.map((c) => c.name);
    const what = first.startsWith('-') ? `unknown option '${first}' (options go after the command)` : `unknown command '${first}'${didYouMean(first, names)}`;
    io.stderr.write(`dsgkit: ${what}\ncommands: ${COMMANDS.map((c) => c.name).join(', ')}. Run 'dsgkit --help' for usage.\n`);
    return 2;
  }
  // `--help` anywhere after the command wins over everything else on the line.
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(command.helpFor?.(rest) ?? command.help);
    return 0;
  }
  try {
    return await command.run(rest, withStdinNames(io));
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`dsgkit: ${shownMessage(err)}\nRun 'dsgkit ${command.name} --help' for usage.\n`);
      return 2;
    }
    if (err instanceof DataError || err instanceof ModelError || err instanceof QueueError) {
      io.stderr.write(`dsgkit: ${shownMessage(err)}\n`);
      return 1;
    }
    if (err instanceof CancelledError) {
      io.stderr.write(`dsgkit: ${err.message}\n`);
      return 130;
    }
    const e = err as Error;
    if (isOutOfMemory(e)) {
      io.stderr.write(`dsgkit: out of memory: ${e.message} — the data or the run needs more memory than this process may use (see 'ulimit -v' and the memory of the machine); try fewer rows or features, --threads 1, or sample on read\n`);
      return 1;
    }
    io.stderr.write(`dsgkit: internal error (please report at ${ISSUES_URL}): ${e?.stack ?? String(err)}\n`);
    return 1;
  } finally {
    removeStdinCopies();
  }
}

/**
 * An error's message as printed: stdin's temporary copy named `stdin`, control
 * characters from the data (a NUL, a terminal escape sequence in a CSV cell)
 * shown as `\xNN` instead of being sent to the terminal, and the reason a
 * file whose name is not UTF-8 is "not found" (Node.js decodes command-line
 * arguments as UTF-8, so such a name reaches the file system changed).
 *
 * @example
 * shownMessage(new DataError("value '0\u0000.3' is not a number", { file: 'a.csv' })); // "a.csv: value '0\\x00.3' is not a number"
 */
function shownMessage(err: Error): string {
  let message = asStdin(err.message).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' && message.includes('\uFFFD')) {
    message += " — the name has bytes that are not UTF-8 (shown as \uFFFD): Node.js reads command-line arguments as UTF-8, so it cannot name this file; rename it to a UTF-8 name";
  }
  return message;
}

/** Where bugs are reported (package.json's `bugs`). */
const ISSUES_URL = 'https://github.com/dsgkit/dsgkit/issues';

/**
 * `io` whose text output names a temporary copy of stdin `stdin` (an input
 * given as `-`); bytes pass unchanged, and `raw` is the sink underneath (for
 * back-pressure and a closed pipe, see `stdout.ts`).
 */
function withStdinNames(io: CliIO): CliIO {
  const wrap = (sink: Sink): Sink & { raw: Sink } => ({ raw: sink, write: (chunk) => sink.write(typeof chunk === 'string' ? asStdin(chunk) : chunk) });
  return { ...io, stdout: wrap(io.stdout), stderr: wrap(io.stderr) };
}

/** An allocation refused by the system (an address-space limit, a full machine): WebAssembly memory, typed arrays, array buffers. */
function isOutOfMemory(e: Error | undefined): boolean {
  return e instanceof RangeError && /WebAssembly\.Memory|could not allocate memory|Out of memory|Array buffer allocation failed|Invalid typed array length|WebAssembly\.Memory\.grow/i.test(e.message);
}

/**
 * What the `dsgkit` executable runs: {@link main} with SIGINT/SIGTERM
 * handling (unfinished outputs removed, exit 130/143; see `signals.ts`).
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2));
 */
export async function runCli(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  // A reader that went away (`dsgkit predict … --out - | head`) ends the output
  // quietly: the writer sees it (stdout.ts) and stops; this keeps a late EPIPE from
  // becoming an unhandled 'error' event.
  // Other write errors (a full disk behind `> out.txt`) are said by processIO's guard, and make the exit code 1.
  const onStdoutError = () => undefined;
  process.stdout.on('error', onStdoutError);
  const code = await runWithSignals(argv[0] ?? 'dsgkit', io.stderr, () => main(argv, io));
  await new Promise((resolve) => setImmediate(resolve)); // a failed synchronous write (a file, a device) reports on the next tick
  const failure = stdoutFailure();
  if (code !== 0 || failure === undefined) return code;
  io.stderr.write(`dsgkit: ${outputIncomplete(failure).message}\n`);
  return 1;
}

// Run when executed directly (e.g. `npx tsx src/cli/main.ts convert …`); bin/dsgkit.js imports instead.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runCli(process.argv.slice(2));
}
