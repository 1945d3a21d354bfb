/**
 * The status parts read back with the AI SDK's own reader (`readUIMessageStream`), from a real UI
 * message stream (`createUIMessageStream` with the model's `toUIMessageStream` merged in), as a
 * `useChat` client would build the message (node_modules/ai/src/ui/process-ui-message-stream.ts:
 * a data chunk with an `id` replaces the part of the same type and id; a transient one goes to
 * `onData` only).
 */
import {
  type CtxmemEvent,
  createInMemoryMemoryStore,
  InvalidArgumentError,
  type Scope,
  scopeKey,
} from '@ctxmem/core';
import {
  createUIMessageStream,
  type ModelMessage,
  readUIMessageStream,
  streamText,
  type ToolSet,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  wrapLanguageModel,
} from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { contextMemoryMiddleware } from '../middleware/index.js';
import {
  createScriptedAgent,
  streamChunks,
  summaryAnswer,
  textResult,
  words,
} from '../mock-agent.test-support.js';
import { type CtxmemDataParts, writeContextStatus } from './index.js';

type ChatMessage = UIMessage<unknown, CtxmemDataParts>;

/** `overlap`: summaries wait until that many compactions have started, so they run at once. */
function setup({
  overlap = 1,
  failSummaries = false,
}: {
  overlap?: number;
  failSummaries?: boolean;
} = {}) {
  const agent = createScriptedAgent({ toolStepsPerTurn: 0 });
  const model = new MockLanguageModelV4({
    modelId: 'mock-chat',
    doStream: async ({ prompt }) =>
      ({ stream: convertArrayToReadableStream(streamChunks(agent.respond(prompt))) }) as never,
  });
  let summaries = 0;
  let started = 0;
  let overlapping!: () => void;
  const allStarted = new Promise<void>((resolve) => {
    overlapping = resolve;
  });
  const summarizerModel = new MockLanguageModelV4({
    modelId: 'gpt-4o-mini',
    doGenerate: async () => {
      await allStarted;
      if (failSummaries) throw new Error('socket closed while reading Question 3 of the chat');
      return textResult(summaryAnswer(String(++summaries))) as never;
    },
  });
  const memoryStore = createInMemoryMemoryStore();
  const events: CtxmemEvent[] = [];
  const middleware = contextMemoryMiddleware({
    contextWindow: 8_000,
    summarizerModel,
    memory: { store: memoryStore },
    onEvent: (event) => {
      events.push(event);
      if (event.type === 'compaction-start' && ++started >= overlap) overlapping();
    },
  });
  return { model: wrapLanguageModel({ model, middleware }), middleware, memoryStore, events };
}

/** A conversation long enough that its next request is compacted. */
function longConversation(turns: number, seed: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push(
      { role: 'user', content: `Question ${turn}: ${words(seed + turn, 60)}?` },
      { role: 'assistant', content: `Answer ${turn}: ${words(seed + turn + 1, 90)}` },
    );
  }
  return messages;
}

/** One chat request as a route handler serves it: the answer and ctxmem's status in one stream. */
function chatRequest(
  context: ReturnType<typeof setup>,
  scope: Scope,
  messages: ModelMessage[],
): ReadableStream<UIMessageChunk> {
  return createUIMessageStream<ChatMessage>({
    execute: ({ writer }) => {
      const status = writeContextStatus(writer, { events: context.middleware, scope });
      const result = streamText({
        model: context.model,
        messages,
        providerOptions: { ctxmem: { ...scope } },
      });
      writer.merge(
        status.stopAfter(toUIMessageStream<ToolSet, ChatMessage>({ stream: result.stream })),
      );
    },
  }) as ReadableStream<UIMessageChunk>;
}

/** The raw chunks and the final message, as the AI SDK's reader builds it. */
async function readBack(stream: ReadableStream<UIMessageChunk>) {
  const [forChunks, forMessages] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const collecting = (async () => {
    for await (const chunk of forChunks as unknown as AsyncIterable<UIMessageChunk>) {
      chunks.push(chunk);
    }
  })();
  let message: ChatMessage | undefined;
  for await (const snapshot of readUIMessageStream<ChatMessage>({ stream: forMessages })) {
    message = snapshot;
  }
  await collecting;
  return { chunks, message: message! };
}

describe('writeContextStatus', () => {
  it('streams a compaction (started, finished) and the memories used, read back by the AI SDK', async () => {
    const context = setup();
    const scope = { userId: 'user-1', sessionId: 'chat-1' };
    await context.memoryStore.add({ userId: 'user-1' }, [
      { content: 'The user deploys with the blue pipeline on Fridays', type: 'fact', tags: [] },
    ]);
    const messages = longConversation(40, 1);
    messages.push({ role: 'user', content: 'Which pipeline do I deploy with on Fridays?' });

    const { chunks, message } = await readBack(chatRequest(context, scope, messages));

    const compaction = context.events.find((event) => event.type === 'compaction');
    expect(compaction).toBeDefined();
    const { report } = compaction as Extract<CtxmemEvent, { type: 'compaction' }>;
    const data = chunks.filter((chunk) => chunk.type.startsWith('data-ctxmem'));
    // Started (transient) before finished, with the same id.
    expect(data.map((chunk) => [chunk.type, (chunk as { transient?: boolean }).transient])).toEqual(
      [
        ['data-ctxmem-compaction', true],
        ['data-ctxmem-compaction', undefined],
        ['data-ctxmem-memories', undefined],
      ],
    );
    const [started, finished] = data as Array<{ id: string; data: unknown }>;
    expect(started!.id).toBe(finished!.id);
    expect(started!.data).toEqual({
      state: 'started',
      trigger: report.trigger,
      tokensBefore: report.tokensBefore,
      budgetTokens: report.budgetTokens,
    });
    // The status comes before the answer's text.
    expect(chunks.findIndex((chunk) => chunk.type === 'data-ctxmem-compaction')).toBeLessThan(
      chunks.findIndex((chunk) => chunk.type === 'text-delta'),
    );

    // What the client keeps in the message: the finished compaction and the memories, typed.
    const parts = message.parts.filter((part) => part.type.startsWith('data-ctxmem'));
    expect(parts).toHaveLength(2);
    const kept = message.parts.find((part) => part.type === 'data-ctxmem-compaction');
    expect(kept?.type === 'data-ctxmem-compaction' && kept.data).toEqual({
      state: 'finished',
      trigger: report.trigger,
      tokensBefore: report.tokensBefore,
      tokensAfter: report.tokensAfter,
      budgetTokens: report.budgetTokens,
      strategies: report.strategies.filter((item) => item.applied).map((item) => item.strategy),
      summarizerCalls: report.summarizerCalls,
      durationMs: Math.round(report.durationMs),
    });
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore);
    const memories = message.parts.find((part) => part.type === 'data-ctxmem-memories');
    expect(memories?.type === 'data-ctxmem-memories' && memories.data.cards).toBe(1);
    expect(message.parts.some((part) => part.type === 'text')).toBe(true);
    // Counts and names only: no text of the conversation or the memories.
    const written = JSON.stringify(data);
    expect(written).not.toContain('blue pipeline');
    expect(written).not.toContain('Question');
  });

  it('keeps concurrent requests of different conversations apart', async () => {
    const context = setup({ overlap: 2 });
    const alice = { userId: 'alice', sessionId: 'a-1' };
    const bob = { userId: 'bob', sessionId: 'b-1' };
    await context.memoryStore.add({ userId: 'alice' }, [
      { content: 'Alice deploys with the green pipeline', type: 'fact', tags: [] },
    ]);
    const aliceMessages = [
      ...longConversation(40, 100),
      { role: 'user' as const, content: 'Which pipeline does Alice deploy with?' },
    ];
    const bobMessages = [
      ...longConversation(48, 500),
      { role: 'user' as const, content: 'Summarize the open questions.' },
    ];

    const [aliceRead, bobRead] = await Promise.all([
      readBack(chatRequest(context, alice, aliceMessages)),
      readBack(chatRequest(context, bob, bobMessages)),
    ]);

    const reportOf = (scope: Scope) =>
      (
        context.events.find(
          (event) => event.type === 'compaction' && scopeKey(event.scope) === scopeKey(scope),
        ) as Extract<CtxmemEvent, { type: 'compaction' }>
      ).report;
    // Both compacted at the same time: each stream shows its own compaction only.
    const starts = context.events
      .map((event) => event.type)
      .filter((type) => type.startsWith('compaction'));
    expect(starts.slice(0, 2)).toEqual(['compaction-start', 'compaction-start']);
    for (const [read, scope] of [
      [aliceRead, alice],
      [bobRead, bob],
    ] as const) {
      const compactions = read.message.parts.filter(
        (part) => part.type === 'data-ctxmem-compaction',
      );
      expect(compactions).toHaveLength(1);
      expect(
        compactions[0]!.type === 'data-ctxmem-compaction' && compactions[0]!.data.tokensBefore,
      ).toBe(reportOf(scope).tokensBefore);
    }
    expect(reportOf(alice).tokensBefore).not.toBe(reportOf(bob).tokensBefore);
    // Only Alice has memories.
    expect(aliceRead.message.parts.some((part) => part.type === 'data-ctxmem-memories')).toBe(true);
    expect(bobRead.message.parts.some((part) => part.type === 'data-ctxmem-memories')).toBe(false);
  });

  it('says when the summarizer fell back, by kind, without its message', async () => {
    const context = setup({ failSummaries: true });
    const messages = [...longConversation(40, 5), { role: 'user' as const, content: 'And now?' }];
    const { chunks, message } = await readBack(chatRequest(context, { sessionId: 'f' }, messages));
    const fallbacks = chunks.filter((chunk) => chunk.type === 'data-ctxmem-summarizer-fallback');
    expect(fallbacks.length).toBeGreaterThanOrEqual(1);
    expect(fallbacks[0]).toEqual({
      type: 'data-ctxmem-summarizer-fallback',
      transient: true,
      data: { from: 'ai-sdk:gpt-4o-mini', kind: 'error' },
    });
    expect(JSON.stringify(chunks.filter((chunk) => chunk.type.startsWith('data-')))).not.toContain(
      'Question 3',
    );
    // Transient: not kept in the message; the finished compaction is.
    expect(message.parts.some((part) => part.type === 'data-ctxmem-summarizer-fallback')).toBe(
      false,
    );
    expect(message.parts.some((part) => part.type === 'data-ctxmem-compaction')).toBe(true);
  });

  it('stops writing when the answer ends, and names what it cannot use', async () => {
    const context = setup();
    const scope = { sessionId: 'ended' };
    const written: unknown[] = [];
    const status = writeContextStatus(
      { write: (part) => written.push(part) },
      { events: context.middleware, scope },
    );
    const passed = status.stopAfter(convertArrayToReadableStream(['a', 'b']));
    const seen: string[] = [];
    for await (const chunk of passed as unknown as AsyncIterable<string>) seen.push(chunk);
    expect(seen).toEqual(['a', 'b']);
    // A later request of the same conversation, without a status of its own, writes nothing here.
    const messages = [...longConversation(40, 9), { role: 'user' as const, content: 'Next?' }];
    const result = streamText({
      model: context.model,
      messages,
      providerOptions: { ctxmem: scope },
    });
    await result.consumeStream();
    expect(context.events.some((event) => event.type === 'compaction')).toBe(true);
    expect(written).toEqual([]);

    for (const [writer, options] of [
      [{}, { events: context.middleware, scope }],
      [{ write() {} }, { events: {}, scope }],
      [{ write() {} }, { events: context.middleware, scope: { userId: '' } }],
    ] as const) {
      expect(() => writeContextStatus(writer as never, options as never)).toThrow(
        InvalidArgumentError,
      );
    }
  });

  it('gives each subscriber its own scope’s events, and survives one that throws', async () => {
    const context = setup();
    const seen: string[] = [];
    context.middleware.subscribe({ sessionId: 'x' }, () => {
      throw new Error('closed stream');
    });
    context.middleware.subscribe({ sessionId: 'x' }, (event) => seen.push(event.type));
    context.middleware.subscribe({ sessionId: 'y' }, () => seen.push('wrong scope'));
    const leave = context.middleware.subscribe({ sessionId: 'x' }, () => seen.push('left'));
    leave();
    leave();
    const messages = [...longConversation(40, 3), { role: 'user' as const, content: 'Go on.' }];
    const result = streamText({
      model: context.model,
      messages,
      providerOptions: { ctxmem: { sessionId: 'x' } },
    });
    await result.consumeStream();
    expect(await result.text).toMatch(/^Done:/);
    expect(seen).toContain('compaction-start');
    expect(seen).toContain('compaction');
    expect(seen).not.toContain('wrong scope');
    expect(seen).not.toContain('left');
  });
});
