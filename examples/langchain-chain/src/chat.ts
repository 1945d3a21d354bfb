import {
  type CtxmemEvent,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  SUMMARY_SYSTEM_PROMPT,
} from '@ctxmem/core';
import { ContextChatMemory } from '@ctxmem/langchain/memory';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { StringOutputParser } from '@langchain/core/output_parsers';
import type { ChatResult } from '@langchain/core/outputs';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { ChatOpenAI } from '@langchain/openai';

const TOPICS = ['the deploy pipeline', 'the build cache', 'flaky tests', 'database migrations'];

/**
 * A scripted stand-in for a chat model, so the example runs offline: it answers every question at
 * length (long answers are what fill a window) and writes summaries when ctxmem asks for one.
 */
class ScriptedChatModel extends BaseChatModel {
  _llmType(): string {
    return 'scripted';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const first = messages[0];
    let text: string;
    if (first?.type === 'system' && first.text.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 60))) {
      const asked = messages.map((message) => message.text).join('\n');
      const questions = asked.match(/How do I fix [^?]+\?/g) ?? [];
      text = JSON.stringify({
        summary: {
          goal: ['Help the team keep the project healthy.'],
          background: [`Discussed ${questions.length} problems so far.`],
          keyFacts: questions.slice(-3),
          constraints: [],
          decisions: [],
          todos: [],
          snippets: [],
        },
        memories: [],
      });
    } else {
      const question = messages.at(-1)?.text ?? '';
      const steps = Array.from(
        { length: 12 },
        (_, index) =>
          `${index + 1}. Check the configuration of step ${index + 1}, record the result and retry once on a timeout.`,
      );
      text = `For "${question}":\n${steps.join('\n')}`;
    }
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}

export interface ChatOptions {
  /** Where the transcript and ctxmem's events go. @default console.log */
  print?: (line: string) => void;
  /** `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_MODEL`, `CTXMEM_CONTEXT_WINDOW`. @default process.env */
  env?: Record<string, string | undefined>;
}

function describe(event: CtxmemEvent): string | undefined {
  switch (event.type) {
    case 'compaction': {
      const { report } = event;
      const applied = report.strategies
        .filter((strategy) => strategy.applied)
        .map((strategy) => strategy.strategy);
      return (
        `  ⟳ ctxmem compacted ${report.tokensBefore} → ${report.tokensAfter} tokens ` +
        `(budget ${report.budgetTokens}) with ${applied.join(', ') || 'nothing'}; ` +
        `${report.summarizerCalls} summarizer call(s)`
      );
    }
    case 'summarizer-fallback':
      return `  ! ctxmem summarizer fell back (${event.from}): ${event.reason}`;
    default:
      return undefined;
  }
}

/** A chat chain whose history `ContextChatMemory` keeps inside the model's window. */
export function createChat({ print = console.log, env = process.env }: ChatOptions = {}) {
  const real = Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
  const model = real
    ? new ChatOpenAI({
        model: env.OPENAI_MODEL ?? 'gpt-4o-mini',
        apiKey: env.OPENAI_API_KEY ?? 'not-needed',
        ...(env.OPENAI_BASE_URL ? { configuration: { baseURL: env.OPENAI_BASE_URL } } : {}),
      })
    : new ScriptedChatModel({});
  // Offline, a small window shows compactions after a few questions.
  const contextWindow = env.CTXMEM_CONTEXT_WINDOW
    ? Number(env.CTXMEM_CONTEXT_WINDOW)
    : real
      ? undefined
      : 3_000;
  const memory = new ContextChatMemory({
    // A chat model gives the window and tokenizer, and writes the summaries.
    model,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    returnMessages: true,
    memory: { store: createInMemoryMemoryStore() },
    historyStore: createInMemoryHistoryStore(),
    scope: { userId: 'demo-user', sessionId: 'demo-session' },
    onEvent: (event) => {
      const line = describe(event);
      if (line) print(line);
    },
  });
  const prompt = ChatPromptTemplate.fromMessages([
    ['system', 'You are a concise assistant for a developer team.'],
    new MessagesPlaceholder('history'),
    new MessagesPlaceholder('memories'),
    ['human', '{input}'],
  ]);
  const chain = RunnableSequence.from([
    RunnablePassthrough.assign({
      // The compressed history (summary first) and the relevant long-term memories.
      loaded: (input: { input: string }) => memory.loadMemoryVariables(input),
    }),
    (input: { input: string; loaded: Record<string, BaseMessage[]> }) => ({
      input: input.input,
      history: input.loaded.history,
      memories: input.loaded.memories,
    }),
    prompt,
    model,
    new StringOutputParser(),
  ]);

  return {
    /** Whether a real OpenAI-compatible model answers. */
    real,
    memory,
    async send(input: string): Promise<string> {
      const answer = await chain.invoke({ input });
      await memory.saveContext({ input }, { output: answer });
      return answer;
    },
    /** Waits for background work (call before exiting). */
    idle: () => memory.idle(),
  };
}

/** The questions of the offline demo. */
export function demoQuestions(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `How do I fix ${TOPICS[index % TOPICS.length]} (case ${index + 1})?`,
  );
}
