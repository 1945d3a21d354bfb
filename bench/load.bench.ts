/**
 * `pnpm bench load`: a sustained in-process load — hundreds of concurrent sessions of a
 * tool-using agent, thousands of calls — through `createContextManager` (in-memory stores, then
 * file stores), the AI SDK middleware and the LangChain `ContextChatMemory`. Every prompt that
 * comes out is checked (budget, tool pairing, a user message present); the count of invalid
 * prompts must be 0. Each scenario stops issuing calls at its time limit. The sessions and the
 * loop that plays them are in `load-runner.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  contextMemoryMiddleware,
  fromV4Prompt,
  type LanguageModelLike,
  toV4Prompt,
} from '../packages/ai-sdk/src/index.js';
import {
  type ContextManager,
  createContextManager,
  createFileHistoryStore,
  createFileMemoryStore,
  createFileOffloadStore,
  createInMemoryMemoryStore,
  createMemorySearch,
  createTokenCounter,
  type MemoryStore,
  resolveBudget,
  type Scope,
} from '../packages/core/src/index.js';
import { fromLangChainMessages, toLangChainMessages } from '../packages/langchain/src/index.js';
import { ContextChatMemory } from '../packages/langchain/src/memory/index.js';
import { CONCURRENCY, row, runLoad, text } from './load-runner.js';
import type { BenchRun, BenchSection } from './types.js';

const CONTEXT_WINDOW = 8_000;

/** Cards for each session's user, so that every call also searches and injects memories. */
async function seedMemories(store: MemoryStore, sessions: number) {
  for (let session = 0; session < sessions; session++) {
    await store.add({ userId: `user${session}` }, [
      { content: `User ${session} deploys with the ${text(session, 3)} pipeline.`, type: 'fact' },
      {
        content: `User ${session} prefers short answers about ${text(session + 7, 2)}.`,
        type: 'preference',
      },
    ]);
  }
}

const scopeOf = (session: number): Scope => ({
  userId: `user${session}`,
  sessionId: `s${session}`,
});

async function coreScenario(
  manager: ContextManager,
  options: { sessions: number; turns: number; limitMs: number },
) {
  return runLoad({
    ...options,
    call: async (session, history) => {
      const prepared = await manager.prepare(history, { scope: scopeOf(session) });
      return {
        prompt: prepared.messages,
        compacted: prepared.compacted,
        budgetTokens: manager.budget.budgetTokens,
        counter: manager.counter,
      };
    },
  });
}

/** A model for the middleware's summarizer: answers a fixed JSON summary. */
const summaryModel: LanguageModelLike = {
  specificationVersion: 'v4',
  provider: 'load-bench',
  modelId: 'load-bench-model',
  async doGenerate() {
    const summary = JSON.stringify({
      summary: { goal: ['Help the user with their build.'], keyFacts: ['The pipeline is shared.'] },
      memories: [],
    });
    return { content: [{ type: 'text', text: summary }] };
  },
} as unknown as LanguageModelLike;

async function aiSdkScenario(options: { sessions: number; turns: number; limitMs: number }) {
  let compactions = 0;
  const middleware = contextMemoryMiddleware({
    contextWindow: CONTEXT_WINDOW,
    onEvent: (event) => {
      if (event.type === 'compaction') compactions++;
    },
  });
  const counter = createTokenCounter();
  const budgetTokens = resolveBudget({ contextWindow: CONTEXT_WINDOW }).budgetTokens;
  const result = await runLoad({
    ...options,
    call: async (session, history) => {
      // The AI SDK sends the whole history as new objects on every call.
      const transformed = await middleware.transformParams({
        type: 'generate',
        params: { prompt: toV4Prompt(history), providerOptions: { ctxmem: scopeOf(session) } },
        model: summaryModel,
      });
      const prompt = fromV4Prompt(transformed.prompt as Parameters<typeof fromV4Prompt>[0]);
      return {
        prompt,
        // Counted from the events below: background compactions finish after their call.
        compacted: false,
        budgetTokens: middleware.manager()?.budget.budgetTokens ?? budgetTokens,
        counter,
      };
    },
  });
  await middleware.idle();
  return { ...result, compactions };
}

async function langChainScenario(options: { sessions: number; turns: number; limitMs: number }) {
  const shared = new ContextChatMemory({ contextWindow: CONTEXT_WINDOW, returnMessages: true });
  const memories = new Map<number, ContextChatMemory>();
  const counter = createTokenCounter();
  const budgetTokens = resolveBudget({ contextWindow: CONTEXT_WINDOW }).budgetTokens;
  // What the chat history already holds, per session (LangChain appends; ctxmem only reads it).
  const saved = new Map<number, number>();
  return runLoad({
    ...options,
    call: async (session, history) => {
      let memory = memories.get(session);
      if (!memory) {
        memory = shared.withScope(scopeOf(session));
        memories.set(session, memory);
      }
      // Append what the chain produced since the last call, then load the compressed history,
      // as a chain does before calling its model.
      const from = saved.get(session) ?? 0;
      await memory.chatHistory.addMessages(toLangChainMessages(history.slice(from)));
      saved.set(session, history.length);
      const { messages, result } = await memory.prepare();
      return {
        prompt: fromLangChainMessages(messages),
        compacted: result.compacted,
        budgetTokens,
        counter,
      };
    },
  });
}

export const run: BenchRun = async ({ quick }) => {
  const sessions = quick ? 100 : 300;
  const turns = quick ? 10 : 20;
  const limitMs = quick ? 8_000 : 90_000;
  const options = { sessions, turns, limitMs };
  // Loads the shared BPE rank file once, outside the measurements.
  createTokenCounter().countText('warm up');
  const rows: Array<Record<string, string | number>> = [];

  {
    const memory = createInMemoryMemoryStore();
    await seedMemories(memory, sessions);
    let searchFallbacks = 0;
    const search = createMemorySearch({ store: memory, onFallback: () => searchFallbacks++ });
    const manager = createContextManager({
      contextWindow: CONTEXT_WINDOW,
      memory: { store: memory, search },
    });
    const result = await coreScenario(manager, options);
    rows.push(
      row('createContextManager, in-memory stores + memory search', { ...result, searchFallbacks }),
    );
  }
  {
    const root = await mkdtemp(join(tmpdir(), 'ctxmem-load-'));
    try {
      const memory = createFileMemoryStore({ root });
      await seedMemories(memory, sessions);
      let searchFallbacks = 0;
      const search = createMemorySearch({ store: memory, onFallback: () => searchFallbacks++ });
      const manager = createContextManager({
        contextWindow: CONTEXT_WINDOW,
        historyStore: createFileHistoryStore({ root }),
        offloadStore: createFileOffloadStore({ root }),
        memory: { store: memory, search },
      });
      const result = await coreScenario(manager, options);
      rows.push(
        row('createContextManager, file stores + memory search', { ...result, searchFallbacks }),
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  rows.push(row('AI SDK middleware (transformParams)', await aiSdkScenario(options)));
  rows.push(
    row('LangChain ContextChatMemory (append + prepare)', await langChainScenario(options)),
  );

  const section: BenchSection = {
    title: `Load: ${sessions} sessions × ${turns} turns × 2 calls, ${CONCURRENCY} sessions at a time`,
    rows,
    notes: [
      `Context window ${CONTEXT_WINDOW} tokens; each turn is a question, a tool step (every fifth result about 24 KB, so it is offloaded) and an answer. Every session compacts several times.`,
      'Latency is wall time per call with 32 sessions in flight on one thread: calls interleave, so a call takes about as long as the CPU work of all calls in flight (32 × "CPU ms per call" on the heavy turns with a 24 KB result). "CPU ms per call" is the process CPU time over the scenario divided by its calls; the summarizer is extractive (core, LangChain) or a fake model answering at once (AI SDK, background compaction on by default), so the numbers are ctxmem’s own cost.',
      '"search fallbacks": searches whose vector side missed its 1 s deadline (`timeoutMs`) and answered from BM25 alone.',
      'The tokenizer’s rank file is loaded before the first scenario, so its one-time load (about half a second) is not in any row. File stores fsync every append and state write.',
      'A prompt is invalid when it is over the budget, a tool call lacks its result (or the reverse), or it has no user message. The target is 0.',
      `Each path stops issuing calls after ${limitMs / 1000} s ("stopped at limit").`,
    ],
  };
  return [section];
};
