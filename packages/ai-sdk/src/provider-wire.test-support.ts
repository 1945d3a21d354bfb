/**
 * Test support (not part of the package): the AI SDK middleware over the real provider packages
 * (`@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/openai` Responses) against the fake provider
 * servers, and a conversation driver that appends each call's response messages to the history
 * as the AI SDK docs show (`messages.push(...result.responseMessages)`).
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import {
  APICallError,
  generateText,
  jsonSchema,
  type LanguageModel,
  type ModelMessage,
  stepCountIs,
  streamText,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import {
  createScriptedAgent,
  type FakeProviderServer,
  type ScriptedAgent,
  type ScriptedAgentOptions,
  startAnthropicServer,
  startGeminiServer,
  startOpenAIResponsesServer,
} from '../../../test/providers/index.js';
import {
  type ContextMemoryMiddlewareOptions,
  contextMemoryMiddleware,
} from './middleware/index.js';
import { words } from './mock-agent.test-support.js';

export type ProviderName = 'anthropic' | 'gemini' | 'openai-responses';

export const PROVIDERS: readonly ProviderName[] = ['anthropic', 'gemini', 'openai-responses'];

export interface ProviderSetup {
  name: ProviderName;
  server: FakeProviderServer;
  agent: ScriptedAgent;
  /** The provider package's model, not wrapped. */
  model: LanguageModel;
  modelId: string;
  /** Thinking / reasoning on, as the provider package takes it. */
  providerOptions: Record<string, Record<string, unknown>>;
}

export interface StartProviderOptions {
  /** The model's window as the fake provider enforces it. */
  contextWindow: number;
  agent?: ScriptedAgentOptions;
}

/**
 * Starts the fake server of `name` with a scripted agent and the provider package's model on it,
 * thinking or reasoning turned on the way each package documents it.
 */
export async function startProvider(
  name: ProviderName,
  { contextWindow, agent: agentOptions = {} }: StartProviderOptions,
): Promise<ProviderSetup> {
  const agent = createScriptedAgent(agentOptions);
  switch (name) {
    case 'anthropic': {
      const server = await startAnthropicServer({ handler: agent.handler, contextWindow });
      const modelId = 'claude-sonnet-4-5';
      return {
        name,
        server,
        agent,
        modelId,
        model: createAnthropic({ baseURL: server.url, apiKey: 'test' })(modelId),
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      };
    }
    case 'gemini': {
      const server = await startGeminiServer({ handler: agent.handler, contextWindow });
      const modelId = 'gemini-3-pro-preview';
      return {
        name,
        server,
        agent,
        modelId,
        model: createGoogleGenerativeAI({ baseURL: server.url, apiKey: 'test' })(modelId),
        providerOptions: {
          google: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'low' } },
        },
      };
    }
    case 'openai-responses': {
      const server = await startOpenAIResponsesServer({ handler: agent.handler, contextWindow });
      const modelId = 'o4-mini';
      return {
        name,
        server,
        agent,
        modelId,
        model: createOpenAI({ baseURL: server.url, apiKey: 'test' }).responses(modelId),
        providerOptions: { openai: { reasoningEffort: 'low', reasoningSummary: 'auto' } },
      };
    }
  }
}

/** The agent's `lookup` tool: a long, JSON-heavy result, as tool-using agents get. */
export function lookupTool({ resultWords = 500 }: { resultWords?: number } = {}): ToolSet {
  return {
    lookup: tool({
      description: 'Looks a record up and returns it as JSON.',
      inputSchema: jsonSchema<{ query: string }>({
        type: 'object',
        properties: { query: { type: 'string' } },
        required: ['query'],
      }),
      execute: async ({ query }) => ({
        query,
        rows: words(query.length * 7919, resultWords)
          .split(' ')
          .reduce<string[][]>((rows, word, index) => {
            if (index % 10 === 0) rows.push([]);
            rows.at(-1)!.push(word);
            return rows;
          }, [])
          .map((row, index) => ({ id: index, text: row.join(' ') })),
      }),
    }),
  };
}

export interface TurnOutcome {
  turn: number;
  mode: 'generate' | 'stream';
  /** The error the call ended with, if it failed. */
  error?: unknown;
}

export interface ConversationOptions {
  setup: ProviderSetup;
  middleware: ReturnType<typeof contextMemoryMiddleware>;
  tools: ToolSet;
  turns: number;
  /** Which call each turn makes. @default alternating, generate first */
  mode?: (turn: number) => 'generate' | 'stream';
  /** The user's words of each turn (planted facts go here). */
  userText: (turn: number) => string;
  maxOutputTokens: number;
  system?: string;
  /** Steps of one call's agent loop. @default 6 */
  maxSteps?: number;
}

export interface ConversationResult {
  outcomes: TurnOutcome[];
  messages: ModelMessage[];
}

/**
 * Plays `turns` user turns through the wrapped model, each an agent loop of `maxSteps` steps, and
 * appends every call's response messages to the history, as the AI SDK docs show. A failed turn
 * is recorded and the conversation goes on without its answer.
 */
export async function playConversation({
  setup,
  middleware,
  tools,
  turns,
  mode = (turn) => (turn % 2 === 1 ? 'generate' : 'stream'),
  userText,
  maxOutputTokens,
  system = 'You are a research agent. Use the lookup tool, then answer briefly.',
  maxSteps = 6,
}: ConversationOptions): Promise<ConversationResult> {
  const model = wrapLanguageModel({ model: setup.model as never, middleware });
  const messages: ModelMessage[] = [];
  const outcomes: TurnOutcome[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: userText(turn) });
    const call = {
      model,
      system,
      messages,
      tools,
      maxOutputTokens,
      maxRetries: 0,
      stopWhen: stepCountIs(maxSteps),
      providerOptions: { ...setup.providerOptions, ctxmem: { sessionId: `${setup.name}-wire` } },
    } as const;
    const turnMode = mode(turn);
    try {
      if (turnMode === 'generate') {
        const result = await generateText(call as Parameters<typeof generateText>[0]);
        messages.push(...result.responseMessages);
      } else {
        let streamError: unknown;
        const result = streamText({
          ...(call as Parameters<typeof streamText>[0]),
          onError: ({ error }) => {
            streamError = error;
          },
        });
        const responseMessages = await result.responseMessages;
        if (streamError) throw streamError;
        messages.push(...responseMessages);
      }
      outcomes.push({ turn, mode: turnMode });
    } catch (error) {
      outcomes.push({ turn, mode: turnMode, error });
    }
  }
  return { outcomes, messages };
}

/** A short description of a failed turn's error, for assertion messages. */
export function describeError(error: unknown): string {
  if (APICallError.isInstance(error)) return `${error.statusCode}: ${error.responseBody}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export function createMiddleware(
  setup: ProviderSetup,
  options: ContextMemoryMiddlewareOptions,
): ReturnType<typeof contextMemoryMiddleware> {
  return contextMemoryMiddleware({ model: setup.modelId, ...options });
}
