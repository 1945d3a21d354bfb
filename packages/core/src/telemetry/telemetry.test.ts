import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { registerSpanRecorder } from '../../../../test/setup/span-recorder.js';
import { createContextManager } from '../context/index.js';
import type { CompleteResult, Message, Scope } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { createInMemoryHistoryStore } from '../history/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { messageText } from '../messages/index.js';
import { createMemorySearch } from '../retrieval/index.js';
import { createInMemoryLeaseStore } from '../storage/index.js';
import { createScriptedComplete, summaryReply } from '../test/summarizers.js';
import { createTokenCounter } from '../tokens/index.js';
import { CTXMEM_TRACER_NAME } from './index.js';

const recorder = registerSpanRecorder();
afterAll(() => recorder.shutdown());
beforeEach(() => recorder.reset());

const counter = createTokenCounter();
const tracer = trace.getTracer('telemetry-test');
const SECRET_MEMORY = 'The user keeps the staging password in a yellow notebook';
const SCOPE: Scope = { userId: 'alice@example.com', sessionId: 'chat-42' };

/** A conversation whose every text is distinctive, so a leak into a span is found. */
function conversation(turns: number): Message[] {
  const history: Message[] = [{ role: 'system', content: 'You are a careful billing assistant.' }];
  for (let turn = 1; turn <= turns; turn++) {
    history.push(
      {
        role: 'user',
        content: `Question ${turn}: why was invoice INV-${1000 + turn} charged twice for the staging notebook plan?`,
      },
      {
        role: 'assistant',
        content: `Answer ${turn}: invoice INV-${1000 + turn} was retried by the payment gateway after a timeout, ${'and the ledger shows both attempts in detail '.repeat(6)}`,
      },
    );
  }
  return history;
}

function summaryAnswer(index: number): CompleteResult {
  return {
    text: summaryReply(`of the invoices ${index}`, [`Invoice fact number ${index} of the ledger`]),
    finishReason: 'stop',
    usage: { inputTokens: 900 + index, outputTokens: 80 },
    model: 'summary-model-1',
  };
}

/** Every text the spans must not contain: the messages, the summaries written, the memories. */
function contentOf(messages: readonly Message[], extra: readonly string[] = []): string[] {
  return [...messages.map((message) => messageText(message)), ...extra].filter(
    (text) => text.length >= 12,
  );
}

function expectNoContent(texts: readonly string[]) {
  const recorded = recorder.recordedTexts();
  for (const text of texts) {
    for (const value of recorded) {
      expect(value.includes(text), `a span holds "${text.slice(0, 40)}…"`).toBe(false);
      if (value.length >= 24) expect(text.includes(value), `a span quotes "${value}"`).toBe(false);
    }
  }
}

function single(name: string): ReadableSpan {
  const spans = recorder.named(name);
  expect(spans, name).toHaveLength(1);
  return spans[0]!;
}

async function setupMemories() {
  const store = createInMemoryMemoryStore();
  await store.add({ userId: SCOPE.userId! }, [
    { content: SECRET_MEMORY, type: 'fact', tags: ['staging'] },
  ]);
  return { store, search: createMemorySearch({ store }) };
}

describe('OpenTelemetry spans of the context manager', () => {
  it('makes no span and wraps nothing unless enabled', async () => {
    for (const telemetry of [undefined, {}, { enabled: false, tracer }]) {
      const historyStore = createInMemoryHistoryStore();
      const manager = createContextManager({
        contextWindow: 3_000,
        counter,
        historyStore,
        ...(telemetry ? { telemetry } : {}),
      });
      const prepared = await manager.prepare(conversation(30), { scope: SCOPE });
      expect(prepared.compacted).toBe(true);
      // The given store itself, not a wrapper: off costs nothing per store call.
      expect(manager.historyStore).toBe(historyStore);
    }
    expect(recorder.spans()).toEqual([]);
  });

  it('spans the compaction lease: which job, and whether it was taken', async () => {
    const leases = createInMemoryLeaseStore();
    const complete = createScriptedComplete([summaryAnswer(1)], { repeatLast: true });
    const manager = createContextManager({
      contextWindow: 3_000,
      counter,
      historyStore: createInMemoryHistoryStore(),
      leases,
      modelSummarizer: { complete, name: 'model' },
      telemetry: { enabled: true, tracer },
    });
    // Another instance holds the lease first, so this call's attempt is refused and spanned so.
    const held = await leases.tryAcquire(SCOPE, 'compaction', 60_000);
    await manager.prepare(conversation(30), { scope: SCOPE });
    await held?.release();
    await manager.prepare(conversation(31), { scope: SCOPE });

    const attempts = recorder.named('ctxmem.lease_store.tryAcquire');
    expect(attempts.map((span) => span.attributes['ctxmem.lease.acquired'])).toEqual([false, true]);
    for (const span of attempts) {
      expect(span.attributes).toMatchObject({
        'ctxmem.store.kind': 'lease',
        'ctxmem.store.operation': 'tryAcquire',
        'ctxmem.lease.name': 'compaction',
      });
      const prepares = recorder.named('ctxmem.prepare');
      expect(prepares.some((prepare) => recorder.isUnder(span, prepare))).toBe(true);
    }
  });

  it('nests a compacting call under the caller’s span, with counts and no content', async () => {
    const memory = await setupMemories();
    const complete = createScriptedComplete([summaryAnswer(1)], { repeatLast: true });
    const manager = createContextManager({
      model: 'gpt-4o',
      contextWindow: 3_000,
      counter,
      historyStore: createInMemoryHistoryStore(),
      memory: { store: memory.store, search: memory.search },
      modelSummarizer: { complete, name: 'model' },
      telemetry: { enabled: true, tracer },
    });
    const history = conversation(30);
    history.push({ role: 'user', content: 'Where is the staging password written down?' });
    const prepared = await tracer.startActiveSpan('app.request', async (span) => {
      try {
        return await manager.prepare(history, { scope: SCOPE });
      } finally {
        span.end();
      }
    });
    expect(prepared.compacted).toBe(true);
    expect(prepared.injected).toBe(1);

    const request = single('app.request');
    const prepare = single('ctxmem.prepare');
    const compaction = single('ctxmem.compaction');
    const summarize = single('ctxmem.summarize');
    const chat = single('chat summary-model-1');
    const retrieval = single('retrieval ctxmem.memory');
    expect(recorder.parentOf(prepare)).toBe(request);
    expect(recorder.parentOf(compaction)).toBe(prepare);
    expect(recorder.parentOf(summarize)).toBe(compaction);
    expect(recorder.parentOf(chat)).toBe(summarize);
    expect(recorder.parentOf(retrieval)).toBe(prepare);
    for (const name of ['ctxmem.history_store.append', 'ctxmem.history_store.setState']) {
      expect(recorder.named(name).length, name).toBeGreaterThanOrEqual(1);
      for (const span of recorder.named(name)) expect(recorder.isUnder(span, prepare)).toBe(true);
    }
    expect(single('ctxmem.memory_store.add').attributes).toMatchObject({
      'ctxmem.store.kind': 'memory',
      'ctxmem.store.operation': 'add',
      'ctxmem.store.records': 1,
    });

    expect(prepare.attributes).toMatchObject({
      'ctxmem.model': 'gpt-4o',
      'ctxmem.tokens.after': prepared.tokens,
      'ctxmem.request.tokens': prepared.requestTokens,
      'ctxmem.budget.tokens': prepared.budget.budgetTokens,
      'ctxmem.compacted': true,
      'ctxmem.compaction.source': 'compacted',
      'ctxmem.summarizer.name': 'model>extractive',
      'ctxmem.memories.injected': 1,
      'ctxmem.count_ratio': prepared.budget.countRatio,
      'ctxmem.count_ratio.observations': 0,
      'ctxmem.history.messages': history.length,
    });
    expect(prepare.attributes['ctxmem.tokens.before']).toBeGreaterThan(prepared.tokens);
    expect(prepare.attributes['ctxmem.strategies']).toContain('summarize-rounds');
    const windowParts = [
      'system',
      'summary',
      'memories',
      'history',
      'compressed',
      'tool_results',
    ].map((part) => prepare.attributes[`ctxmem.window.${part}`] as number);
    expect(windowParts.reduce((sum, tokens) => sum + tokens, 0)).toBe(prepared.tokens);
    expect(prepare.attributes['ctxmem.window.summary']).toBeGreaterThan(0);
    expect(prepare.attributes['ctxmem.window.memories']).toBeGreaterThan(0);

    expect(compaction.attributes).toMatchObject({
      'ctxmem.compaction.trigger': prepared.report!.trigger,
      'ctxmem.compaction.background': false,
      'ctxmem.compaction.offline': false,
      'ctxmem.summarizer.calls': 1,
    });
    expect(compaction.attributes['ctxmem.tokens.before']).toBeGreaterThan(
      compaction.attributes['ctxmem.tokens.after'] as number,
    );
    expect(compaction.events.map((event) => event.attributes?.['ctxmem.strategy'])).toContain(
      'summarize-rounds',
    );
    expect(summarize.attributes).toMatchObject({
      'ctxmem.summarizer.name': 'model>extractive',
      'ctxmem.summarizer.calls': 1,
      'ctxmem.memories.extracted': 1,
    });
    expect(summarize.attributes['ctxmem.summarizer.fallback.kind']).toBeUndefined();
    // GenAI semantic conventions on the summarizer's model call.
    expect(chat.kind).toBe(2); // SpanKind.CLIENT
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'summary-model-1',
      'gen_ai.usage.input_tokens': 901,
      'gen_ai.usage.output_tokens': 80,
      'gen_ai.response.finish_reasons': ['stop'],
      'ctxmem.operation': 'summarize',
    });
    expect(chat.attributes['gen_ai.input.messages']).toBeUndefined();
    expect(retrieval.attributes).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': 'ctxmem.memory',
      'ctxmem.search.hits': 1,
    });
    expect(retrieval.attributes['gen_ai.retrieval.query.text']).toBeUndefined();
    const [found] = JSON.parse(retrieval.attributes['gen_ai.retrieval.documents'] as string);
    expect(Object.keys(found).sort()).toEqual(['id', 'score']);

    // Nothing of the conversation, the summary or the memories, and no scope id.
    expectNoContent(
      contentOf(history, [
        SECRET_MEMORY,
        'Invoice fact number 1 of the ledger',
        'Summary of the invoices 1',
        SCOPE.userId!,
        SCOPE.sessionId!,
      ]),
    );
    for (const span of recorder.spans()) expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('records a failed summarizer call by its class, and the fallback by its kind', async () => {
    const secret = 'the provider quoted: invoice INV-1003 was charged twice';
    const complete = createScriptedComplete([new Error(secret)], { repeatLast: true });
    const manager = createContextManager({
      contextWindow: 3_000,
      counter,
      modelSummarizer: { complete },
      summarizerCircuitBreaker: false,
      telemetry: { enabled: true, tracer },
    });
    const history = conversation(30);
    const prepared = await manager.prepare(history, { scope: SCOPE });
    expect(prepared.compacted).toBe(true);

    const chats = recorder.named('chat');
    expect(chats.length).toBe(complete.requests.length);
    for (const chat of chats) {
      expect(chat.status).toEqual({ code: SpanStatusCode.ERROR });
      expect(chat.attributes['error.type']).toBe('Error');
      expect(chat.events.map((event) => [event.name, event.attributes])).toEqual([
        ['exception', { 'exception.type': 'Error' }],
      ]);
    }
    const summarizes = recorder.named('ctxmem.summarize');
    expect(summarizes.length).toBeGreaterThanOrEqual(1);
    for (const summarize of summarizes) {
      expect(summarize.status.code).not.toBe(SpanStatusCode.ERROR);
      expect(summarize.attributes).toMatchObject({
        'ctxmem.summarizer.fallback.from': 'model',
        'ctxmem.summarizer.fallback.kind': 'error',
        'ctxmem.summarizer.fallback.error_class': 'Error',
      });
    }
    expect(single('ctxmem.compaction').attributes['ctxmem.summarizer.fallback.kind']).toBe('error');
    expectNoContent([...contentOf(history), secret]);
  });

  it('marks a failed prepare as an error without quoting the input', async () => {
    const manager = createContextManager({
      contextWindow: 3_000,
      counter,
      telemetry: { enabled: true, tracer },
    });
    const bad = [{ role: 'user', content: 'my card number is 4111 1111 1111 1111' }, { role: 'x' }];
    await expect(manager.prepare(bad as Message[])).rejects.toThrow();
    const prepare = single('ctxmem.prepare');
    expect(prepare.status.code).toBe(SpanStatusCode.ERROR);
    expect(prepare.status.message).toBeUndefined();
    expect(prepare.attributes['error.type']).toBe('CtxmemInvalidMessageError');
    expectNoContent(['my card number is 4111 1111 1111 1111']);
  });

  it('shows content and scope ids only when the app opts in', async () => {
    const memory = await setupMemories();
    const complete = createScriptedComplete([summaryAnswer(2)], { repeatLast: true });
    const history = conversation(30);
    history.push({ role: 'user', content: 'Where is the staging password written down?' });
    const run = async (telemetry: object) => {
      recorder.reset();
      const manager = createContextManager({
        contextWindow: 3_000,
        counter,
        memory: { store: memory.store, search: memory.search },
        modelSummarizer: { complete },
        telemetry: { enabled: true, tracer, ...telemetry },
      });
      await manager.prepare(history, { scope: SCOPE });
      return {
        prepare: single('ctxmem.prepare'),
        chat: single('chat summary-model-1'),
        retrieval: single('retrieval ctxmem.memory'),
      };
    };

    const hashed = await run({ recordScope: 'hashed' });
    const hash = hashed.prepare.attributes['ctxmem.scope.hash'];
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(hashed.prepare.attributes['ctxmem.scope.user_id']).toBeUndefined();
    // Stable per scope, so one conversation's spans group together.
    expect((await run({ recordScope: 'hashed' })).prepare.attributes['ctxmem.scope.hash']).toBe(
      hash,
    );

    const plain = await run({ recordScope: 'plain' });
    expect(plain.prepare.attributes).toMatchObject({
      'ctxmem.scope.user_id': SCOPE.userId,
      'ctxmem.scope.session_id': SCOPE.sessionId,
    });
    // The memory search runs in the memory scope: the user's, without the session.
    expect(plain.retrieval.attributes['ctxmem.scope.user_id']).toBe(SCOPE.userId);
    expect(plain.retrieval.attributes['ctxmem.scope.session_id']).toBeUndefined();

    const content = await run({ recordContent: true });
    expect(content.retrieval.attributes['gen_ai.retrieval.query.text']).toBe(
      'Where is the staging password written down?',
    );
    const input = JSON.parse(content.chat.attributes['gen_ai.input.messages'] as string);
    expect(input[0].role).toBe('user');
    expect(input[0].parts[0].content).toContain('invoice INV-1001');
    const output = JSON.parse(content.chat.attributes['gen_ai.output.messages'] as string);
    expect(output[0].parts[0].content).toBe(summaryAnswer(2).text);
    expect(content.chat.attributes['gen_ai.system_instructions']).toBeDefined();
  });

  it('uses the globally registered tracer provider by default, under the active span', async () => {
    const manager = createContextManager({
      contextWindow: 3_000,
      counter,
      telemetry: { enabled: true },
    });
    // Core imports the OpenTelemetry API as its first span starts: the caller's span, active
    // here, must still be the parent of that first span and of the later ones.
    for (const request of ['app.first', 'app.second']) {
      await tracer.startActiveSpan(request, async (span) => {
        try {
          await manager.prepare(conversation(2));
        } finally {
          span.end();
        }
      });
    }
    const prepares = recorder.named('ctxmem.prepare');
    expect(prepares.map((span) => recorder.parentOf(span)?.name)).toEqual([
      'app.first',
      'app.second',
    ]);
    for (const span of prepares) {
      expect(span.instrumentationScope.name).toBe(CTXMEM_TRACER_NAME);
    }
  });

  it('spans the silent memory flush and its model call', async () => {
    const complete = createScriptedComplete(
      ['{"long_term":[{"content":"User prefers tabs","type":"preference"}],"daily":[]}'],
      { repeatLast: true },
    );
    const manager = createContextManager({
      contextWindow: 6_000,
      counter,
      memory: { store: createInMemoryMemoryStore() },
      flush: { complete },
      telemetry: { enabled: true, tracer },
    });
    const history = conversation(1);
    for (let turn = 0; turn < 40 && complete.requests.length === 0; turn++) {
      history.push(...conversation(2).slice(1));
      await manager.prepare(history);
    }
    await manager.idle();
    expect(complete.requests.length).toBeGreaterThanOrEqual(1);
    const [flush] = recorder.named('ctxmem.memory_flush');
    expect(flush?.attributes).toMatchObject({
      'ctxmem.memory_flush.skipped': false,
      'ctxmem.memory_flush.long_term': 1,
    });
    const chat = recorder.named('chat').find((span) => recorder.parentOf(span) === flush);
    expect(chat?.attributes['ctxmem.operation']).toBe('memory-flush');
    expect(
      recorder.named('ctxmem.memory_store.add').some((span) => recorder.isUnder(span, flush!)),
    ).toBe(true);
  });

  it('rejects telemetry options it cannot use, naming them', () => {
    const attempts = [
      { telemetry: 'on' },
      { telemetry: { enabled: true, recordScope: 'ids' } },
      { telemetry: { enabled: true, tracer: {} } },
    ];
    for (const attempt of attempts) {
      let caught: unknown;
      try {
        createContextManager({ contextWindow: 3_000, ...(attempt as object) });
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught)).toBe(true);
      expect((caught as InvalidArgumentError).argument).toMatch(/^telemetry/);
    }
  });
});
