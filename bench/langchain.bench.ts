/**
 * `pnpm bench langchain`: ctxmem's `createAgent` middleware against LangChain's own answers to a
 * full context — `summarizationMiddleware` and `trimMessages` — on the same conversations and the
 * same budget, through a real `createAgent` loop with a scripted model (no LLM, no network).
 *
 * 1. A long tool-using conversation: tokens sent per model call, summarizer calls, prompts a
 *    provider would reject (a tool call without its result or the reverse, or more tokens than
 *    the window) and prompts that lost the user's question.
 * 2. LoCoMo (read at run time from ../shared/data/locomo or CTXMEM_LOCOMO, never copied): each
 *    conversation played turn by turn with a budget of 30% of its tokens; how many answers
 *    (categories 1–4) are still in the prompt of the last call.
 *
 * The strategies and what is measured of their prompts are in `langchain-strategies.ts`.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { messageText, SUMMARY_SYSTEM_PROMPT } from '../packages/core/src/index.js';
import { fillerText } from '../packages/core/src/test/filler-text.js';
// The root has no LangChain dependency: use the versions the adapter is developed against.
import { BaseChatModel } from '../packages/langchain/node_modules/@langchain/core/dist/language_models/chat_models.js';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
} from '../packages/langchain/node_modules/@langchain/core/dist/messages/index.js';
import type { ChatResult } from '../packages/langchain/node_modules/@langchain/core/dist/outputs.js';
import { tool } from '../packages/langchain/node_modules/@langchain/core/dist/tools/index.js';
import { createAgent } from '../packages/langchain/node_modules/langchain/dist/index.js';
import { fromLangChainMessages } from '../packages/langchain/src/convert/index.js';
import { answerSurvives, locomoMessages, locomoPath } from './compression-locomo.bench.js';
import {
  type Budget,
  counter,
  type Measured,
  measure,
  middlewareFor,
  STRATEGIES,
  type Strategy,
  tokensOf,
} from './langchain-strategies.js';
import type { BenchRun, BenchSection } from './types.js';

const SYSTEM_PROMPT = 'You are a research agent. Look things up with the lookup tool, then answer.';
const LANGCHAIN_SUMMARY_MARKER = 'Context Extraction Assistant';

// The tests' deterministic filler text.
const text = fillerText;

/** The newest `maxTokens` tokens of `value` (by words), as an extractive stand-in writes them. */
function tail(value: string, maxTokens: number): string {
  const words = value.split(/\s+/);
  let kept = words.length;
  while (kept > 0 && counter.countText(words.slice(words.length - kept).join(' ')) > maxTokens) {
    kept = Math.floor(kept * 0.8);
  }
  return words.slice(words.length - kept).join(' ');
}

type Reply = (messages: BaseMessage[]) => AIMessage;

/**
 * A scripted chat model: `reply` plays the agent; summary requests (ctxmem's or LangChain's) get a
 * summary. Every prompt it receives is recorded with whether it was a summary request.
 */
class ScriptedModel extends BaseChatModel {
  readonly prompts: BaseMessage[][] = [];
  summaryCalls = 0;

  constructor(
    private readonly reply: Reply,
    private readonly langChainSummaryTokens: number,
  ) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const first = messages[0]!;
    let message: AIMessage;
    if (first.type === 'system' && first.text.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 60))) {
      this.summaryCalls++;
      message = new AIMessage(
        JSON.stringify({
          summary: {
            goal: ['Research the user requests.'],
            background: [],
            keyFacts: [],
            constraints: [],
            decisions: [],
            todos: [],
            snippets: [],
          },
          memories: [],
        }),
      );
    } else if (first.text.includes(LANGCHAIN_SUMMARY_MARKER)) {
      this.summaryCalls++;
      // LangChain's prompt ends with the messages to summarize: keep their newest part.
      const body = first.text.split('Messages to summarize:')[1] ?? '';
      message = new AIMessage(tail(body.replace('</messages>', ''), this.langChainSummaryTokens));
    } else {
      this.prompts.push(messages);
      message = this.reply(messages);
    }
    return { generations: [{ text: message.text, message }] };
  }
}

/** Part 1: a research agent, each turn a few lookups with results of very different sizes. */
async function toolConversation(strategy: Strategy, turns: number): Promise<Measured> {
  const budget: Budget = {
    window: 8_000,
    budget: 6_000,
    trigger: 4_800,
    target: 3_600,
    summaryTokens: 600,
  };
  const sizes = [120, 600, 250, 1_800, 90, 400, 1_100];
  let callNumber = 0;
  let currentQuestion: string | undefined;
  let step = 0;
  const questions: Array<string | undefined> = [];
  const call = () => {
    callNumber++;
    return {
      id: `call_${callNumber}`,
      name: 'lookup',
      args: { query: `q${callNumber}` },
      type: 'tool_call' as const,
    };
  };
  // The same script for every strategy, whatever the prompt holds: a few parallel lookups, one
  // more lookup, then the answer.
  const model = new ScriptedModel(() => {
    questions.push(currentQuestion);
    const turn = Number(/Task (\d+)/.exec(currentQuestion ?? '')?.[1] ?? 0);
    step++;
    if (step === 1) {
      const parallel = Array.from({ length: 1 + (turn % 3) }, call);
      return new AIMessage({ content: '', tool_calls: parallel });
    }
    if (step === 2) return new AIMessage({ content: '', tool_calls: [call()] });
    return new AIMessage(`Done with task ${turn}: ${text(turn, 40)}`);
  }, budget.summaryTokens);
  const lookup = tool(
    async ({ query }: { query: string }) => {
      const number = Number(query.slice(1));
      return text(number, sizes[number % sizes.length]!);
    },
    {
      name: 'lookup',
      description: 'Looks a query up.',
      schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  );
  let compactions = 0;
  const agent = createAgent({
    model,
    tools: [lookup],
    systemPrompt: SYSTEM_PROMPT,
    middleware: middlewareFor(strategy, model, budget, { onCompaction: () => compactions++ }),
  });
  let messages: BaseMessage[] = [];
  const started = performance.now();
  for (let turn = 0; turn < turns; turn++) {
    currentQuestion = `Task ${turn}: research ${text(turn + 7, 30)}`;
    step = 0;
    const state = await agent.invoke({
      messages: [...messages, new HumanMessage(currentQuestion)],
    });
    messages = state.messages;
  }
  const milliseconds = performance.now() - started;
  return {
    ...measure(model.prompts, questions, budget.window),
    compactions: strategy === 'ctxmem' ? compactions : model.summaryCalls,
    summaryCalls: model.summaryCalls,
    milliseconds,
  };
}

interface LocomoSample {
  qa: Array<{ answer?: string | number; category: number }>;
  conversation: Record<string, unknown>;
}

const normalize = (value: string) =>
  value
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * Part 2: one LoCoMo conversation played turn by turn (speaker A's turns are the user's, speaker
 * B's the scripted model's answers) with a budget of 30% of its tokens; the answers still in the
 * prompt of the last call, the closing question.
 */
async function locomoConversation(strategy: Strategy, sample: LocomoSample) {
  const core = locomoMessages(sample as never);
  const tokens = counter.countMessages(core);
  const window = Math.floor(tokens * 0.3);
  const budget: Budget = {
    window,
    budget: window,
    trigger: Math.floor(window * 0.8),
    target: Math.floor(window * 0.6),
    summaryTokens: Math.floor(window * 0.3),
  };
  const system = String(core[0]!.content);
  const turns = core.slice(1);
  let next = 0;
  const model = new ScriptedModel(() => {
    const answer = turns[next];
    return new AIMessage(answer?.role === 'assistant' ? String(answer.content) : 'I see.');
  }, budget.summaryTokens);
  let compactions = 0;
  const agent = createAgent({
    model,
    tools: [],
    systemPrompt: system,
    middleware: middlewareFor(strategy, model, budget, {
      extractive: true,
      onCompaction: () => compactions++,
    }),
  });
  let messages: BaseMessage[] = [];
  const started = performance.now();
  while (next < turns.length) {
    const pending: BaseMessage[] = [];
    while (next < turns.length && turns[next]!.role === 'user') {
      pending.push(
        new HumanMessage({ content: String(turns[next]!.content), id: turns[next]!.id }),
      );
      next++;
    }
    const state = await agent.invoke({ messages: [...messages, ...pending] });
    messages = state.messages;
    // The model's reply was the assistant turn at `next`.
    if (next < turns.length && turns[next]!.role === 'assistant') next++;
  }
  const milliseconds = performance.now() - started;
  const last = model.prompts.at(-1) ?? [];
  const sent = ` ${normalize(fromLangChainMessages(last).map(messageText).join('\n'))} `;
  const questions = sample.qa.filter(
    (qa) => qa.category >= 1 && qa.category <= 4 && qa.answer !== undefined,
  );
  const kept = questions.filter((qa) => answerSurvives(String(qa.answer), sent)).length;
  return {
    kept,
    questions: questions.length,
    tokens,
    window,
    lastTokens: tokensOf(last),
    ...measure(model.prompts, [], window),
    compactions: strategy === 'ctxmem' ? compactions : model.summaryCalls,
    summaryCalls: model.summaryCalls,
    milliseconds,
  };
}

export const run: BenchRun = async ({ quick }) => {
  const sections: BenchSection[] = [];
  const turns = quick ? 20 : 40;
  const rows: Array<Record<string, string | number>> = [];
  for (const strategy of STRATEGIES) {
    const result = await toolConversation(strategy, turns);
    rows.push({
      strategy,
      'model calls': result.calls,
      'tokens per call (mean)': result.meanTokens,
      'tokens per call (max)': result.maxTokens,
      'over the window': result.overWindow,
      'broken tool pairs': result.pairing,
      'question lost': result.lostQuestion,
      compactions: result.compactions,
      'summarizer calls': result.summaryCalls,
      'ms per call': (result.milliseconds / Math.max(1, result.calls)).toFixed(2),
    });
  }
  sections.push({
    title: `LangChain createAgent: ${turns} research turns, each with parallel then sequential lookups of 90–1,800 tokens (window 8,000, budget 6,000)`,
    rows,
    notes: [
      'Every strategy gets the same budget: ctxmem compacts at 4,800 tokens to 3,600; summarizationMiddleware triggers at 4,800 tokens and keeps 3,000 (both with the same token counter); trimMessages trims each call to the 6,000-token budget.',
      'A provider rejects a prompt with a tool call whose result is missing (or a result without its call), or with more tokens than the window. "Question lost": the prompt no longer holds the user message of the turn.',
      'Tokens are counted with o200k_base over the whole prompt the model received (system prompt and summary included). ms per call includes the scripted model and the tool.',
    ],
  });

  const path = locomoPath();
  if (!path) {
    sections.push({
      title: 'LangChain createAgent on LoCoMo',
      rows: [],
      notes: ['Skipped: LoCoMo data not found (set CTXMEM_LOCOMO).'],
    });
    return sections;
  }
  const samples = (JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[]).slice(
    0,
    quick ? 1 : undefined,
  );
  const locomoRows: Array<Record<string, string | number>> = [];
  const totals = new Map<Strategy, { kept: number; questions: number }>();
  for (const strategy of STRATEGIES.slice(1, 4)) {
    for (const [index, sample] of samples.entries()) {
      const result = await locomoConversation(strategy, sample);
      const total = totals.get(strategy) ?? { kept: 0, questions: 0 };
      total.kept += result.kept;
      total.questions += result.questions;
      totals.set(strategy, total);
      locomoRows.push({
        strategy,
        conversation: index + 1,
        'budget (30%)': result.window,
        'last prompt tokens': result.lastTokens,
        'answers kept': result.kept,
        questions: result.questions,
        'over the window': result.overWindow,
        compactions: result.compactions,
        'summarizer calls': result.summaryCalls,
        'ms per call': (result.milliseconds / Math.max(1, result.calls)).toFixed(2),
      });
    }
  }
  sections.push({
    title: `LangChain createAgent on LoCoMo: answers still in the last prompt (budget 30% of each conversation)`,
    rows: locomoRows,
    notes: [
      `Totals: ${[...totals].map(([strategy, total]) => `${strategy} ${total.kept}/${total.questions}`).join(', ')}.`,
      'Same budget for all: ctxmem compacts at 80% of the budget down to 60%, with a summary of at most 30%; summarizationMiddleware triggers at 80% and keeps 30% besides its summary; trimMessages keeps the newest messages that fit the budget.',
      'No LLM: ctxmem summarizes with its extractive summarizer (its fallback when a model fails); summarizationMiddleware gets a stand-in model that returns the newest text it was asked to summarize, up to the same summary size (30% of the budget).',
      'An answer is kept when its normalised text appears in the prompt of the last call (summary included). Data read at run time, never copied.',
    ],
  });
  return sections;
};
