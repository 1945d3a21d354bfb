import {
  type CtxmemEvent,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  SUMMARY_SYSTEM_PROMPT,
} from '@ctxmem/core';
import { memoryTools } from '@ctxmem/langchain';
import { contextMemoryMiddleware } from '@ctxmem/langchain/agent';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { z } from 'zod';

const SYSTEM_PROMPT =
  'You are a concise assistant for a developer team. Use search_docs for questions about the ' +
  'project, and search_memory or recall_conversation when earlier details are needed.';

const TOPICS = [
  'deployments',
  'the build cache',
  'flaky tests',
  'database migrations',
  'feature flags',
];

/** Documentation pages are long: exactly what fills a context window in a tool loop. */
function documentation(query: string): string {
  const topic =
    TOPICS.find((name) => query.toLowerCase().includes(name.split(' ').at(-1)!)) ?? TOPICS[0]!;
  const lines = Array.from(
    { length: 40 },
    (_, index) =>
      `${index + 1}. For ${topic}, step ${index + 1} checks the configuration, records the result in the run log and retries once on a timeout.`,
  );
  return `# Runbook: ${topic}\n${lines.join('\n')}`;
}

/**
 * A scripted stand-in for a chat model, so the example runs offline: it looks documentation up
 * once per question, answers from it, and writes summaries when ctxmem asks for one.
 */
class ScriptedAgentModel extends BaseChatModel {
  #calls = 0;
  /** The messages of the last agent call (not a summary request): what the model saw. */
  lastPrompt: BaseMessage[] = [];

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.#calls++;
    const first = messages[0];
    let message: AIMessage;
    const summaryRequest =
      first?.type === 'system' && first.text.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 60));
    if (!summaryRequest) this.lastPrompt = messages;
    if (summaryRequest) {
      const asked =
        messages
          .map((item) => item.text)
          .join('\n')
          .match(/How do I handle [^?]+\?/g) ?? [];
      message = new AIMessage(
        JSON.stringify({
          summary: {
            goal: ['Help the team run the project.'],
            background: [`Discussed ${asked.length} questions so far.`],
            keyFacts: asked.slice(-3),
            constraints: [],
            decisions: [],
            todos: [],
            snippets: [],
          },
          memories: [],
        }),
      );
    } else if (messages.at(-1)?.type === 'human') {
      message = new AIMessage({
        content: '',
        tool_calls: [
          {
            id: `call_${this.#calls}`,
            name: 'search_docs',
            args: { query: messages.at(-1)!.text },
            type: 'tool_call',
          },
        ],
      });
    } else {
      const question = [...messages].reverse().find((item) => item.type === 'human')?.text ?? '';
      message = new AIMessage(
        `From the runbook: ${question.replace(/\?$/, '')} takes the 40 documented steps; start with step 1.`,
      );
    }
    return { generations: [{ text: message.text, message }] };
  }
}

export interface AgentOptions {
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
    case 'memory-injection':
      return event.cards > 0 ? `  + ctxmem injected ${event.cards} memories` : undefined;
    case 'summarizer-fallback':
      return `  ! ctxmem summarizer fell back (${event.from}): ${event.reason}`;
    default:
      return undefined;
  }
}

/** An agent whose conversation the ctxmem middleware keeps inside the model's window. */
export function createAgentSession({ print = console.log, env = process.env }: AgentOptions = {}) {
  const real = Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
  const model = real
    ? new ChatOpenAI({
        model: env.OPENAI_MODEL ?? 'gpt-4o-mini',
        apiKey: env.OPENAI_API_KEY ?? 'not-needed',
        ...(env.OPENAI_BASE_URL ? { configuration: { baseURL: env.OPENAI_BASE_URL } } : {}),
      })
    : new ScriptedAgentModel({});
  // Offline, a small window shows compactions after a few questions.
  const contextWindow = env.CTXMEM_CONTEXT_WINDOW
    ? Number(env.CTXMEM_CONTEXT_WINDOW)
    : real
      ? undefined
      : 6_000;
  const memory = contextMemoryMiddleware({
    // A chat model gives the window and tokenizer, and writes the summaries.
    model,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    memory: { store: createInMemoryMemoryStore() },
    historyStore: createInMemoryHistoryStore(),
    scope: { userId: 'demo-user', sessionId: 'demo-session' },
    onEvent: (event) => {
      const line = describe(event);
      if (line) print(line);
    },
  });
  const searchDocs = tool(async ({ query }: { query: string }) => documentation(query), {
    name: 'search_docs',
    description: 'Search the project documentation and runbooks.',
    schema: z.object({ query: z.string().describe('What to look for.') }),
  });
  const agent = createAgent({
    model,
    tools: [searchDocs, ...memoryTools(memory)],
    systemPrompt: SYSTEM_PROMPT,
    middleware: [memory],
  });
  // The agent state: the whole conversation. The middleware compacts what the model receives.
  let messages: BaseMessage[] = [];

  return {
    /** Whether a real OpenAI-compatible model answers. */
    real,
    memory,
    /** The agent's current messages: the conversation as it happened. */
    get messages() {
      return messages;
    },
    /** What the scripted model received in its last call (empty with a real model). */
    get lastPrompt(): BaseMessage[] {
      return model instanceof ScriptedAgentModel ? model.lastPrompt : [];
    },
    async send(text: string): Promise<string> {
      const state = await agent.invoke({ messages: [...messages, new HumanMessage(text)] });
      messages = state.messages;
      return messages.at(-1)?.text ?? '';
    },
    /** Waits for background work (call before exiting). */
    idle: () => memory.idle(),
  };
}

/** The questions of the offline demo. */
export function demoQuestions(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `How do I handle ${TOPICS[index % TOPICS.length]} (case ${index + 1})?`,
  );
}
