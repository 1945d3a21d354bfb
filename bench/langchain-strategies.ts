/**
 * The contenders of `langchain.bench.ts` on one budget: no compaction, ctxmem's `createAgent`
 * middleware, LangChain's `summarizationMiddleware` and `trimMessages` (plain, and starting on a
 * human message); and what is measured of the prompts a model received: tokens, prompts a provider
 * would reject, and turns whose question was lost.
 */
import { checkToolPairing, createTokenCounter, type Message } from '../packages/core/src/index.js';
// The root has no LangChain dependency: use the versions the adapter is developed against.
import type { BaseChatModel } from '../packages/langchain/node_modules/@langchain/core/dist/language_models/chat_models.js';
import {
  type BaseMessage,
  trimMessages,
} from '../packages/langchain/node_modules/@langchain/core/dist/messages/index.js';
import {
  type AgentMiddleware,
  createMiddleware,
  summarizationMiddleware,
} from '../packages/langchain/node_modules/langchain/dist/index.js';
import { contextMemoryMiddleware } from '../packages/langchain/src/agent/index.js';
import {
  fromLangChainMessages,
  MessageConverter,
} from '../packages/langchain/src/convert/index.js';

/** The one counter of the LangChain bench: every strategy and every measure counts with it. */
export const counter = createTokenCounter();

export function tokensOf(messages: readonly BaseMessage[]): number {
  return counter.countMessages(fromLangChainMessages(messages));
}

export type Strategy =
  | 'none'
  | 'ctxmem'
  | 'summarizationMiddleware'
  | 'trimMessages'
  | 'trimMessages (startOn human)';
export const STRATEGIES: Strategy[] = [
  'none',
  'ctxmem',
  'summarizationMiddleware',
  'trimMessages',
  'trimMessages (startOn human)',
];

export interface Budget {
  window: number;
  budget: number;
  trigger: number;
  target: number;
  summaryTokens: number;
}

/** The middleware of a strategy, all on the same budget. */
export function middlewareFor(
  strategy: Strategy,
  model: BaseChatModel,
  { window, budget, trigger, target, summaryTokens }: Budget,
  {
    extractive = false,
    onCompaction = () => {},
  }: { extractive?: boolean; onCompaction?: () => void } = {},
): AgentMiddleware[] {
  // LangChain's strategies count with the same counter, with conversions cached as ctxmem's are.
  const converter = new MessageConverter();
  const countLangChain = async (messages: BaseMessage[]) =>
    counter.countMessages(converter.fromLangChain(messages));
  switch (strategy) {
    case 'none':
      return [];
    case 'ctxmem':
      return [
        contextMemoryMiddleware({
          contextWindow: window,
          reserve: { ratio: (window - budget) / window, min: 0 },
          threshold: trigger / window,
          retainedRatio: target / window,
          settings: { summaryMaxTokens: summaryTokens },
          // Without a model ctxmem summarizes extractively (its fallback when a model fails).
          ...(extractive ? {} : { summarizerModel: model }),
          onEvent: (event) => {
            if (event.type === 'compaction') onCompaction();
          },
        }),
      ];
    case 'summarizationMiddleware':
      return [
        summarizationMiddleware({
          model,
          trigger: { tokens: trigger },
          keep: { tokens: Math.max(1, target - summaryTokens) },
          tokenCounter: countLangChain,
        }),
      ];
    default: {
      const startOnHuman = strategy === 'trimMessages (startOn human)';
      return [
        createMiddleware({
          name: `Trim${startOnHuman ? 'StartOnHuman' : ''}`,
          wrapModelCall: async (request, handler) => {
            const system = request.systemMessage ? tokensOf([request.systemMessage]) : 0;
            const messages = await trimMessages(request.messages, {
              maxTokens: budget - system,
              strategy: 'last',
              tokenCounter: countLangChain,
              ...(startOnHuman
                ? { startOn: 'human' as const, endOn: ['human' as const, 'tool' as const] }
                : {}),
            });
            return handler({ ...request, messages });
          },
        }),
      ];
    }
  }
}

export interface Measured {
  compactions: number;
  calls: number;
  meanTokens: number;
  maxTokens: number;
  overWindow: number;
  pairing: number;
  lostQuestion: number;
  summaryCalls: number;
  milliseconds: number;
}

/** Tokens, rejections and lost questions of the prompts a model received. */
export function measure(
  prompts: readonly BaseMessage[][],
  questions: ReadonlyArray<string | undefined>,
  window: number,
): Omit<Measured, 'summaryCalls' | 'milliseconds' | 'compactions'> {
  let total = 0;
  let maxTokens = 0;
  let overWindow = 0;
  let pairing = 0;
  let lostQuestion = 0;
  prompts.forEach((prompt, index) => {
    const core: Message[] = fromLangChainMessages(prompt);
    const tokens = counter.countMessages(core);
    total += tokens;
    maxTokens = Math.max(maxTokens, tokens);
    if (tokens > window) overWindow++;
    if (checkToolPairing(core).length > 0) pairing++;
    const question = questions[index];
    if (
      question !== undefined &&
      !prompt.some((message) => message.type === 'human' && message.text === question)
    ) {
      lostQuestion++;
    }
  });
  return {
    calls: prompts.length,
    meanTokens: prompts.length === 0 ? 0 : Math.round(total / prompts.length),
    maxTokens,
    overWindow,
    pairing,
    lostQuestion,
  };
}
