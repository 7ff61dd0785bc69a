#!/usr/bin/env node
/** The `vesta` executable: wires the real process (stdio, env, Ctrl-C) into the CLI. */
import { runCli } from './program.js';
import { EXIT } from './context.js';

// A reader that stops early (`vesta --help | head -1`, `vesta bench list --json | head`) closes the
// pipe: that ends the command quietly, as it does for other Unix tools, rather than with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}

let interrupted = false;
const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  interruptSignal: () => {
    const controller = new AbortController();
    process.on('SIGINT', () => {
      // A second Ctrl-C leaves at once; the first aborts in-flight work and lets it report.
      if (interrupted) process.exit(EXIT.interrupted);
      interrupted = true;
      controller.abort(new Error('interrupted (SIGINT)'));
    });
    return controller.signal;
  },
});
process.exitCode = interrupted ? EXIT.interrupted : code;
// Idle keep-alive sockets must not hold an interrupted command open.
if (interrupted) setTimeout(() => process.exit(process.exitCode), 500).unref();
