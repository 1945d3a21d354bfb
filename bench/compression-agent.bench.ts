/**
 * Planted facts in synthetic agent sessions: how many survive compaction to 5% of the session's
 * tokens, against truncation to the same budget. Sessions are generated from a seed (nothing is
 * read from disk): a user who states constraints, decisions and preferences (some in Chinese),
 * an assistant that calls tools in parallel on large outputs (logs, JSON rows, a CJK document) and
 * writes down what it found. Each planted fact is a unique string; it survives when it appears in
 * the compacted prompt. Seeds are split like LoCoMo: tuning 1–3, validation 101–103.
 */
import {
  compact,
  createExtractiveSummarizer,
  createInMemoryOffloadStore,
  createTokenCounter,
  type Message,
  messageText,
} from '../packages/core/src/index.js';
import type { BenchRun } from './types.js';

export const AGENT_SEEDS: Readonly<Record<'tuning' | 'validation', readonly number[]>> = {
  tuning: [1, 2, 3],
  validation: [101, 102, 103],
};

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
  const integer = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const pick = <Item>(items: readonly Item[]) => items[integer(0, items.length - 1)]!;
  return { integer, pick };
}

const MODULES = ['billing', 'ledger', 'auth', 'search', 'export', 'gateway', 'scheduler', 'audit'];
const NOUNS = ['invoice', 'refund', 'token', 'session', 'report', 'quota', 'webhook', 'cache'];
const DATABASES = ['Postgres', 'MySQL', 'SQLite', 'CockroachDB', 'DynamoDB'];
const CITIES = ['成都', '杭州', '深圳', '武汉', '西安'];

interface AgentSession {
  messages: Message[];
  facts: string[];
}

/** One generated session: `rounds` rounds of request, parallel tool calls, results and findings. */
export function agentSession(seed: number, rounds = 12): AgentSession {
  const { integer, pick } = random(seed);
  const facts: string[] = [];
  const plant = (fact: string) => {
    facts.push(fact);
    return fact;
  };
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent working in a TypeScript monorepo.' },
  ];
  let call = 0;
  for (let round = 0; round < rounds; round++) {
    const module = pick(MODULES);
    const noun = pick(NOUNS);
    // The user's turn: one planted constraint, decision, preference or (in Chinese) a fact.
    const userFacts = [
      () => `The ${module} service must listen on port ${plant(String(integer(20_000, 39_999)))}.`,
      () =>
        `We decided to use ${pick(DATABASES)} ${plant(`${integer(11, 17)}.${integer(1, 9)}`)} for the ${noun} store.`,
      () => `Tickets for this go under ${plant(`${module.toUpperCase()}-${integer(1000, 9999)}`)}.`,
      () => `请记住：备用服务器在${plant(`${pick(CITIES)}${integer(10, 99)}号机房`)}。`,
      () => `Never touch the ${plant(`${noun}_${integer(100, 999)}_archive`)} table in production.`,
    ];
    messages.push({
      role: 'user',
      content: `Next, look at the ${noun} flow in ${module}. ${pick(userFacts)()}`,
    });
    // Parallel tool calls on large outputs; the path of one of them is a planted fact.
    const path = plant(`src/${module}/${noun}-${integer(100, 999)}.ts`);
    const calls = [
      { toolName: 'read_file', input: { path }, output: codeFile(noun, integer) },
      {
        toolName: 'run_command',
        input: { command: `pnpm test ${module}` },
        output: logLines(module, integer),
      },
      ...(round % 3 === 2
        ? [{ toolName: 'fetch_doc', input: { id: `doc-${round}` }, output: cjkDocument(integer) }]
        : []),
    ].map((item) => ({ ...item, toolCallId: `call-${seed}-${call++}` }));
    messages.push({
      role: 'assistant',
      content: calls.map(({ toolCallId, toolName, input }) => ({
        type: 'tool-call' as const,
        toolCallId,
        toolName,
        input,
      })),
    });
    messages.push({
      role: 'tool',
      content: calls.map(({ toolCallId, toolName, output }) => ({
        type: 'tool-result' as const,
        toolCallId,
        toolName,
        output: { type: 'text' as const, value: output },
      })),
    });
    // The assistant writes down what it found: a planted finding.
    const expected = integer(10, 99);
    messages.push({
      role: 'assistant',
      content: `I found the cause: ${plant(`${noun}Limit`)}${round} in ${module} expects ${expected} but gets ${plant(String(expected * 100 + integer(1, 99)))}. I will patch it next.`,
    });
  }
  messages.push({ role: 'user', content: 'Summarize where we are and what is left to do.' });
  return { messages, facts };
}

function codeFile(noun: string, integer: (low: number, high: number) => number): string {
  const lines = [];
  for (let line = 0; line < 160; line++) {
    lines.push(
      `export function ${noun}Step${line}(input: number) { return input * ${integer(2, 9)}; }`,
    );
  }
  return lines.join('\n');
}

function logLines(module: string, integer: (low: number, high: number) => number): string {
  const lines = [];
  for (let line = 0; line < 120; line++) {
    lines.push(
      `[${module}] test ${line} passed in ${integer(1, 400)}ms (heap ${integer(10, 90)}MB, retries 0)`,
    );
  }
  return lines.join('\n');
}

function cjkDocument(integer: (low: number, high: number) => number): string {
  const sentences = [];
  for (let sentence = 0; sentence < 150; sentence++) {
    sentences.push(`第${sentence}节：接口延迟为${integer(5, 500)}毫秒，错误率保持正常。`);
  }
  return sentences.join('');
}

function truncateToBudget(
  messages: readonly Message[],
  budget: number,
  counter: ReturnType<typeof createTokenCounter>,
) {
  const system = messages[0]!;
  const kept: Message[] = [];
  for (let index = messages.length - 1; index > 0; index--) {
    if (counter.countMessages([system, messages[index]!, ...kept]) > budget) break;
    kept.unshift(messages[index]!);
  }
  return [system, ...kept];
}

const factsIn = (facts: readonly string[], messages: readonly Message[]) => {
  const text = messages.map(messageText).join('\n');
  return facts.filter((fact) => text.includes(fact)).length;
};

export const run: BenchRun = async ({ quick }) => {
  const counter = createTokenCounter();
  const rows: Array<Record<string, string | number>> = [];
  for (const share of [0.05, 0.02])
    for (const part of ['tuning', 'validation'] as const) {
      const seeds = quick ? AGENT_SEEDS[part].slice(0, 1) : AGENT_SEEDS[part];
      let kept = 0;
      let truncation = 0;
      let planted = 0;
      let used = 0;
      let budgets = 0;
      let summaryTokens = 0;
      let milliseconds = 0;
      for (const seed of seeds) {
        const { messages, facts } = agentSession(seed);
        const budget = Math.floor(counter.countMessages(messages) * share);
        const started = performance.now();
        const result = await compact(messages, {
          budgetTokens: budget,
          counter,
          summarizer: createExtractiveSummarizer({ counter }),
          offloadStore: createInMemoryOffloadStore(),
        });
        milliseconds += performance.now() - started;
        kept += factsIn(facts, result.messages);
        truncation += factsIn(facts, truncateToBudget(messages, budget, counter));
        planted += facts.length;
        used += counter.countMessages(result.messages);
        budgets += budget;
        const summary = result.messages.find((message) => message.ctxmem?.kind === 'summary');
        summaryTokens += summary ? counter.countText(messageText(summary)) : 0;
      }
      rows.push({
        budget: `${share * 100}%`,
        part,
        seeds: seeds.join(' '),
        'planted facts': planted,
        'kept (ctxmem)': kept,
        'kept (truncation)': truncation,
        'budget used': `${((100 * used) / budgets).toFixed(1)}%`,
        'summary tokens (mean)': Math.round(summaryTokens / seeds.length),
        'ms (total)': Math.round(milliseconds),
      });
    }
  return [
    {
      title:
        'Synthetic agent sessions: planted facts kept at 5% and 2% of the tokens (default settings)',
      rows,
      notes: [
        'Generated from seeds: parallel tool calls on large outputs (code, logs, a CJK document), user constraints, decisions and Chinese facts, assistant findings. Target: every planted fact kept at 5%. At 2% the default summary cap (summaryMaxTokens 1,200) leaves part of the budget unused.',
      ],
    },
  ];
};
