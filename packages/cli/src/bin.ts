#!/usr/bin/env node
import { callerDirectory } from './caller-directory.js';
import { runCli } from './run-cli.js';

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
