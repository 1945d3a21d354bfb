import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const bin = fileURLToPath(new URL('./bin.ts', import.meta.url));
const agentSession = join(repositoryRoot, 'examples/conversations/agent-session.json');

describe('the ctxmem binary', () => {
  it('runs end to end in a separate process: result on stdout, report on stderr, exit codes', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'ctxmem-bin-'));
    try {
      // tsx runs the TypeScript entry exactly as the built `dist/bin.js` would run.
      const node = [process.execPath, '--import', 'tsx', bin] as const;
      const { stdout, stderr } = await execFileAsync(
        node[0],
        [...node.slice(1), 'compact', agentSession, '--budget', '8000', '--offload-dir', directory],
        {
          cwd: repositoryRoot,
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, CTXMEM_DEBUG: '' },
        },
      );
      const output = JSON.parse(stdout) as { model: string; messages: unknown[] };
      expect(output.model).toBe('gpt-4o-2024-08-06');
      expect(output.messages.length).toBeGreaterThan(1);
      expect(stderr).toMatch(/tokens\s+[\d,]+ → [\d,]+\s+\(budget 8,000/);

      const failure = await execFileAsync(
        node[0],
        [...node.slice(1), 'compact', agentSession, '--budget', 'zero'],
        { cwd: repositoryRoot },
      ).catch((error: { code: number; stdout: string; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 2, stdout: '' });
      expect((failure as { stderr: string }).stderr.trim().split('\n')).toHaveLength(1);

      const source = await readFile(bin, 'utf8');
      expect(source.startsWith('#!/usr/bin/env node\n')).toBe(true);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('what each command loads', () => {
  // Every module a run resolves (Node's synchronous hooks), printed on stderr at exit.
  const listModules = `data:text/javascript,${encodeURIComponent(`
    import { registerHooks } from 'node:module';
    const urls = new Set();
    registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); urls.add(result.url); return result; } });
    process.on('exit', () => process.stderr.write('modules ' + JSON.stringify([...urls]) + '\\n'));
  `)}`;
  const modulesOf = (args: string[], input = '') => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--import', listModules, bin, ...args],
      {
        cwd: repositoryRoot,
        input,
        encoding: 'utf8',
      },
    );
    expect(child.status).toBe(0);
    const urls = JSON.parse(/^modules (.*)$/m.exec(child.stderr)![1]!) as string[];
    return urls.map((url) => url.replaceAll('\\', '/'));
  };
  const ofCore = (url: string) => url.includes('/packages/core/') || url.includes('@ctxmem/core');

  it('ctxmem --help loads no part of core', () => {
    const urls = modulesOf(['--help']);
    expect(urls.some((url) => url.endsWith('/help.ts'))).toBe(true);
    expect(urls.filter(ofCore)).toEqual([]);
  });

  it('ctxmem compact loads core and its own code, not the other commands', () => {
    const urls = modulesOf(
      ['compact', '-', '--budget', '8k', '--quiet'],
      '[{"role":"user","content":"hi"}]',
    );
    expect(urls.some(ofCore)).toBe(true);
    expect(urls.some((url) => url.includes('/packages/cli/src/compact/'))).toBe(true);
    const otherCommands =
      /\/packages\/cli\/src\/((inspector|memory|mcp)\/|(inspect|reload)-command\.ts$)/;
    expect(urls.filter((url) => otherCommands.test(url))).toEqual([]);
  });
});
