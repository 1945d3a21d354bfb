import { randomUUID } from 'node:crypto';
import type { MemoryCardResult, SearchMemoryResult } from '@ctxmem/core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../../test/setup/services.js';
import {
  callError,
  callTool,
  readText,
  seedConversation,
  startStdioServer,
} from './mcp.test-helper.js';

const services = await testServices();
afterAll(stopTestServices);

/**
 * One run of every tool through `ctxmem mcp --store <url>`, the conversation seeded through the
 * driver's own stores, in a user of its own so that runs sharing the server never meet.
 */
async function runAgainst(
  url: string,
  stores: Parameters<typeof seedConversation>[0] & { close(): Promise<void> },
): Promise<void> {
  const user = `mcp-${randomUUID()}`;
  const { offloadId } = await seedConversation(stores, { userId: user, sessionId: 's1' });
  // The URL comes from the environment, as an app keeps a password out of the arguments.
  const server = await startStdioServer(['--user', user], { CTXMEM_STORE: url });
  try {
    expect(server.stderr()).not.toContain(new URL(url).password || '\u0000');
    const { card } = await callTool<{ card: MemoryCardResult }>(server.client, 'add_memory', {
      content: 'The nightly backup runs at 02:00 UTC',
      type: 'fact',
      tags: ['ops'],
      occurredAt: '2024-06-01',
    });
    const found = await callTool<SearchMemoryResult>(server.client, 'search_memory', {
      query: 'when does the backup run',
    });
    expect(found.results[0]?.id).toBe(card.id);
    expect(await readText(server.client, 'ctxmem://memory/MEMORY.md')).toContain(
      '- [fact] The nightly backup runs at 02:00 UTC',
    );
    expect(
      await callTool(server.client, 'recall_conversation', {
        turn_numbers: [1],
        scope: { sessionId: 's1' },
      }),
    ).toEqual({
      turns: [
        {
          turn: 1,
          messages: [
            { role: 'user', text: 'Which port does staging use?' },
            { role: 'assistant', text: 'Staging listens on port 5433.' },
          ],
        },
      ],
      missing: [],
    });
    expect(
      await callTool(server.client, 'reload_context', {
        id: offloadId,
        scope: { sessionId: 's1' },
      }),
    ).toMatchObject({ id: offloadId, role: 'tool' });
    // Another user's scope holds nothing of this one's.
    expect(
      await callTool(server.client, 'list_memories', { scope: { sessionId: 'other' } }),
    ).toEqual({ cards: [], total: 0 });
    expect(await callError(server.client, 'remove_memory', { ids: ['../x'] })).toMatch(
      /Invalid card id/,
    );
    expect(await callTool(server.client, 'remove_memory', { ids: [card.id] })).toEqual({
      removed: [card.id],
    });
    expect(await callTool(server.client, 'list_memories', {})).toEqual({ cards: [], total: 0 });
  } finally {
    await server.close();
    await stores.history.clear({ userId: user, sessionId: 's1' });
    await stores.close();
  }
}

describe('ctxmem mcp --store postgres://…', () => {
  if (!services.postgresUrl) {
    it.skip(missingServerMessage('PostgreSQL', services.problems), () => {});
    return;
  }
  const url = services.postgresUrl;
  it('serves every tool and the resource from PostgreSQL', async () => {
    const { createPostgresStores } = await import('@ctxmem/postgres');
    const stores = createPostgresStores({ connectionString: url });
    await stores.migrate();
    await runAgainst(url, stores);
  });
});

describe('ctxmem mcp --store redis://…', () => {
  if (!services.redisUrl) {
    it.skip(missingServerMessage('Redis', services.problems), () => {});
    return;
  }
  const url = services.redisUrl;
  it('serves every tool and the resource from Redis', async () => {
    const { createRedisStores } = await import('@ctxmem/redis');
    await runAgainst(url, createRedisStores({ url }));
  });

  it('answers with a tool error while Redis cannot be reached, and keeps serving', async () => {
    // Nothing listens on port 1: every store call fails, none of them ends the server.
    const server = await startStdioServer(['--store', 'redis://127.0.0.1:1']);
    try {
      expect(await callError(server.client, 'add_memory', { content: 'lost' })).toMatch(
        /redis|ECONNREFUSED|connect/i,
      );
      expect(await callError(server.client, 'search_memory', { query: 'lost' })).toMatch(
        /redis|ECONNREFUSED|connect/i,
      );
      await expect(
        server.client.readResource({ uri: 'ctxmem://memory/MEMORY.md' }),
      ).rejects.toThrow(/redis|ECONNREFUSED|connect/i);
      expect((await server.client.listTools()).tools).toHaveLength(6);
      expect(server.stderr()).not.toMatch(/unexpected error/);
    } finally {
      await server.close();
    }
  });
});
