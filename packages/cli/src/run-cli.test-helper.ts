import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type CliContext, runCli } from './index.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A fresh temporary folder per test (removed after it) and `run`, which calls the CLI in process
 * with that folder as the caller's directory and collects what it writes.
 */
export function useCliFolder(prefix: string) {
  let directory = '';
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), `${prefix}-`));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });
  return {
    directory: () => directory,
    async run(argv: string[], overrides: Partial<CliContext> = {}): Promise<CliRun> {
      let stdout = '';
      let stderr = '';
      const code = await runCli(argv, {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
        cwd: directory,
        env: {},
        ...overrides,
      });
      return { code, stdout, stderr };
    },
  };
}
