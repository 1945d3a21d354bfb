/**
 * One application instance: `node --import tsx src/app-server.ts` with CTXMEM_EXAMPLE_STORE
 * (postgres | redis), CTXMEM_EXAMPLE_URL, CTXMEM_EXAMPLE_NAMESPACE and CTXMEM_EXAMPLE_INSTANCE set.
 * Listens on a free loopback port and prints `listening <port>`.
 *
 * `POST /chat` with `{ "sessionId", "messages" }` (the whole conversation, as a stateless chat
 * backend receives it) prepares the prompt with ctxmem over the shared stores, answers with an
 * offline stand-in for the model (no API key, deterministic), and returns the prompt it would have
 * sent, so the load script can check it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { createContextManager } from '@ctxmem/core';
import {
  type ChatRequest,
  type ChatResponse,
  CONTEXT_WINDOW,
  modelReply,
} from './app-server-types.js';
import { openStores, type StoreKind } from './stores.js';

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const instance = process.env.CTXMEM_EXAMPLE_INSTANCE ?? 'app';
const stores = await openStores(
  (process.env.CTXMEM_EXAMPLE_STORE ?? 'postgres') as StoreKind,
  process.env.CTXMEM_EXAMPLE_URL!,
  process.env.CTXMEM_EXAMPLE_NAMESPACE ?? 'ctxmem_example',
);
const manager = createContextManager({
  contextWindow: CONTEXT_WINDOW,
  historyStore: stores.history,
  offloadStore: stores.offload,
  // One summarizer call per compaction even when two instances serve the session at once.
  leases: stores.leases,
});

const server = createServer(async (request, response) => {
  try {
    if (request.method !== 'POST' || request.url !== '/chat') {
      response.writeHead(404).end();
      return;
    }
    const { sessionId, messages } = JSON.parse(await body(request)) as ChatRequest;
    const started = performance.now();
    const result = await manager.prepare(messages, { scope: { userId: 'demo', sessionId } });
    const prepareMs = performance.now() - started;
    const answer: ChatResponse = {
      instance,
      reply: modelReply(sessionId, result.messages),
      prompt: result.messages,
      tokens: result.tokens,
      compacted: result.compacted,
      prepareMs,
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  } catch (error) {
    // A failed call (a storage error while the database restarts, say) is one failed request.
    response
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
  }
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`);
});

const shutdown = () => {
  server.close(() => {
    void manager
      .idle()
      .then(() => stores.close())
      .finally(() => process.exit(0));
  });
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
