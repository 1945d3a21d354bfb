import {
  type CtxmemEvent,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createTokenCounter,
  InvalidArgumentError,
  InvalidMessageError,
} from '@ctxmem/core';
import { SUMMARY_HEADING } from '@ctxmem/core/adapter-kit';
import {
  BaseListChatMessageHistory,
  InMemoryChatMessageHistory,
} from '@langchain/core/chat_history';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import {
  RunnablePassthrough,
  RunnableSequence,
  RunnableWithMessageHistory,
} from '@langchain/core/runnables';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { fromLangChainMessages } from '../convert/index.js';
import {
  brokenLangChainHistories,
  isSummaryRequest,
  ScriptedChatModel,
  summaryAnswer,
  textOf,
  words,
} from '../langchain.test-support.js';
import { ContextChatMemory } from './index.js';

const counter = createTokenCounter();
const WINDOW = 3_000;
// reserve = min(max(10 % × 3000, 2000), 25 % × 3000) = 750 → budget 2250.
const BUDGET = 2_250;

function tokensOf(messages: readonly BaseMessage[]): number {
  return counter.countMessages(fromLangChainMessages(messages));
}

/** A summarizer model that answers summary requests and counts them. */
function summarizerModel(options: { fail?: boolean } = {}) {
  let calls = 0;
  const model = new ScriptedChatModel((messages) => {
    if (!isSummaryRequest(messages)) return 'not a summary request';
    calls++;
    if (options.fail) return new Error('summary model is down: 503');
    return summaryAnswer(String(calls), calls === 1 ? ['The user prefers short answers.'] : []);
  });
  return {
    model,
    get calls() {
      return calls;
    },
  };
}

/** A chat history that hands out its own frozen array: any mutation by a reader would throw. */
class FrozenArrayHistory extends BaseListChatMessageHistory {
  lc_namespace = ['test'];
  private messages: readonly BaseMessage[] = Object.freeze([]);
  async getMessages(): Promise<BaseMessage[]> {
    return this.messages as BaseMessage[];
  }
  async addMessage(message: BaseMessage): Promise<void> {
    this.messages = Object.freeze([...this.messages, message]);
  }
  override async clear(): Promise<void> {
    this.messages = Object.freeze([]);
  }
}

async function talk(memory: ContextChatMemory, turns: number, from = 0): Promise<void> {
  for (let turn = from; turn < from + turns; turn++) {
    await memory.saveContext(
      { input: `Question ${turn}: ${words(turn, 60)}` },
      { output: `Answer ${turn}: ${words(turn + 1_000, 60)}` },
    );
  }
}

describe('ContextChatMemory', () => {
  it('returns the compressed history within budget, with the summary, from any chat history', async () => {
    const summarizer = summarizerModel();
    const chatHistory = new FrozenArrayHistory();
    const memory = new ContextChatMemory({
      chatHistory,
      contextWindow: WINDOW,
      summarizerModel: summarizer.model,
      returnMessages: true,
    });
    await talk(memory, 30);
    const { history } = (await memory.loadMemoryVariables({ input: 'What next?' })) as {
      history: BaseMessage[];
    };
    // The full history stays in the chat history, untouched.
    expect(await chatHistory.getMessages()).toHaveLength(60);
    expect(history.length).toBeLessThan(60);
    // The history leaves room for the template (templateTokens, 1,000 by default) and the input.
    expect(tokensOf(history)).toBeLessThanOrEqual(BUDGET - 1_000);
    // A user message, so a chat prompt's own system message stays the only one.
    expect(history[0]).toBeInstanceOf(HumanMessage);
    expect(textOf(history[0]!)).toContain(SUMMARY_HEADING);
    expect(history[0]!.additional_kwargs.ctxmem).toEqual({ kind: 'summary' });
    // The newest turn is kept verbatim: the very objects of the chat history.
    const stored = await chatHistory.getMessages();
    expect(history.at(-1)).toBe(stored.at(-1));
    // One summary per threshold crossing (every third turn or so in 2,000 tokens), not one per turn.
    expect(summarizer.calls).toBeGreaterThan(0);
    expect(summarizer.calls).toBeLessThanOrEqual(12);
    const callsBefore = summarizer.calls;
    await memory.loadMemoryVariables({ input: 'again' });
    await memory.loadMemoryVariables({ input: 'and again' });
    expect(summarizer.calls).toBe(callsBefore);
  });

  it('returns a string buffer when returnMessages is false', async () => {
    const memory = new ContextChatMemory({
      contextWindow: WINDOW,
      humanPrefix: 'User',
      aiPrefix: 'Bot',
      memoryKey: 'chat_history',
    });
    await talk(memory, 30);
    const variables = await memory.loadMemoryVariables({});
    expect(memory.memoryKeys).toEqual(['chat_history']);
    const buffer = variables.chat_history as string;
    expect(typeof buffer).toBe('string');
    expect(buffer.startsWith(`System: ${SUMMARY_HEADING}`)).toBe(true);
    expect(buffer).toContain('User: Question 29');
    expect(buffer).toContain('Bot: Answer 29');
    // Old turns live on in the summary only, not verbatim.
    expect(buffer).not.toContain('User: Question 0:');
    expect(counter.countText(buffer)).toBeLessThanOrEqual(BUDGET);
  });

  it('saves whole messages (tool calls included) and keeps every call paired with its result', async () => {
    const memory = new ContextChatMemory({ contextWindow: WINDOW, returnMessages: true });
    for (let turn = 0; turn < 12; turn++) {
      await memory.saveContext(
        { input: new HumanMessage(`Look up ${turn}`) },
        {
          output: [
            new AIMessage({
              content: '',
              tool_calls: [{ id: `c${turn}`, name: 'lookup', args: { turn }, type: 'tool_call' }],
            }),
            // A large tool result, as agents produce.
            ...(await import('@langchain/core/messages').then(({ ToolMessage }) => [
              new ToolMessage({
                content: words(turn, 400),
                tool_call_id: `c${turn}`,
                name: 'lookup',
              }),
            ])),
            new AIMessage(`Found ${turn}.`),
          ],
        },
      );
    }
    const { history } = (await memory.loadMemoryVariables({})) as { history: BaseMessage[] };
    expect(tokensOf(history)).toBeLessThanOrEqual(BUDGET);
    const calls = new Set(
      history.flatMap((message) =>
        ((message as AIMessage).tool_calls ?? []).map((call) => call.id),
      ),
    );
    const results = new Set(
      history.flatMap((message) =>
        message.type === 'tool'
          ? [(message as unknown as { tool_call_id: string }).tool_call_id]
          : [],
      ),
    );
    expect([...results].sort()).toEqual([...calls].sort());
    expect(history.at(-1)!.content).toBe('Found 11.');
  });

  it('returns the relevant long-term memories under their own key', async () => {
    const store = createInMemoryMemoryStore();
    await store.add({ userId: 'u1' }, [
      { content: 'The user is allergic to peanuts.', type: 'fact' },
      { content: 'The user lives in Lisbon.', type: 'fact' },
    ]);
    const memory = new ContextChatMemory({
      contextWindow: WINDOW,
      memory: { store },
      scope: { userId: 'u1', sessionId: 'chat-1' },
    });
    expect(memory.memoryKeys).toEqual(['history', 'memories']);
    const found = await memory.loadMemoryVariables({ input: 'Can I eat peanuts?' });
    expect(found.memories).toContain('allergic to peanuts');
    expect(found.memories).not.toContain('Lisbon');
    const none = await memory.loadMemoryVariables({ input: 'Tell me a joke about cats' });
    expect(none.memories).toBe('');
    // Another user sees nothing of u1's memories.
    const other = memory.withScope({ userId: 'u2', sessionId: 'chat-9' });
    expect((await other.loadMemoryVariables({ input: 'peanuts' })).memories).toBe('');

    const asMessages = new ContextChatMemory({
      contextWindow: WINDOW,
      memory: { store },
      returnMessages: true,
      scope: { userId: 'u1' },
    });
    const { memories } = (await asMessages.loadMemoryVariables({ input: 'peanuts allergy?' })) as {
      memories: BaseMessage[];
    };
    expect(memories).toHaveLength(1);
    expect(memories[0]!.additional_kwargs.ctxmem).toEqual({ kind: 'memory-injection' });
  });

  it('fails closed: a failing summarizer model never puts its error in the summary', async () => {
    const summarizer = summarizerModel({ fail: true });
    const events: CtxmemEvent[] = [];
    const chatHistory = new InMemoryChatMessageHistory();
    const memory = new ContextChatMemory({
      chatHistory,
      contextWindow: WINDOW,
      summarizerModel: summarizer.model,
      returnMessages: true,
      onEvent: (event) => events.push(event),
    });
    await talk(memory, 30);
    const { history } = (await memory.loadMemoryVariables({})) as { history: BaseMessage[] };
    expect(summarizer.calls).toBeGreaterThan(0);
    expect(events.some((event) => event.type === 'summarizer-fallback')).toBe(true);
    const summary = textOf(history[0]!);
    expect(summary).toContain(SUMMARY_HEADING);
    expect(summary).not.toMatch(/503|down|error/i);
    // The extractive fallback summarizes the real conversation.
    expect(summary).toMatch(/Question \d+/);
    expect(await chatHistory.getMessages()).toHaveLength(60);
    expect(tokensOf(history)).toBeLessThanOrEqual(BUDGET);
  });

  it('keeps the working state in the history store, so a new process does not summarize again', async () => {
    const historyStore = createInMemoryHistoryStore();
    const chatHistory = new InMemoryChatMessageHistory();
    const scope = { sessionId: 'chat-7' };
    const first = summarizerModel();
    const memory = new ContextChatMemory({
      chatHistory,
      historyStore,
      scope,
      contextWindow: WINDOW,
      summarizerModel: first.model,
      returnMessages: true,
    });
    await talk(memory, 30);
    const before = (await memory.loadMemoryVariables({})).history as BaseMessage[];
    expect(first.calls).toBeGreaterThan(0);
    // The original history is recorded for recall_conversation.
    expect(await historyStore.count(scope)).toBe(60);

    const second = summarizerModel();
    const restarted = new ContextChatMemory({
      chatHistory,
      historyStore,
      scope,
      contextWindow: WINDOW,
      summarizerModel: second.model,
      returnMessages: true,
    });
    const after = (await restarted.loadMemoryVariables({})).history as BaseMessage[];
    expect(second.calls).toBe(0);
    expect(after.map(textOf)).toEqual(before.map(textOf));

    await restarted.clear();
    expect(await chatHistory.getMessages()).toHaveLength(0);
    expect(await historyStore.count(scope)).toBe(0);
    expect((await restarted.loadMemoryVariables({})).history).toEqual([]);
  });

  it("reserves the output the chain's model asks for: a ChatOpenAI's maxTokens, or maxOutputTokens", async () => {
    const summarizer = summarizerModel();
    // The chain's model: only its fields are read (no request is sent), and it never summarizes.
    const model = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test-key', maxTokens: 1_200 });
    const memory = new ContextChatMemory({
      model,
      contextWindow: WINDOW,
      summarizerModel: summarizer.model,
      returnMessages: true,
    });
    await talk(memory, 30);
    await memory.loadMemoryVariables({ input: 'What next?' });
    const { result } = await memory.prepare();
    // The model's 1,200 tokens replace the default reserve (750 in this window).
    expect(result.budget.reserveTokens).toBe(1_200);
    expect(result.budget.budgetTokens).toBeLessThanOrEqual(WINDOW - 1_200);
    expect(result.tokens).toBeLessThanOrEqual(result.budget.budgetTokens);
    expect(result.tokens).toBeLessThanOrEqual(WINDOW - 1_200 - 1_000);
    // A derived memory (another session) reserves the same.
    const other = memory.withScope({ sessionId: 'other' });
    await talk(other, 2);
    expect((await other.prepare()).result.budget.reserveTokens).toBe(1_200);

    // With a model id, the limit is given as an option; without one the manager's reserve applies.
    const byId = new ContextChatMemory({
      model: 'gpt-4o-mini',
      contextWindow: WINDOW,
      maxOutputTokens: 900,
    });
    expect((await byId.prepare()).result.budget.reserveTokens).toBe(900);
    const unlimited = new ContextChatMemory({
      model: new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test-key' }),
      contextWindow: WINDOW,
      summarizerModel: summarizer.model,
    });
    expect((await unlimited.prepare()).result.budget.reserveTokens).toBe(WINDOW - BUDGET);
    for (const maxOutputTokens of [0, -5, 1.5]) {
      expect(() => new ContextChatMemory({ contextWindow: WINDOW, maxOutputTokens })).toThrow(
        InvalidArgumentError,
      );
    }
  });

  it('rejects a bad scope and a bad saved value with typed errors', async () => {
    expect(() => new ContextChatMemory({ contextWindow: WINDOW, scope: { userId: '' } })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new ContextChatMemory({})).toThrow(/contextWindow/);
    const memory = new ContextChatMemory({ contextWindow: WINDOW });
    await expect(memory.saveContext({ input: 42 }, { output: 'ok' })).rejects.toSatisfy((error) =>
      InvalidArgumentError.isInstance(error),
    );
  });
});

describe('ContextChatMemory on a history that cannot be sent', () => {
  /** A chat history that hands out the very list it was given, holes included. */
  class ListHistory extends BaseListChatMessageHistory {
    lc_namespace = ['test'];
    constructor(private readonly list: unknown[]) {
      super();
    }
    async getMessages(): Promise<BaseMessage[]> {
      return this.list as BaseMessage[];
    }
    async addMessage(): Promise<void> {}
  }

  // Protection: the converter's checks of the fields it carries (and of holes) before anything
  // reaches the context manager or a store.
  it.each(brokenLangChainHistories().map((broken) => [broken.name, broken] as const))(
    'rejects %s with InvalidMessageError naming the path',
    async (_name, broken) => {
      const memory = new ContextChatMemory({
        chatHistory: new ListHistory(broken.messages),
        contextWindow: WINDOW,
        returnMessages: true,
      });
      const error = await memory.loadMemoryVariables({}).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(InvalidMessageError.isInstance(error)).toBe(true);
      expect((error as InvalidMessageError).path).toBe(broken.path);
      expect((error as InvalidMessageError).message).toContain(broken.problem);
    },
  );
});

describe('ContextChatMemory in LCEL', () => {
  it('feeds a ChatPromptTemplate with MessagesPlaceholder in a RunnableSequence', async () => {
    const summarizer = summarizerModel();
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'You are a helpful assistant.'],
      new MessagesPlaceholder('history'),
      ['human', '{input}'],
    ]);
    // Given the prompt, the memory counts the template's messages and the input exactly.
    const memory = new ContextChatMemory({
      contextWindow: WINDOW,
      summarizerModel: summarizer.model,
      returnMessages: true,
      prompt,
    });
    const answers = Array.from({ length: 25 }, (_, turn) => `Answer ${turn}: ${words(turn, 60)}`);
    const model = new FakeListChatModel({ responses: answers });
    const seen: BaseMessage[][] = [];
    const chain = RunnableSequence.from([
      RunnablePassthrough.assign({
        history: async (input: { input: string }) =>
          (await memory.loadMemoryVariables(input)).history,
      }),
      prompt,
      (value: { toChatMessages(): BaseMessage[] }) => {
        seen.push(value.toChatMessages());
        return value;
      },
      model,
    ]);
    for (let turn = 0; turn < 25; turn++) {
      const input = `Question ${turn}: ${words(turn + 500, 60)}`;
      const answer = await chain.invoke({ input });
      await memory.saveContext({ input }, { output: answer });
    }
    const last = seen.at(-1)!;
    expect(last[0]!.content).toBe('You are a helpful assistant.');
    // The summary comes as the first history message, never as a second system message.
    expect(last[1]!).toBeInstanceOf(HumanMessage);
    expect(textOf(last[1]!)).toContain(SUMMARY_HEADING);
    expect(textOf(last.at(-1)!)).toContain('Question 24');
    for (const messages of seen) {
      // The whole prompt fits: the template's system message and the input included.
      expect(tokensOf(messages)).toBeLessThanOrEqual(BUDGET);
      expect(messages.slice(1).some((message) => message.type === 'system')).toBe(false);
    }
    expect(summarizer.calls).toBeLessThanOrEqual(6);
  });

  it('works with RunnableWithMessageHistory, one compressed history per session', async () => {
    const summarizer = summarizerModel();
    const base = new ContextChatMemory({
      contextWindow: WINDOW,
      summarizerModel: summarizer.model,
    });
    const histories = new Map<string, InMemoryChatMessageHistory>();
    const getMessageHistory = (sessionId: string) => {
      if (!histories.has(sessionId)) histories.set(sessionId, new InMemoryChatMessageHistory());
      return base.withScope({ sessionId }, histories.get(sessionId)).asChatMessageHistory();
    };
    const seen: BaseMessage[][] = [];
    let turn = 0;
    const model = new ScriptedChatModel((messages) => {
      seen.push(messages);
      return `Answer ${turn}: ${words(turn, 60)}`;
    });
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'Be brief.'],
      new MessagesPlaceholder('history'),
      ['human', '{question}'],
    ]);
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(model),
      getMessageHistory,
      inputMessagesKey: 'question',
      historyMessagesKey: 'history',
    });
    for (turn = 0; turn < 40; turn++) {
      const sessionId = turn % 2 === 0 ? 'even' : 'odd';
      await chain.invoke(
        { question: `Question ${turn}: ${words(turn + 99, 60)}` },
        { configurable: { sessionId } },
      );
    }
    // The full histories stay in the underlying chat histories.
    expect(await histories.get('even')!.getMessages()).toHaveLength(40);
    expect(await histories.get('odd')!.getMessages()).toHaveLength(40);
    const last = seen.at(-1)!;
    expect(textOf(last[1]!)).toContain(SUMMARY_HEADING);
    expect(textOf(last.at(-1)!)).toContain('Question 39');
    // Sessions never see each other's turns.
    expect(last.some((message) => textOf(message).includes('Question 38'))).toBe(false);
    // Without the prompt, the memory reserves templateTokens (1,000 by default) for the template
    // and the input: the whole prompt fits, at the cost of a smaller history.
    for (const messages of seen) expect(tokensOf(messages)).toBeLessThanOrEqual(BUDGET);
    // One summary per threshold crossing (every third turn or so of a session), not per turn.
    expect(summarizer.calls).toBeLessThanOrEqual(16);
  });
});
