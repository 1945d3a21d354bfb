/**
 * `pnpm bench summarizer-cost`: what compaction with a model summarizer costs.
 *
 * 1. Per compaction at 16k, 128k and 200k windows: the summary room, the output tokens ctxmem
 *    requests and the model writes, the calls, and the time, with a scripted model that writes
 *    everything it is allowed to (the worst case a bill can reach). Time is ctxmem's own CPU time
 *    plus the model's writing time at an assumed output speed (no network here).
 * 2. A 150-turn tool-using chat through the AI SDK middleware (16k window), and the same chat
 *    through LangChain's `createAgent` with `summarizationMiddleware` on the same trigger: summarizer
 *    calls, tokens billed by the summarizer (input and output) and by the chat, and how many of the
 *    50 facts the user stated are still in the last prompt. Both summarizer models are the same
 *    scripted model: it keeps every fact it is shown and fills the rest of its allowance with prose.
 */
import {
  contextMemoryMiddleware,
  fromV4Prompt,
  type V4Message,
} from '../packages/ai-sdk/src/index.js';
import {
  type CompleteRequest,
  countToolDefinitions,
  createContextManager,
  createTokenCounter,
  type Message,
  messageText,
  resolveBudget,
  SUMMARY_SYSTEM_PROMPT,
} from '../packages/core/src/index.js';
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
import {
  createAgent,
  summarizationMiddleware,
} from '../packages/langchain/node_modules/langchain/dist/index.js';
import {
  fromLangChainMessages,
  MessageConverter,
} from '../packages/langchain/src/convert/index.js';
import type { BenchRun, BenchSection } from './types.js';

const counter = createTokenCounter();
const text = fillerText;

/** The output every chat call asks for (`maxOutputTokens`): reserved in the window. */
const CHAT_OUTPUT_TOKENS = 4_096;

/** The agent's 25 tool definitions (about 5,700 tokens), sent with every chat call. */
const TOOL_DEFINITIONS = Array.from({ length: 25 }, (_, index) => ({
  type: 'function' as const,
  name: `tool_${index}`,
  description: `Tool ${index}: ${text(index + 100, 150)}`,
  inputSchema: { type: 'object', properties: { target: { type: 'string' } } },
}));

/** Output speed assumed for the model's writing time (tokens per second). */
const OUTPUT_TOKENS_PER_SECOND = 50;

const NAMES = ['Alvarez', 'Brook', 'Chen', 'Dubois', 'Eriksen', 'Farah', 'Gupta', 'Haddad'];
const MONTHS = ['January', 'March', 'May', 'July', 'September', 'November'];

/** The fact stated in turn `turn` (every third turn), with a reference the prompt is searched for. */
function fact(turn: number): string {
  return `account ref-${1000 + turn} belongs to ${NAMES[turn % NAMES.length]} and renews on ${1 + (turn % 28)} ${MONTHS[turn % MONTHS.length]}.`;
}
const FACT = /account ref-\d{4} belongs to [A-Z][a-z]+ and renews on \d{1,2} [A-Z][a-z]+\./g;

interface ChatTurn {
  user: string;
  /** Every other turn looks something up first. */
  lookup?: { query: string; result: string };
  answer: string;
  fact?: string;
}

function chatTurn(turn: number): ChatTurn {
  const stated = turn % 3 === 0 ? fact(turn) : undefined;
  return {
    user: stated
      ? `For the record: ${stated} Then: ${text(turn, 25)}?`
      : `Turn ${turn}: ${text(turn, 35)}?`,
    ...(turn % 2 === 1
      ? { lookup: { query: text(turn + 1, 6), result: text(turn + 2, 280) } }
      : {}),
    answer: text(turn + 3, 30),
    ...(stated ? { fact: stated } : {}),
  };
}

/**
 * A model that writes everything it is allowed to: every fact it was shown (newest kept when they
 * do not all fit), then prose until `allowedTokens`. `json` writes ctxmem's summary object.
 */
function writeWhatAllowed(prompt: string, allowedTokens: number, json: boolean): string {
  const facts = [...new Set(prompt.match(FACT) ?? [])];
  const render = (kept: string[], prose: string[]) =>
    json
      ? JSON.stringify({
          summary: {
            goal: ['Help the user with their accounts.'],
            background: prose,
            keyFacts: kept,
            constraints: [],
            decisions: [],
            todos: [],
            snippets: [],
          },
          memories: [],
        })
      : [...kept, ...prose].join('\n');
  let kept = facts;
  while (kept.length > 0 && counter.countText(render(kept, [])) > allowedTokens) {
    kept = kept.slice(1);
  }
  const prose: string[] = [];
  for (let line = 0; ; line++) {
    const next = [...prose, `${text(line + 500, 40)}.`];
    if (counter.countText(render(kept, next)) > allowedTokens) break;
    prose.push(next.at(-1)!);
  }
  return render(kept, prose);
}

interface Bill {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  requestedTokens: number;
}

const emptyBill = (): Bill => ({ calls: 0, inputTokens: 0, outputTokens: 0, requestedTokens: 0 });

/** ctxmem's model summarizer call, scripted: records what it was asked and what it wrote. */
function scriptedComplete(bill: Bill) {
  return async (request: CompleteRequest) => {
    const allowed = request.maxOutputTokens ?? 4_096;
    const answer = writeWhatAllowed(request.prompt, allowed, true);
    bill.calls++;
    bill.inputTokens += counter.countText(`${request.system ?? ''}\n${request.prompt}`);
    bill.outputTokens += counter.countText(answer);
    bill.requestedTokens += allowed;
    return { text: answer, finishReason: 'stop' };
  };
}

/**
 * The assistant's `search` call of a turn and its result: the same JSON as ctxmem's messages and
 * as an AI SDK V4 prompt.
 */
function lookupExchange(turn: number, lookup: { query: string; result: string }) {
  const id = `call_${turn}`;
  return [
    {
      role: 'assistant' as const,
      content: [
        {
          type: 'tool-call' as const,
          toolCallId: id,
          toolName: 'search',
          input: { q: lookup.query },
        },
      ],
    },
    {
      role: 'tool' as const,
      content: [
        {
          type: 'tool-result' as const,
          toolCallId: id,
          toolName: 'search',
          output: { type: 'text' as const, value: lookup.result },
        },
      ],
    },
  ];
}

function toolChat(turns: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const step = chatTurn(turn);
    messages.push({ role: 'user', content: step.user });
    if (step.lookup) messages.push(...lookupExchange(turn, step.lookup));
    messages.push({ role: 'assistant', content: step.answer });
  }
  return messages;
}

/** Part 1: a session through the context manager until `compactions` compactions have run. */
async function perCompaction(contextWindow: number, compactions: number) {
  const bill = emptyBill();
  const reports: Array<{ summarizerCalls: number; durationMs: number }> = [];
  const manager = createContextManager({
    contextWindow,
    counter,
    backgroundCompaction: false,
    modelSummarizer: { complete: scriptedComplete(bill), contextWindow, name: 'scripted' },
    onEvent: (event) => {
      if (event.type === 'compaction') reports.push(event.report);
    },
  });
  const budget = resolveBudget({ contextWindow });
  const history: Message[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
  const chat = toolChat(4_000);
  let summaryTokens = 0;
  let cpu = 0;
  for (let index = 0; index < chat.length && reports.length < compactions; index++) {
    history.push(chat[index]!);
    if (chat[index]!.role !== 'user' && chat[index]!.role !== 'tool') continue;
    const started = process.cpuUsage();
    const before = reports.length;
    const prepared = await manager.prepare(history);
    if (reports.length > before) {
      const used = process.cpuUsage(started);
      cpu += (used.user + used.system) / 1000;
      const summary = prepared.messages.find((message) => message.ctxmem?.kind === 'summary');
      summaryTokens = summary ? counter.countText(messageText(summary)) : 0;
    }
  }
  const done = Math.max(1, reports.length);
  return {
    budget,
    compactions: reports.length,
    callsPerCompaction: bill.calls / done,
    requestedPerCall: Math.round(bill.requestedTokens / Math.max(1, bill.calls)),
    writtenPerCompaction: Math.round(bill.outputTokens / done),
    inputPerCompaction: Math.round(bill.inputTokens / done),
    summaryTokens,
    cpuMsPerCompaction: cpu / done,
    modelSecondsPerCompaction: bill.outputTokens / done / OUTPUT_TOKENS_PER_SECOND,
  };
}

interface ChatResultRow {
  modelCalls: number;
  compactions: number;
  summarizer: Bill;
  chatInputTokens: number;
  factsStated: number;
  factsKept: number;
  lastPromptTokens: number;
}

function factsIn(prompt: string, turns: number): { stated: number; kept: number } {
  let stated = 0;
  let kept = 0;
  for (let turn = 1; turn <= turns; turn++) {
    const step = chatTurn(turn);
    if (!step.fact) continue;
    stated++;
    if (prompt.includes(`ref-${1000 + turn}`)) kept++;
  }
  return { stated, kept };
}

/** The budget of every chat call: the window less the tool definitions and the output asked for. */
const chatBudget = (contextWindow: number) =>
  resolveBudget({
    contextWindow,
    fixedTokens: countToolDefinitions(TOOL_DEFINITIONS, counter),
    outputTokens: CHAT_OUTPUT_TOKENS,
  });

/** The chat through the AI SDK middleware: the scripted model writes summaries, the bench the turns. */
async function aiSdkChat(turns: number, contextWindow: number): Promise<ChatResultRow> {
  const bill = emptyBill();
  const model = {
    specificationVersion: 'v4' as const,
    provider: 'bench',
    modelId: 'bench-chat',
    async doGenerate(options: {
      prompt: ReadonlyArray<{ role: string; content: unknown }>;
      maxOutputTokens?: number;
    }) {
      const system = String(options.prompt.find((message) => message.role === 'system')?.content);
      const user = options.prompt.find((message) => message.role === 'user')?.content as Array<{
        text: string;
      }>;
      const prompt = user.map((part) => part.text).join('');
      if (!system.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 60))) {
        throw new Error('the bench drives the chat itself: only summary calls reach the model');
      }
      const allowed = options.maxOutputTokens ?? 4_096;
      const answer = writeWhatAllowed(prompt, allowed, true);
      bill.calls++;
      bill.inputTokens += counter.countText(`${system}\n${prompt}`);
      bill.outputTokens += counter.countText(answer);
      bill.requestedTokens += allowed;
      return { content: [{ type: 'text', text: answer }], finishReason: 'stop' };
    },
  };
  let compactions = 0;
  const middleware = contextMemoryMiddleware({
    contextWindow,
    onEvent: (event) => {
      if (event.type === 'compaction') compactions++;
    },
  });
  const history: V4Message[] = [
    { role: 'system', content: 'You are a helpful account assistant.' },
  ];
  let modelCalls = 0;
  let chatInputTokens = 0;
  let last: V4Message[] = [];
  const call = async () => {
    const result = await middleware.transformParams({
      type: 'generate',
      params: {
        prompt: history.map((message) => ({ ...message })) as V4Message[],
        tools: TOOL_DEFINITIONS,
        maxOutputTokens: CHAT_OUTPUT_TOKENS,
      },
      model,
    });
    modelCalls++;
    last = result.prompt as V4Message[];
    chatInputTokens += counter.countMessages(fromV4Prompt(last));
  };
  for (let turn = 1; turn <= turns; turn++) {
    const step = chatTurn(turn);
    history.push({ role: 'user', content: [{ type: 'text', text: step.user }] });
    await call();
    if (step.lookup) {
      history.push(...lookupExchange(turn, step.lookup));
      await call();
    }
    history.push({ role: 'assistant', content: [{ type: 'text', text: step.answer }] });
  }
  await middleware.idle();
  const lastMessages = fromV4Prompt(last);
  const facts = factsIn(lastMessages.map(messageText).join('\n'), turns);
  return {
    modelCalls,
    compactions,
    summarizer: bill,
    chatInputTokens,
    factsStated: facts.stated,
    factsKept: facts.kept,
    lastPromptTokens: counter.countMessages(lastMessages),
  };
}

const LANGCHAIN_SUMMARY_MARKER = 'Context Extraction Assistant';

/** The agent's model for LangChain: a scripted turn, or a summary that writes what it may. */
class ScriptedChatModel extends BaseChatModel {
  readonly bill = emptyBill();
  readonly prompts: BaseMessage[][] = [];
  turn = 0;
  step = 0;

  constructor(private readonly summaryTokens: number) {
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
    if (first.text.includes(LANGCHAIN_SUMMARY_MARKER)) {
      const answer = writeWhatAllowed(first.text, this.summaryTokens, false);
      this.bill.calls++;
      this.bill.inputTokens += counter.countText(first.text);
      this.bill.outputTokens += counter.countText(answer);
      this.bill.requestedTokens += this.summaryTokens;
      message = new AIMessage(answer);
    } else {
      this.prompts.push(messages);
      const step = chatTurn(this.turn);
      this.step++;
      message =
        step.lookup && this.step === 1
          ? new AIMessage({
              content: '',
              tool_calls: [
                {
                  id: `call_${this.turn}`,
                  name: 'search',
                  args: { q: step.lookup.query },
                  type: 'tool_call',
                },
              ],
            })
          : new AIMessage(step.answer);
    }
    return { generations: [{ text: message.text, message }] };
  }
}

/** The same chat through LangChain's summarizationMiddleware, on ctxmem's trigger and target. */
async function langChainChat(
  turns: number,
  contextWindow: number,
  summaryTokens: number,
): Promise<ChatResultRow> {
  const budget = chatBudget(contextWindow);
  const model = new ScriptedChatModel(summaryTokens);
  const search = tool(async () => chatTurn(model.turn).lookup?.result ?? '', {
    name: 'search',
    description: 'Looks a query up.',
    schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  });
  const converter = new MessageConverter();
  const agent = createAgent({
    model,
    tools: [search],
    systemPrompt: 'You are a helpful account assistant.',
    middleware: [
      summarizationMiddleware({
        model,
        trigger: { tokens: budget.triggerTokens },
        keep: { tokens: Math.max(1, budget.targetTokens - summaryTokens) },
        tokenCounter: async (messages: BaseMessage[]) =>
          counter.countMessages(converter.fromLangChain(messages)),
      }),
    ],
  });
  let messages: BaseMessage[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    model.turn = turn;
    model.step = 0;
    const state = await agent.invoke({
      messages: [...messages, new HumanMessage(chatTurn(turn).user)],
    });
    messages = state.messages;
  }
  const chatInputTokens = model.prompts.reduce(
    (sum, prompt) => sum + counter.countMessages(fromLangChainMessages(prompt)),
    0,
  );
  const last = fromLangChainMessages(model.prompts.at(-1) ?? []);
  const facts = factsIn(last.map(messageText).join('\n'), turns);
  return {
    modelCalls: model.prompts.length,
    compactions: model.bill.calls,
    summarizer: model.bill,
    chatInputTokens,
    factsStated: facts.stated,
    factsKept: facts.kept,
    lastPromptTokens: counter.countMessages(last),
  };
}

const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

export const run: BenchRun = async ({ quick }) => {
  const sections: BenchSection[] = [];
  const windowRows: Array<Record<string, string | number>> = [];
  for (const contextWindow of quick ? [16_000, 128_000] : [16_000, 128_000, 200_000]) {
    const result = await perCompaction(contextWindow, quick ? 2 : 4);
    windowRows.push({
      window: thousands(contextWindow),
      'target tokens': thousands(result.budget.targetTokens),
      compactions: result.compactions,
      'summarizer calls per compaction': result.callsPerCompaction.toFixed(2),
      'output tokens requested per call': thousands(result.requestedPerCall),
      'output tokens written per compaction': thousands(result.writtenPerCompaction),
      'input tokens per compaction': thousands(result.inputPerCompaction),
      'summary tokens in the prompt': thousands(result.summaryTokens),
      'ctxmem CPU ms per compaction': result.cpuMsPerCompaction.toFixed(0),
      [`model writing s per compaction (${OUTPUT_TOKENS_PER_SECOND} tok/s)`]:
        result.modelSecondsPerCompaction.toFixed(1),
    });
  }
  sections.push({
    title:
      'Model summarizer: cost per compaction by context window (scripted model that writes all it may)',
    rows: windowRows,
    notes: [
      'A tool-using chat (user turns, lookups of ~280 words, answers) through createContextManager with the default budget (trigger 80 %, target 60 %) and no background compaction, until the given number of compactions. The scripted model writes every fact it is shown and fills the rest of its output allowance (`maxOutputTokens`) with prose: the most a compaction can bill.',
      `Time: ctxmem's CPU time for the compacting call (counting, strategies, parsing), plus the model's writing time at an assumed ${OUTPUT_TOKENS_PER_SECOND} output tokens per second; network and prompt processing are not included.`,
    ],
  });

  const turns = quick ? 60 : 150;
  const contextWindow = 16_000;
  const budget = chatBudget(contextWindow);
  const ctxmem = await aiSdkChat(turns, contextWindow);
  // LangChain's summary model may write as much as ctxmem's is allowed to.
  const summaryTokens = Math.round(
    ctxmem.summarizer.requestedTokens / Math.max(1, ctxmem.summarizer.calls),
  );
  const langChain = await langChainChat(turns, contextWindow, summaryTokens);
  const chatRow = (name: string, result: ChatResultRow) => ({
    'summarized by': name,
    'model calls (chat)': result.modelCalls,
    compactions: result.compactions,
    'summarizer calls': result.summarizer.calls,
    'summarizer input tokens': thousands(result.summarizer.inputTokens),
    'summarizer output tokens': thousands(result.summarizer.outputTokens),
    'chat input tokens (messages)': thousands(result.chatInputTokens),
    'facts kept in the last prompt': `${result.factsKept} / ${result.factsStated}`,
  });
  sections.push({
    title: `${turns}-turn tool-using chat, ${thousands(contextWindow)}-token window with 25 tools and maxOutputTokens ${thousands(CHAT_OUTPUT_TOKENS)}: summarizer calls and tokens billed per session`,
    rows: [
      chatRow('ctxmem (AI SDK middleware, defaults)', ctxmem),
      chatRow('LangChain summarizationMiddleware', langChain),
    ],
    notes: [
      `Every chat call sends 25 tool definitions (${thousands(budget.fixedTokens)} tokens) and asks for ${thousands(CHAT_OUTPUT_TOKENS)} output tokens, which leaves ${thousands(budget.budgetTokens)} tokens for the messages: ctxmem compacts at ${thousands(budget.triggerTokens)} down to ${thousands(budget.targetTokens)}. Every other turn looks something up (a ~280-word result), so a turn is one or two model calls; every third user turn states a fact with a reference (ref-1003 …). Facts kept: references still in the prompt of the last call.`,
      `ctxmem: contextMemoryMiddleware({ contextWindow: ${contextWindow} }) with its defaults; the wrapped model writes the summaries. LangChain: createAgent with summarizationMiddleware triggering at the same ${thousands(budget.triggerTokens)} message tokens and keeping ${thousands(budget.targetTokens)} minus its summary, counting with the same tokenizer; its summary model may write the ${thousands(summaryTokens)} output tokens ctxmem's is allowed per call.`,
      'Both summary models are the same scripted model: it keeps every fact it is shown and fills the rest of its allowance with prose (the worst case for the bill). Summarizer input tokens: system prompt and prompt of each summary call. Chat input tokens: the messages of every chat call (tool definitions, the same for both, not included).',
    ],
  });
  return sections;
};
