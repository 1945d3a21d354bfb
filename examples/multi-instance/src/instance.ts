/**
 * One application instance: `node --import tsx src/instance.ts compact|read`, with
 * CTXMEM_POSTGRES_URL and CTXMEM_EXAMPLE_SCHEMA set. Prints one JSON line describing what it saw.
 * - `compact` prepares the long conversation: it does not fit, so ctxmem compacts it and stores
 *   the summary (the working state, version 1) and the original messages in PostgreSQL.
 * - `read` is another instance that never saw the conversation in memory: it reads the stored
 *   state, then prepares the same conversation, which reuses the stored summary instead of
 *   compacting again.
 */
import { createContextManager } from '@ctxmem/core';
import { createPostgresStores } from '@ctxmem/postgres';
import { contextWindow, conversation, scope } from './conversation.js';

const role = process.argv[2];
const stores = createPostgresStores({
  connectionString: process.env.CTXMEM_POSTGRES_URL!,
  schema: process.env.CTXMEM_EXAMPLE_SCHEMA ?? 'ctxmem_example',
});
const manager = createContextManager({
  contextWindow,
  historyStore: stores.history,
  offloadStore: stores.offload,
  memory: { store: stores.memory },
});

try {
  if (role === 'compact') {
    const result = await manager.prepare(conversation(), { scope });
    await manager.idle();
    const state = await stores.history.getState(scope);
    console.log(
      JSON.stringify({
        role,
        compacted: result.compacted,
        tokens: result.tokens,
        promptMessages: result.messages.length,
        storedVersion: state?.version,
        summarizedCount: state?.summarizedCount,
        cards: (await stores.memory.list(scope)).length,
      }),
    );
  } else if (role === 'read') {
    const state = await stores.history.getState(scope);
    const history = await stores.history.count(scope);
    const result = await manager.prepare(conversation(), { scope });
    const summary = state?.messages.find((message) => message.ctxmem?.kind === 'summary');
    console.log(
      JSON.stringify({
        role,
        storedVersion: state?.version,
        summarizedCount: state?.summarizedCount,
        historyMessages: history,
        compacted: result.compacted,
        tokens: result.tokens,
        promptMessages: result.messages.length,
        usesStoredSummary:
          summary !== undefined &&
          result.messages.some((message) => message.content === summary.content),
        summaryStart:
          typeof summary?.content === 'string' ? summary.content.slice(0, 120) : undefined,
      }),
    );
  } else {
    throw new Error('usage: instance.ts compact|read');
  }
} finally {
  await stores.close();
}
