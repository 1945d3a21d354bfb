import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryCardResult, SearchMemoryResult } from '@ctxmem/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callError,
  callTool,
  connectHttp,
  type HttpServerProcess,
  readText,
  startHttpServer,
} from './mcp.test-helper.js';

let store = '';
let server: HttpServerProcess;
let client: Client | undefined;

beforeAll(async () => {
  store = await mkdtemp(join(tmpdir(), 'ctxmem-mcp-http-'));
  server = await startHttpServer(['--store', store, '--user', 'dana']);
});

afterAll(async () => {
  await client?.close();
  if (server?.child.exitCode === null) await server.stop();
  await rm(store, { recursive: true, force: true });
});

/** A raw request, to send what the SDK's client never sends. */
function send(
  url: URL,
  { method = 'POST', headers = {} }: { method?: string; headers?: Record<string, string> },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end(
      method === 'POST'
        ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
        : undefined,
    );
  });
}

describe('ctxmem mcp --http', () => {
  it('listens on 127.0.0.1 only, and prints a generated token on stderr', () => {
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(server.url.pathname).toBe('/mcp');
    expect(server.token).toMatch(/^[\w-]{43}$/);
  });

  it('serves the SDK’s client with the token: add, search, resource, remove, bad calls', async () => {
    client = await connectHttp(server.url, server.token);
    const { card } = await callTool<{ card: MemoryCardResult }>(client, 'add_memory', {
      content: 'Dana reviews pull requests on Tuesdays',
      type: 'preference',
      tags: ['review'],
    });
    const { results } = await callTool<SearchMemoryResult>(client, 'search_memory', {
      query: 'when does Dana review pull requests',
    });
    expect(results[0]?.id).toBe(card.id);
    expect(await readText(client, 'ctxmem://memory/MEMORY.md')).toContain(
      '- [preference] Dana reviews pull requests on Tuesdays',
    );
    expect(await callError(client, 'add_memory', { content: 'x', occurredAt: 'soon' })).toMatch(
      /ISO 8601.*occurredAt/s,
    );
    expect(await callError(client, 'list_memories', { scope: { userId: 'eve' } })).toMatch(
      /not allowed.*set by --user/,
    );
    expect(await callTool(client, 'remove_memory', { ids: [card.id] })).toEqual({
      removed: [card.id],
    });
    expect(await readText(client, 'ctxmem://memory/MEMORY.md')).not.toContain('Dana');
  });

  it('refuses a client without the token, or with another one', async () => {
    await expect(connectHttp(server.url, undefined)).rejects.toThrow(/401|unauthorized/i);
    await expect(connectHttp(server.url, 'not-the-token-but-long-enough')).rejects.toThrow(
      /401|unauthorized/i,
    );
    const refused = await send(server.url, {
      headers: { 'content-type': 'application/json', authorization: 'Basic dana' },
    });
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('Authorization: Bearer');
  });

  it('refuses a foreign Host (DNS rebinding) or Origin, other paths and methods', async () => {
    const headers = {
      authorization: `Bearer ${server.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    expect((await send(server.url, { headers: { ...headers, host: 'evil.example' } })).status).toBe(
      403,
    );
    expect(
      (await send(server.url, { headers: { ...headers, origin: 'https://evil.example' } })).status,
    ).toBe(403);
    expect((await send(new URL('/other', server.url), { headers })).status).toBe(404);
    expect((await send(server.url, { method: 'GET', headers })).status).toBe(405);
    // The same request with the right headers is served.
    const served = await send(server.url, { headers });
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body).result.tools).toHaveLength(6);
  });

  it('stops on SIGTERM, closing the port', async () => {
    await client?.close();
    client = undefined;
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.stderr()).toMatch(/stopped \(SIGTERM\)/);
    await expect(send(server.url, {})).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('ctxmem mcp --http with a chosen token', () => {
  it('takes the token from CTXMEM_MCP_TOKEN and never prints it', async () => {
    const token = 'a-token-chosen-by-the-app-0123456789';
    const chosen = await startHttpServer(['--store', store], { CTXMEM_MCP_TOKEN: token });
    try {
      expect(chosen.token).toBeUndefined();
      expect(chosen.stderr()).toContain('token: the one in CTXMEM_MCP_TOKEN');
      expect(chosen.stderr()).not.toContain(token);
      const app = await connectHttp(chosen.url, token);
      expect((await app.listTools()).tools).toHaveLength(6);
      await app.close();
    } finally {
      expect(await chosen.stop('SIGINT')).toBe(0);
    }
  });
});
