import { describe, expect, it } from 'vitest';
import type { Message, SummarizeRequest, Summarizer } from '../contracts/index.js';
import { InvalidArgumentError, InvalidMessageError } from '../errors/index.js';
import { createInMemoryHistoryStore } from '../history/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { checkToolPairing, lastUserMessage, messageText } from '../messages/index.js';
import { createMemorySearch } from '../retrieval/index.js';
import { createExtractiveSummarizer } from '../summarize/index.js';
import { brokenHistories } from '../test/broken-histories.js';
import { createScriptedComplete } from '../test/summarizers.js';
import { createTokenCounter } from '../tokens/index.js';
import { createMemoryTools } from '../tools/index.js';
import { createContextManager, defaultMemoryScope } from './index.js';

const counter = createTokenCounter();

/** Wraps the extractive summarizer to count calls. */
function countingSummarizer() {
  const inner = createExtractiveSummarizer({ counter });
  const calls: SummarizeRequest[] = [];
  const summarizer: Summarizer = {
    name: 'counting',
    summarize(request) {
      calls.push(request);
      return inner.summarize(request);
    },
  };
  return { summarizer, calls };
}

const topics = [
  'billing',
  'deployment',
  'testing',
  'logging',
  'caching',
  'search',
  'auth',
  'metrics',
];

/** One round of a tool-using conversation (user, assistant tool calls, results, answer). */
function round(turn: number): Message[] {
  const topic = topics[turn % topics.length]!;
  return [
    {
      role: 'user',
      content: `Turn ${turn}: please look into the ${topic} module and report what you find.`,
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Checking ${topic}.` },
        {
          type: 'tool-call',
          toolCallId: `call-${turn}-a`,
          toolName: 'read_file',
          input: { path: `src/${topic}.ts` },
        },
        {
          type: 'tool-call',
          toolCallId: `call-${turn}-b`,
          toolName: 'grep',
          input: { pattern: topic },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call-${turn}-a`,
          toolName: 'read_file',
          output: { type: 'text', value: `export function ${topic}() {}\n`.repeat(12) },
        },
        {
          type: 'tool-result',
          toolCallId: `call-${turn}-b`,
          toolName: 'grep',
          output: { type: 'json', value: { matches: turn % 7 } },
        },
      ],
    },
    { role: 'assistant', content: `The ${topic} module looks fine in turn ${turn}.` },
  ];
}

function checkPrompt(prompt: readonly Message[], history: readonly Message[], budget: number) {
  expect(counter.countMessages(prompt)).toBeLessThanOrEqual(budget);
  expect(prompt[0]).toEqual(history[0]);
  expect(checkToolPairing(prompt)).toEqual([]);
  expect(lastUserMessage(prompt)).toEqual(lastUserMessage(history));
}

describe('createContextManager', () => {
  it('needs a context window it can trust', () => {
    expect(() => createContextManager({ model: 'my-private-model' })).toThrow(InvalidArgumentError);
    expect(() => createContextManager({ contextWindow: -5 })).toThrow(InvalidArgumentError);
    expect(createContextManager({ model: 'gpt-4o' }).budget.contextWindow).toBe(128_000);
  });

  it('returns a history under the threshold unchanged', async () => {
    const { summarizer, calls } = countingSummarizer();
    const manager = createContextManager({ contextWindow: 100_000, summarizer });
    const history: Message[] = [{ role: 'system', content: 'You are terse.' }, ...round(1)];
    const prepared = await manager.prepare(history);
    expect(prepared.messages).toEqual(history);
    expect(prepared.compacted).toBe(false);
    expect(prepared.tokens).toBe(counter.countMessages(history));
    expect(calls).toHaveLength(0);
  });

  it('keeps a growing agent loop inside the budget, summarizing once per threshold crossing', async () => {
    const { summarizer, calls } = countingSummarizer();
    const manager = createContextManager({ contextWindow: 6_000, summarizer, counter });
    const history: Message[] = [{ role: 'system', content: 'You are a careful coding agent.' }];
    let compactions = 0;
    let calls_ = 0;
    for (let turn = 1; turn <= 80; turn++) {
      const messages = round(turn);
      // The host resends the whole history at every step of the tool loop, as the AI SDK does.
      for (const step of [1, 3, 4]) {
        const prompt = await manager.prepare([...history, ...messages.slice(0, step)]);
        checkPrompt(
          prompt.messages,
          [...history, ...messages.slice(0, step)],
          manager.budget.budgetTokens,
        );
        calls_++;
        if (prompt.compacted) compactions++;
      }
      history.push(...messages);
    }
    expect(compactions).toBeGreaterThan(2);
    // Compacting to 60% of the window leaves room for many calls before the next compaction.
    expect(compactions).toBeLessThan(calls_ / 5);
    expect(calls.length).toBeLessThanOrEqual(compactions * 2);
    // Rolling summary: the previous summary is handed back, never stacked.
    expect(
      calls.at(-1)!.messages.filter((message) => message.ctxmem?.kind === 'summary').length,
    ).toBeLessThanOrEqual(1);
  });

  it('reuses the compaction of a prefix instead of summarizing again', async () => {
    const { summarizer, calls } = countingSummarizer();
    const manager = createContextManager({ contextWindow: 6_000, summarizer, counter });
    const history: Message[] = [{ role: 'system', content: 'sys' }];
    for (let turn = 1; turn <= 45; turn++) history.push(...round(turn));
    history.push({ role: 'user', content: 'And now?' });
    const first = await manager.prepare(history);
    expect(first.compacted).toBe(true);
    const summarizerCalls = calls.length;
    // The same history as new objects (a host re-converting its messages) plus one reply.
    const next = [
      ...structuredClone(history),
      { role: 'assistant', content: 'Done.' } as Message,
      { role: 'user', content: 'Thanks' } as Message,
    ];
    const second = await manager.prepare(next);
    expect(second.compacted).toBe(false);
    expect(calls.length).toBe(summarizerCalls);
    expect(second.messages.slice(0, first.messages.length)).toEqual(first.messages);
  });

  it('records the original history once, recallable after compaction', async () => {
    const historyStore = createInMemoryHistoryStore();
    const manager = createContextManager({ contextWindow: 6_000, counter, historyStore });
    const history: Message[] = [{ role: 'system', content: 'sys' }];
    for (let turn = 1; turn <= 30; turn++) {
      history.push(...round(turn));
      await manager.prepare(history);
    }
    const scope = {};
    expect(await historyStore.count(scope)).toBe(history.length);
    const tools = createMemoryTools({ history: historyStore, offload: manager.offloadStore });
    const recall = tools.recall_conversation!;
    const result = (await recall.execute(recall.parseInput({ turn_numbers: [1] }) as never, {
      scope,
    })) as {
      turns: Array<{ turn: number; messages: Array<{ text: string }> }>;
    };
    expect(result.turns[0]!.messages[0]!.text).toBe(messageText(history[1]!));
  });

  it('remembers a preference across compactions and injects it when asked', async () => {
    const memoryStore = createInMemoryMemoryStore();
    const search = createMemorySearch({ store: memoryStore });
    const manager = createContextManager({
      contextWindow: 6_000,
      // A window this small has the budget cap the default trigger: a prompt just under it would
      // leave no room to inject, whichever turn the question comes on. A lower trigger always does.
      threshold: 0.7,
      counter,
      memory: { store: memoryStore, search },
    });
    const scope = { userId: 'alice' };
    const history: Message[] = [
      { role: 'system', content: 'You are a helpful assistant.' },
      {
        role: 'user',
        content: 'Remember this preference: I prefer Python for scripting, not JavaScript.',
      },
      { role: 'assistant', content: 'Noted: you prefer Python for scripting.' },
    ];
    let compactions = 0;
    for (let turn = 1; turn <= 50; turn++) {
      history.push(...round(turn));
      const prepared = await manager.prepare(history, { scope });
      if (prepared.compacted) compactions++;
    }
    expect(compactions).toBeGreaterThanOrEqual(2);
    history.push({ role: 'user', content: 'Which language did I say I prefer for scripting?' });
    const prepared = await manager.prepare(history, { scope });
    const injection = prepared.messages.find(
      (message) => message.ctxmem?.kind === 'memory-injection',
    );
    expect(injection).toBeDefined();
    expect(messageText(injection!)).toMatch(/Python/);
    expect(prepared.messages.at(-2)).toBe(injection);
    expect(prepared.tokens).toBeLessThanOrEqual(manager.budget.budgetTokens);
    // Another user never sees Alice's memories.
    const bob = await manager.prepare(
      [{ role: 'user', content: 'Which language do I prefer for scripting?' }],
      {
        scope: { userId: 'bob' },
      },
    );
    expect(bob.messages.some((message) => message.ctxmem?.kind === 'memory-injection')).toBe(false);
  });

  it('lets a user’s memories follow them across chats, but keeps anonymous sessions apart', () => {
    expect(defaultMemoryScope({ userId: 'alice', sessionId: 'chat-1' })).toEqual({
      userId: 'alice',
    });
    expect(defaultMemoryScope({ userId: 'alice', agentId: 'a', sessionId: 's' })).toEqual({
      userId: 'alice',
      agentId: 'a',
    });
    expect(defaultMemoryScope({ sessionId: 'anonymous-1' })).toEqual({ sessionId: 'anonymous-1' });
  });

  it('repairs a history whose tool calls and results do not pair up, and keeps the original', async () => {
    const historyStore = createInMemoryHistoryStore();
    const events: string[] = [];
    const manager = createContextManager({
      contextWindow: 100_000,
      counter,
      historyStore,
      onEvent: (event) => events.push(event.type),
    });
    const broken: Message[] = [
      { role: 'user', content: 'Read the file.' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'lost', toolName: 'read_file', input: { path: 'a' } },
        ],
      },
      { role: 'user', content: 'Never mind, what is 2 + 2?' },
    ];
    const prepared = await manager.prepare(broken);
    expect(checkToolPairing(prepared.messages)).toEqual([]);
    expect(lastUserMessage(prepared.messages)).toEqual(broken[2]);
    expect(events).toContain('input-repaired');
    expect((await historyStore.read({})).map((stored) => stored.message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);

    const unrepaired = createContextManager({
      contextWindow: 100_000,
      counter,
      repairInput: false,
    });
    // Without repair the same input is rejected with the path of the problem, never sent.
    await expect(unrepaired.prepare(broken)).rejects.toSatisfy(
      (error: unknown) =>
        InvalidMessageError.isInstance(error) && error.path === 'messages[1].content[0]',
    );
  });

  it('moves a late tool result up to its call, on every call, with an event', async () => {
    const events: string[][] = [];
    const manager = createContextManager({
      contextWindow: 100_000,
      counter,
      onEvent: (event) => {
        if (event.type === 'input-repaired') events.push(event.repairs);
      },
    });
    const late: Message[] = [
      { role: 'user', content: 'Check the weather.' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: {} }],
      },
      { role: 'assistant', content: 'Still checking.' },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'w1',
            toolName: 'weather',
            output: { type: 'text', value: 'Sunny, 21 °C' },
          },
        ],
      },
      { role: 'user', content: 'So?' },
    ];
    const prepared = await manager.prepare(late);
    expect(checkToolPairing(prepared.messages)).toEqual([]);
    expect(prepared.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(messageText(prepared.messages[2]!)).toContain('Sunny, 21 °C');
    expect(events).toEqual([['late-tool-result']]);
  });

  it('rejects malformed messages with a typed error naming the path, and stores nothing', async () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const malformed: Array<[string, unknown, string]> = [
      ['unknown part type', { role: 'user', content: [{ type: 'wat' }] }, 'messages[1].content[0]'],
      [
        'NaN in tool input',
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'c', toolName: 't', input: { n: Number.NaN } },
          ],
        },
        'messages[1].content[0].input.n',
      ],
      [
        'circular tool input',
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: circular }],
        },
        'messages[1].content[0].input.self',
      ],
      [
        'unknown tool output type',
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'wat' } },
          ],
        },
        'messages[1].content[0].output.type',
      ],
      ['number as content', { role: 'user', content: 42 }, 'messages[1].content'],
    ];
    for (const [label, message, path] of malformed) {
      const historyStore = createInMemoryHistoryStore();
      const manager = createContextManager({ contextWindow: 100_000, counter, historyStore });
      const input = [{ role: 'user', content: 'hi' }, message, { role: 'user', content: 'ok' }];
      const error = await manager.prepare(input as Message[]).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(InvalidMessageError.isInstance(error), label).toBe(true);
      expect((error as InvalidMessageError).path, label).toBe(path);
      expect(await historyStore.count({}), label).toBe(0);
    }
  });

  // Protection: the shape check of every message not seen before, which reads the array by index
  // and checks fields ctxmem does not know. Without it a message that refers to itself is
  // accepted and the prompt fails later in JSON.stringify ("Converting circular structure").
  it.each(brokenHistories().map((broken) => [broken.name, broken] as const))(
    'rejects %s with InvalidMessageError naming the path, and stores nothing',
    async (_name, broken) => {
      const historyStore = createInMemoryHistoryStore();
      const manager = createContextManager({ contextWindow: 100_000, counter, historyStore });
      const error = await manager.prepare(broken.messages as Message[]).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(InvalidMessageError.isInstance(error)).toBe(true);
      expect((error as InvalidMessageError).path).toBe(broken.path);
      expect((error as InvalidMessageError).message).toContain(broken.problem);
      expect(await historyStore.count({})).toBe(0);
    },
  );

  // Protection: a message is recognised by its fingerprint and checked once per fingerprint.
  // The fingerprint marks functions and BigInts and the fields it leaves out are checked per
  // object; without both, a broken copy of a message seen before would pass unchecked.
  it('rejects a broken copy of a message it has already accepted', async () => {
    const manager = createContextManager({ contextWindow: 100_000, counter });
    const clean = (): Message[] => [
      { role: 'user', content: [{ type: 'text', text: 'Look it up.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'x' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'lookup',
            output: { type: 'text', value: 'found' },
          },
        ],
      },
      { role: 'user', content: 'And?' },
    ];
    const prepared = await manager.prepare(clean());
    expect(JSON.parse(JSON.stringify(prepared.messages))).toEqual(clean());
    const copies: Array<[string, (messages: Array<Record<string, unknown>>) => void, string]> = [
      [
        'refers to itself',
        (messages) => {
          messages[0]!.self = messages[0];
        },
        'messages[0].self: circular reference',
      ],
      [
        'has a function in a part',
        (messages) => {
          (messages[0]!.content as Array<Record<string, unknown>>)[0]!.render = () => 'x';
        },
        'messages[0].content[0].render: a function is not a JSON value',
      ],
      [
        'has a BigInt in a tool input',
        (messages) => {
          const part = (messages[1]!.content as Array<Record<string, unknown>>)[0]!;
          part.input = { q: 'x', n: BigInt(1) };
        },
        'messages[1].content[0].input.n: a bigint is not a JSON value',
      ],
      [
        'has a cycle in its ctxmem metadata',
        (messages) => {
          const ctxmem: Record<string, unknown> = { kind: 'bootstrap' };
          ctxmem.self = ctxmem;
          messages[3]!.ctxmem = ctxmem;
        },
        'messages[3].ctxmem.self: circular reference',
      ],
    ];
    for (const [label, corrupt, message] of copies) {
      const messages = clean() as unknown as Array<Record<string, unknown>>;
      corrupt(messages);
      const error = await manager.prepare(messages as unknown as Message[]).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(InvalidMessageError.isInstance(error), label).toBe(true);
      expect((error as InvalidMessageError).message, label).toBe(message);
    }
  });

  it('does not inject memories that do not match the question', async () => {
    const memoryStore = createInMemoryMemoryStore();
    await memoryStore.add({}, [
      { content: 'The deployment key rotates every month.', type: 'fact' },
    ]);
    const manager = createContextManager({
      contextWindow: 6_000,
      counter,
      memory: { store: memoryStore, search: createMemorySearch({ store: memoryStore }) },
    });
    const unrelated = await manager.prepare([
      { role: 'user', content: 'What is your favourite colour?' },
    ]);
    expect(unrelated.injected).toBe(0);
    const related = await manager.prepare([
      { role: 'user', content: 'How often does the deployment key rotate?' },
    ]);
    expect(related.injected).toBe(1);

    // Hosts that place memories themselves get the same block, searched the same way.
    const block = await manager.relevantMemories({}, 'How often does the deployment key rotate?');
    expect(block?.cards).toBe(1);
    expect(block?.text).toContain('The deployment key rotates every month.');
    expect(await manager.relevantMemories({}, 'What is your favourite colour?')).toBeUndefined();
  });

  it('budgets what the caller adds around the messages (reservedTokens)', async () => {
    const manager = createContextManager({
      contextWindow: 4_000,
      counter,
      reserve: { min: 1_000 },
    });
    const history: Message[] = [];
    for (let turn = 0; turn < 40; turn++) {
      history.push({ role: 'user', content: `Question ${turn}: ${'about the plan '.repeat(8)}` });
      history.push({ role: 'assistant', content: `Answer ${turn}: ${'it depends '.repeat(8)}` });
    }
    history.push({ role: 'user', content: 'And now?' });
    const prepared = await manager.prepare(history, { reservedTokens: 1_200 });
    expect(prepared.budget.budgetTokens).toBe(manager.budget.budgetTokens - 1_200);
    expect(prepared.tokens + 1_200).toBeLessThanOrEqual(manager.budget.budgetTokens);
    await expect(manager.prepare(history, { reservedTokens: -1 })).rejects.toSatisfy(
      (error: unknown) => InvalidArgumentError.isInstance(error),
    );
  });

  it('keeps the history when the summarizer fails and never stores its error text', async () => {
    const failing: Summarizer = {
      name: 'broken',
      summarize: async () => {
        throw new Error('rate limited: 429 Too Many Requests');
      },
    };
    const historyStore = createInMemoryHistoryStore();
    const manager = createContextManager({
      contextWindow: 6_000,
      counter,
      summarizer: failing,
      historyStore,
    });
    const history: Message[] = [{ role: 'system', content: 'sys' }];
    for (let turn = 1; turn <= 45; turn++) history.push(...round(turn));
    history.push({ role: 'user', content: 'Summarize please.' });
    const prepared = await manager.prepare(history);
    expect(prepared.compacted).toBe(true);
    checkPrompt(prepared.messages, history, manager.budget.budgetTokens);
    expect(JSON.stringify(prepared.messages)).not.toContain('429 Too Many Requests');
    // The extractive summarizer took over and said so.
    const fallback = prepared.report!.strategies.find((report) => report.fallback)?.fallback;
    expect(fallback?.from).toBe('broken');
    expect(prepared.messages.some((message) => message.ctxmem?.kind === 'summary')).toBe(true);
    expect(await historyStore.count({})).toBe(history.length);
  });

  it('runs the memory flush once per compaction cycle, silently', async () => {
    const complete = createScriptedComplete(
      ['{"long_term":[{"content":"User prefers tabs","type":"preference"}],"daily":[]}'],
      {
        repeatLast: true,
      },
    );
    const memoryStore = createInMemoryMemoryStore();
    const events: string[] = [];
    const manager = createContextManager({
      contextWindow: 6_000,
      counter,
      memory: { store: memoryStore },
      flush: { complete },
      onEvent: (event) => events.push(event.type),
    });
    const history: Message[] = [{ role: 'system', content: 'sys' }];
    for (let turn = 1; turn <= 60; turn++) {
      history.push(...round(turn));
      await manager.prepare(history);
    }
    await manager.idle();
    const flushes = events.filter((type) => type === 'memory-flush').length;
    const compactions = events.filter((type) => type === 'compaction').length;
    expect(flushes).toBeGreaterThanOrEqual(1);
    expect(flushes).toBeLessThanOrEqual(compactions + 1);
    expect(complete.requests.length).toBe(flushes);
    expect((await memoryStore.list({})).map((card) => card.content)).toContain('User prefers tabs');
  });

  it('prepares the next compaction in the background and adopts it at the threshold', async () => {
    const { summarizer, calls } = countingSummarizer();
    const manager = createContextManager({
      contextWindow: 6_000,
      counter,
      summarizer,
      backgroundCompaction: true,
      onEvent: (event) => {
        if (event.type === 'compaction') compactionsRun++;
      },
    });
    let compactionsRun = 0;
    const history: Message[] = [{ role: 'system', content: 'sys' }];
    let foregroundCalls = 0;
    let adopted = 0;

    for (let turn = 1; turn <= 60; turn++) {
      history.push(...round(turn));
      const before = calls.length;
      const prepared = await manager.prepare(history);
      foregroundCalls += calls.length - before;
      if (prepared.compacted) adopted++;
      await manager.idle();
      checkPrompt(prepared.messages, history, manager.budget.budgetTokens);
    }
    expect(adopted).toBeGreaterThan(1);
    // The user's turn never waited for the summarizer: every summary was ready in time…
    expect(foregroundCalls).toBe(0);
    // …and no background work was wasted: every compaction run was adopted (but the last one,
    // which may still wait for its threshold), so summaries are made once per crossing.
    expect(compactionsRun - adopted).toBeLessThanOrEqual(1);
    expect(adopted).toBeLessThan(60 / 3);
  });

  it('never lets two sessions see each other’s compaction', async () => {
    const manager = createContextManager({ contextWindow: 6_000, counter });
    const histories = ['a', 'b'].map((name) => {
      const history: Message[] = [{ role: 'system', content: `system of ${name}` }];
      for (let turn = 1; turn <= 25; turn++) history.push(...round(turn));
      history.push({ role: 'user', content: `question from ${name}` });
      return history;
    });
    const [a, b] = await Promise.all(
      histories.map((history, index) =>
        manager.prepare(history, { scope: { sessionId: `s${index}` } }),
      ),
    );
    expect(messageText(a!.messages[0]!)).toBe('system of a');
    expect(messageText(b!.messages[0]!)).toBe('system of b');
    expect(JSON.stringify(a!.messages)).not.toContain('question from b');
  });
});

describe('one summary per prefix', () => {
  function conversation(topic: string, turns: number): Message[] {
    return Array.from({ length: turns }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `${topic} turn ${index}: ${`details about ${topic} number ${index} `.repeat(8)}`,
    }));
  }

  function countingSummarizer() {
    const summarizer = {
      name: 'counting',
      calls: 0,
      async summarize(request: { messages: readonly Message[] }) {
        summarizer.calls++;
        return {
          summary: {
            sections: {
              goal: [],
              background: [],
              keyFacts: [`summary of ${request.messages.length} messages`],
              constraints: [],
              decisions: [],
              todos: [],
              snippets: [],
            },
          },
          cards: [],
          calls: 1,
        };
      },
    };
    return summarizer;
  }

  it('summarizes each of two conversations that share a scope once, however they alternate', async () => {
    const summarizer = countingSummarizer();
    const manager = createContextManager({ contextWindow: 2_000, summarizer });
    const first = conversation('billing', 40);
    const second = conversation('shipping', 40);
    for (let round = 0; round < 4; round++) {
      await manager.prepare(round % 2 === 0 ? first : second);
    }
    expect(summarizer.calls).toBe(2);
  });

  it('summarizes once when two calls with the same history arrive at the same time', async () => {
    const summarizer = countingSummarizer();
    const manager = createContextManager({ contextWindow: 2_000, summarizer });
    const history = conversation('billing', 40);
    const [one, two] = await Promise.all([
      manager.prepare(history, { scope: { sessionId: 's' } }),
      manager.prepare(history, { scope: { sessionId: 's' } }),
    ]);
    expect(summarizer.calls).toBe(1);
    expect(two.messages).toEqual(one.messages);
  });
});
