import { createOpenAI } from '@ai-sdk/openai';
import { contextMemoryMiddleware, memoryTools } from '@ctxmem/ai-sdk';
import {
  type CtxmemEvent,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  SUMMARY_SYSTEM_PROMPT,
} from '@ctxmem/core';
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  type Tool,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

export const INSTRUCTIONS =
  'You are a concise assistant for a developer team. Use search_docs for questions about the ' +
  'project, and search_memory or recall_conversation when earlier details are needed.';

const TOPICS = [
  'deployments',
  'the build cache',
  'flaky tests',
  'database migrations',
  'feature flags',
  'API limits',
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

type PromptMessage = { role: string; content: unknown };

function promptText(message: PromptMessage | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join(' ');
}

/**
 * A scripted stand-in for a model, so the example runs offline: it looks documentation up once per
 * question, answers from it, and writes summaries when ctxmem asks for one.
 */
function scriptedModel(): MockLanguageModelV4 {
  let calls = 0;
  const usage = {
    inputTokens: {
      total: undefined,
      noCache: undefined,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
  const text = (value: string) => ({
    content: [{ type: 'text' as const, text: value }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage,
    warnings: [],
  });
  return new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-chat',
    doGenerate: async ({ prompt }) => {
      calls++;
      const messages = prompt as PromptMessage[];
      if (promptText(messages[0]).startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 60))) {
        const asked = messages.flatMap(
          (message) => promptText(message).match(/How do I handle [^?]+\?/g) ?? [],
        );
        return text(
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
      }
      const last = messages.at(-1);
      if (last?.role === 'user') {
        return {
          content: [
            {
              type: 'tool-call' as const,
              toolCallId: `call_${calls}`,
              toolName: 'search_docs',
              input: JSON.stringify({ query: promptText(last) }),
            },
          ],
          finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      }
      const question = promptText(
        [...messages].reverse().find((message) => message.role === 'user'),
      );
      return text(
        `From the runbook: ${question.replace(/\?$/, '')} takes the 40 documented steps; start with step 1.`,
      );
    },
  });
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
        `(budget ${report.budgetTokens}, trigger: ${report.trigger}) with ${applied.join(', ') || 'nothing'}; ` +
        `${report.summarizerCalls} summarizer call(s), ${Math.round(report.durationMs)} ms`
      );
    }
    case 'memory-injection':
      return event.cards > 0
        ? `  + ctxmem injected ${event.cards} memories (${event.tokens} tokens)`
        : undefined;
    case 'summarizer-fallback':
      return `  ! ctxmem summarizer fell back (${event.from}): ${event.reason}`;
    default:
      return undefined;
  }
}

/**
 * The model the example talks to: an OpenAI-compatible one when `OPENAI_API_KEY` or
 * `OPENAI_BASE_URL` is set, else the scripted one, with the context window to use.
 */
export function chatModel(env: Record<string, string | undefined>) {
  const real = Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
  const base = real
    ? createOpenAI({
        apiKey: env.OPENAI_API_KEY ?? 'not-needed',
        ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
      }).chat(env.OPENAI_MODEL ?? 'gpt-4o-mini')
    : scriptedModel();
  // Offline, a small window shows compactions after a few questions.
  const contextWindow = env.CTXMEM_CONTEXT_WINDOW
    ? Number(env.CTXMEM_CONTEXT_WINDOW)
    : real
      ? undefined
      : 6_000;
  return { real, base, contextWindow };
}

/** The example's own tool: documentation lookups, whose long pages fill a window. */
export const searchDocs: Tool<{ query: string }, string> = tool({
  description: 'Search the project documentation and runbooks.',
  inputSchema: jsonSchema<{ query: string }>({
    type: 'object',
    properties: { query: { type: 'string', description: 'What to look for.' } },
    required: ['query'],
  }),
  execute: async ({ query }) => documentation(query),
});

/** A chat session whose prompts ctxmem keeps inside the model's window. */
export function createChat({ print = console.log, env = process.env }: ChatOptions = {}) {
  const { real, base, contextWindow } = chatModel(env);
  const scope = { userId: 'demo-user', sessionId: 'demo-session' };
  const middleware = contextMemoryMiddleware({
    ...(contextWindow === undefined ? {} : { contextWindow }),
    memory: { store: createInMemoryMemoryStore() },
    historyStore: createInMemoryHistoryStore(),
    onEvent: (event) => {
      const line = describe(event);
      if (line) print(line);
    },
  });
  const model = wrapLanguageModel({ model: base, middleware });
  const tools = { search_docs: searchDocs, ...memoryTools(middleware, { scope }) };
  const messages: ModelMessage[] = [];

  return {
    /** Whether a real OpenAI-compatible model answers. */
    real,
    middleware,
    async send(text: string): Promise<string> {
      messages.push({ role: 'user', content: text });
      const result = await generateText({
        model,
        instructions: INSTRUCTIONS,
        messages,
        tools,
        stopWhen: stepCountIs(6),
        providerOptions: { ctxmem: scope },
      });
      messages.push(...result.responseMessages);
      return result.text;
    },
    /** Waits for background summaries (call before exiting). */
    idle: () => middleware.idle(),
  };
}

/** The questions of the offline demo. */
export function demoQuestions(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `How do I handle ${TOPICS[index % TOPICS.length]} (case ${index + 1})?`,
  );
}
