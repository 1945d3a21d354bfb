/**
 * `pnpm bench ai-sdk-middleware`: the AI SDK middleware's cost when no compaction is needed (the
 * common case: the SDK resends the whole history on every call and every tool-loop step), next to
 * the AI SDK's `pruneMessages` and a naive full recount; and how often the summarizer runs over a
 * long tool-using conversation. The middleware is driven directly through `transformParams` with
 * prompts built the way the SDK builds them (new objects on every call, the same strings).
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
// The root has no `ai` dependency: use the AI SDK 7 the adapter is developed against.
import { type ModelMessage, pruneMessages } from '../packages/ai-sdk/node_modules/ai/dist/index.js';
import {
  contextMemoryMiddleware,
  fromV4Prompt,
  type LanguageModelLike,
  type V4Message,
} from '../packages/ai-sdk/src/index.js';
import type { CtxmemEvent } from '../packages/core/src/contracts/index.js';
import { fillerText } from '../packages/core/src/test/filler-text.js';
import { createTokenCounter } from '../packages/core/src/tokens/index.js';
import type { BenchRun, BenchSection } from './types.js';

// The tests' deterministic filler text.
const text = fillerText;

/** One turn of a tool-using agent: question, tool call, tool result, answer. */
function turn(index: number, resultWords: number): V4Message[] {
  const id = `call_${index}`;
  return [
    { role: 'user', content: [{ type: 'text', text: `Turn ${index}: ${text(index, 30)}?` }] },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: id,
          toolName: 'search',
          input: { query: text(index + 1, 6) },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'search',
          output: { type: 'text', value: text(index + 2, resultWords) },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: text(index + 3, 25) }] },
  ];
}

function conversation(messages: number): V4Message[] {
  const history: V4Message[] = [{ role: 'system', content: 'You are a helpful coding agent.' }];
  for (let index = 1; history.length < messages; index++) history.push(...turn(index, 60));
  return history.slice(0, messages);
}

/** What the AI SDK does on every call: new message and part objects around the same strings. */
function copyPrompt(messages: readonly V4Message[]): V4Message[] {
  return messages.map((message) =>
    typeof message.content === 'string'
      ? { ...message }
      : ({ ...message, content: message.content.map((part) => ({ ...part })) } as V4Message),
  );
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((left, right) => left - right);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

const ms = (value: number) => Number(value.toFixed(3));

/** Calls of each measured function before its timed loop. */
const WARM_UP_CALLS = 200;

// One full collection before each measured loop, so that the garbage of the previous loops (the
// full recount makes a lot) is not collected during this one. Individual calls are not helped.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function fakeModel(modelId: string, onSummary: () => void): LanguageModelLike {
  return {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId,
    async doGenerate() {
      onSummary();
      const summaryJson = JSON.stringify({
        summary: {
          goal: ['Help with the build.'],
          background: [],
          keyFacts: [],
          constraints: [],
          decisions: [],
          todos: [],
          snippets: [],
        },
        memories: [],
      });
      return { content: [{ type: 'text', text: summaryJson }] };
    },
  };
}

/** 25 function tools with descriptions and schemas of the size agents carry (about 6,000 tokens). */
const TOOLS = Array.from({ length: 25 }, (_, index) => ({
  type: 'function' as const,
  name: `tool_${index}`,
  description: `Tool ${index}: ${text(index + 100, 150)}`,
  inputSchema: {
    type: 'object',
    properties: {
      target: { type: 'string', description: text(index + 200, 12) },
      limit: { type: 'number', description: text(index + 300, 8) },
      mode: { type: 'string', enum: ['fast', 'careful', 'dry-run'] },
    },
    required: ['target'],
  },
}));

async function overhead(size: number, iterations: number, withTools = false) {
  const history = conversation(size);
  // End on a whole turn: a tool call without its result is a prompt the AI SDK itself refuses
  // (and ctxmem would repair), not the steady state being measured.
  let base = history.slice(0, size - 1);
  while (base.at(-1)?.role !== 'assistant' || JSON.stringify(base.at(-1)).includes('"tool-call"')) {
    base = base.slice(0, -1);
  }
  const newMessage = (index: number): V4Message => ({
    role: 'user',
    content: [{ type: 'text', text: `New question ${index}: ${text(index, 20)}?` }],
  });
  const model = fakeModel('bench-agent', () => {});
  // A window far above the history: no call compacts.
  const middleware = contextMemoryMiddleware({
    contextWindow: 50_000_000,
    backgroundCompaction: false,
  });
  // The AI SDK builds the tools array anew on every call too.
  const call = (prompt: V4Message[]) =>
    middleware.transformParams({
      type: 'generate',
      params: withTools
        ? { prompt, tools: TOOLS.map((tool) => ({ ...tool })), maxOutputTokens: 2_000 }
        : { prompt },
      model,
    });

  let started = performance.now();
  await call([...copyPrompt(base), newMessage(-1)]);
  const cold = performance.now() - started;
  const naiveCounter = createTokenCounter({ cacheSize: 0 });
  const prunePrompt = (messages: V4Message[]) =>
    pruneMessages({
      messages: messages as unknown as ModelMessage[],
      reasoning: 'before-last-message',
      toolCalls: 'before-last-2-messages',
    });
  // Warm the JIT of all three the same way before measuring (the optimizing compiler needs more
  // than a few calls of the larger functions); the full recount is slow, so it gets fewer.
  for (let index = 0; index < WARM_UP_CALLS; index++) {
    await call([...copyPrompt(base), newMessage(-2 - index)]);
    prunePrompt([...copyPrompt(base), newMessage(-2 - index)]);
    if (index < WARM_UP_CALLS / 10)
      naiveCounter.countMessages(fromV4Prompt([...copyPrompt(base), newMessage(-2 - index)]));
  }

  const ctxmem: number[] = [];
  const prune: number[] = [];
  const recount: number[] = [];
  // Each input is built just before its timed call (building is not timed), so that only one
  // input is alive at a time, as in an application. The three are measured in separate loops, so
  // that the garbage of one (the full recount makes a lot) does not pause the others; each loop
  // starts after a full collection (the warm-up and the previous row leave garbage too).
  collectGarbage();
  for (let index = 0; index < iterations; index++) {
    const prompt = [...copyPrompt(base), newMessage(index)];
    started = performance.now();
    const result = await call(prompt);
    ctxmem.push(performance.now() - started);
    if (result.prompt.length !== base.length + 1)
      throw new Error('the middleware changed a prompt under the threshold');
  }
  collectGarbage();
  for (let index = 0; index < iterations; index++) {
    const messages = [...copyPrompt(base), newMessage(index)];
    started = performance.now();
    prunePrompt(messages);
    prune.push(performance.now() - started);
  }
  collectGarbage();
  for (let index = 0; index < iterations; index++) {
    const prompt = [...copyPrompt(base), newMessage(index)];
    started = performance.now();
    naiveCounter.countMessages(fromV4Prompt(prompt));
    recount.push(performance.now() - started);
  }
  const tokens = createTokenCounter().countMessages(fromV4Prompt(history));
  return {
    cold,
    tokens,
    ctxmem: summary(ctxmem),
    prune: summary(prune),
    recount: summary(recount),
  };
}

async function longConversation(turns: number, backgroundCompaction: boolean) {
  let summarizerCalls = 0;
  const model = fakeModel('bench-agent', () => summarizerCalls++);
  const compactions: Array<Extract<CtxmemEvent, { type: 'compaction' }>> = [];
  const middleware = contextMemoryMiddleware({
    contextWindow: 32_000,
    backgroundCompaction,
    onEvent: (event) => {
      if (event.type === 'compaction') compactions.push(event);
    },
  });
  const counter = createTokenCounter();
  const history: V4Message[] = [{ role: 'system', content: 'You are a helpful coding agent.' }];
  let rawTokens = counter.countMessages(fromV4Prompt(history));
  const append = (messages: V4Message[]) => {
    history.push(...messages);
    rawTokens += counter.countMessages(fromV4Prompt(messages)) - counter.promptOverhead;
  };
  let calls = 0;
  let rawCallsOverThreshold = 0;
  let largestPrompt = 0;
  const started = performance.now();
  for (let index = 1; index <= turns; index++) {
    const [question, toolCall, toolResult, answer] = turn(index, 300);
    append([question!]);
    // Three model calls per turn: two tool steps and the answer.
    for (const step of [[toolCall!, toolResult!], [toolCall!, toolResult!], [answer!]] as const) {
      const result = await middleware.transformParams({
        type: 'generate',
        params: { prompt: copyPrompt(history) },
        model,
      });
      calls++;
      const manager = middleware.manager()!;
      if (rawTokens >= manager.budget.triggerTokens) rawCallsOverThreshold++;
      largestPrompt = Math.max(
        largestPrompt,
        manager.counter.countMessages(fromV4Prompt(result.prompt as V4Message[])),
      );
      append(
        step.map((message, position) =>
          // Unique tool-call ids per step.
          position < 2 && step.length === 2
            ? renameCall(message, `call_${index}_${calls}`)
            : message,
        ),
      );
    }
  }
  await middleware.idle();
  const manager = middleware.manager()!;
  const perCompaction = compactions.map((event) => event.report.summarizerCalls);
  return {
    calls,
    rawTokens,
    compactions: compactions.length,
    summarizerCalls,
    maxPerCompaction: Math.max(0, ...perCompaction),
    rawCallsOverThreshold,
    largestPrompt,
    budget: manager.budget.budgetTokens,
    seconds: (performance.now() - started) / 1000,
  };
}

function renameCall(message: V4Message, id: string): V4Message {
  if (message.role === 'assistant') {
    return {
      ...message,
      content: message.content.map((part) =>
        part.type === 'tool-call' ? { ...part, toolCallId: id } : part,
      ),
    };
  }
  if (message.role === 'tool') {
    return {
      ...message,
      content: message.content.map((part) =>
        part.type === 'tool-result' ? { ...part, toolCallId: id } : part,
      ),
    };
  }
  return message;
}

export const run: BenchRun = async ({ quick }) => {
  const sections: BenchSection[] = [];
  const overheadRows: Array<Record<string, string | number>> = [];
  for (const [size, iterations, withTools] of [
    [100, quick ? 300 : 2_000, false],
    [1_000, quick ? 200 : 1_000, false],
    [1_000, quick ? 200 : 1_000, true],
    [5_000, quick ? 40 : 200, false],
  ] as const) {
    const result = await overhead(size, iterations, withTools);
    overheadRows.push({
      messages: size,
      tools: withTools ? '25 + maxOutputTokens' : 'none',
      tokens: result.tokens,
      calls: iterations,
      'ctxmem p50 ms': ms(result.ctxmem.p50),
      'ctxmem p99 ms': ms(result.ctxmem.p99),
      'ctxmem first call ms': ms(result.cold),
      'pruneMessages p50 ms': ms(result.prune.p50),
      'pruneMessages p99 ms': ms(result.prune.p99),
      'full recount p50 ms': ms(result.recount.p50),
      'full recount p99 ms': ms(result.recount.p99),
    });
  }
  sections.push({
    title: 'AI SDK middleware: overhead per call when no compaction is needed',
    rows: overheadRows,
    notes: [
      'Each call resends the whole history as new objects plus one new message, as the AI SDK does; only `transformParams` is timed (the copy is not).',
      'p99 includes garbage-collector pauses, which land on whichever call is running (compare `pruneMessages`, whose own work is tiny); a full collection runs before each measured loop only. The machine is shared with other jobs.',
      `The first call converts and counts the whole history once (in the first row it also loads the tokenizer); later calls reuse the conversions and counts of the unchanged messages. ${WARM_UP_CALLS} warm-up calls of ctxmem and of \`pruneMessages\` (${WARM_UP_CALLS / 10} of the full recount) are not measured.`,
      '`pruneMessages` (reasoning before the last message, tool calls before the last 2 messages) only drops parts and does not count tokens; the full recount tokenizes every message on every call (no cache), as a stateless middleware would.',
      'The row with 25 tools passes `params.tools` (about 6,000 tokens of definitions, new objects on every call) and `maxOutputTokens: 2000`, which come off the budget on every call.',
      'Target: ctxmem p99 under 1 ms at 1,000 messages, with and without tools.',
    ],
  });

  const turns = quick ? 100 : 500;
  const conversationRows: Array<Record<string, string | number>> = [];
  for (const background of [true, false]) {
    const result = await longConversation(turns, background);
    conversationRows.push({
      'background compaction': background ? 'on' : 'off',
      turns,
      'model calls': result.calls,
      'tokens (uncompressed)': result.rawTokens,
      'threshold crossings (compactions)': result.compactions,
      'summarizer calls': result.summarizerCalls,
      'max summarizer calls per compaction': result.maxPerCompaction,
      'calls over the threshold without ctxmem': result.rawCallsOverThreshold,
      'largest prompt tokens': result.largestPrompt,
      'budget tokens': result.budget,
      seconds: Number(result.seconds.toFixed(1)),
    });
  }
  sections.push({
    title: `AI SDK middleware: summarizer calls over a ${turns}-turn tool-using conversation`,
    rows: conversationRows,
    notes: [
      'Window 32,000 tokens (trigger at 80 %, back to 60 %); three model calls per turn (two tool steps with ~300-word results, then the answer); the wrapped model writes the summaries (a scripted stand-in).',
      '"Calls over the threshold without ctxmem" is how many calls would summarize if every call over the threshold summarized its prompt from scratch: the uncompressed history is over the threshold from that point on.',
      'Target: one summarizer call per threshold crossing, not one per call or step.',
    ],
  });
  return sections;
};
