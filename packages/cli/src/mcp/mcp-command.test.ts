import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliRun, useCliFolder } from '../run-cli.test-helper.js';

const cli = useCliFolder('ctxmem-mcp-command');

function expectFailure(result: CliRun, code: number, message: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(message);
}

describe('ctxmem mcp arguments', () => {
  it('refuses bad arguments as usage errors, before opening anything', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /ctxmem mcp needs --store <dir\|postgres:\/\/…\|redis:\/\/…> \(or CTXMEM_STORE\)/],
      [['--store', 'memory', 'extra'], /mcp takes no arguments without a flag, got: extra/],
      [['--store', 'memory', '--port', '7400'], /--port is an option of --http/],
      [['--store', 'memory', '--token', 'x'.repeat(20)], /--token is an option of --http/],
      [['--store', 'memory', '--http', '--token', 'short'], /--token must be at least 16/],
      [['--store', 'memory', '--http', '--port', '70000'], /--port must be a port number/],
      [['--store', 'memory', '--http', '--port', 'any'], /--port must be a port number/],
      [['--store', 'memory', '--user', '../alice'], /scope: Invalid userId "\.\.\/alice"/],
      [['--store', 'memory', '--embedder', 'magic'], /--embedder must be one of/],
      [['--store', 'ftp://example.com/x'], /unsupported store URL; use a folder, postgres/],
      [['--store', 'memory', '--hhtp'], /unknown option '--hhtp'/],
    ];
    for (const [argv, message] of cases) {
      expectFailure(await cli.run(['mcp', ...argv]), 2, message);
    }
    // The environment is checked the same way.
    expectFailure(
      await cli.run(['mcp', '--store', 'memory'], { env: { CTXMEM_SESSION_ID: 'a/b' } }),
      2,
      /scope: Invalid sessionId "a\/b": it contains a path separator/,
    );
    expectFailure(
      await cli.run(['mcp', '--store', 'memory', '--http'], { env: { CTXMEM_MCP_TOKEN: 'short' } }),
      2,
      /CTXMEM_MCP_TOKEN must be at least 16 characters/,
    );
  });

  it('fails with exit code 1 when the store cannot be opened or the port is taken', async () => {
    await writeFile(join(cli.directory(), 'a-file'), 'not a folder');
    // --http: these runs need no stdin; none gets as far as listening.
    expectFailure(
      await cli.run(['mcp', '--store', 'a-file', '--http']),
      1,
      /--store a-file is not a folder/,
    );
    const unreachable = await cli.run(['mcp', '--http'], {
      env: { CTXMEM_STORE: 'postgres://ctxmem:secret@127.0.0.1:1/none' },
    });
    expectFailure(
      unreachable,
      1,
      /^ctxmem mcp: PostgreSQL could not migrate schema ctxmem: connect ECONNREFUSED/,
    );
    expect(unreachable.stderr).not.toContain('secret');

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      expectFailure(
        await cli.run(['mcp', '--store', 'memory', '--http', '--port', String(port)]),
        1,
        new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`),
      );
    } finally {
      taken.close();
    }
  });
});
