#!/usr/bin/env node
import module from 'node:module';

// Caches compiled code across runs (Node ≥ 22.1, as `tsc` does): a short command such as
// `ctxmem memory search` spends a large share of its time compiling modules. It must run before
// the rest of the CLI is imported, hence the dynamic imports below.
module.enableCompileCache?.();

const { callerDirectory } = await import('./caller-directory.js');
const { runCli } = await import('./run-cli.js');

// `ctxmem compact … | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  cwd: callerDirectory(process.env, process.cwd()),
  env: process.env,
});
