/**
 * The sessions of `load.bench.ts` and the loop that plays them: each turn of a synthetic
 * tool-using conversation, `CONCURRENCY` sessions in flight, every prompt that comes out checked
 * the way a provider would check it, and the table row of a finished scenario.
 */
import { performance } from 'node:perf_hooks';
import { checkToolPairing, type Message, type TokenCounter } from '../packages/core/src/index.js';
import { lastUserMessage } from '../packages/core/src/messages/index.js';
import { fillerText } from '../packages/core/src/test/filler-text.js';

export const CONCURRENCY = 32;

const WORDS =
  'deploy build test cache index vector search summary budget window session agent release plan review database queue worker retry timeout'.split(
    ' ',
  );

/** Deterministic filler of `count` words from a small vocabulary, by `seed`. */
export function text(seed: number, count: number): string {
  return fillerText(seed, count, WORDS);
}

/**
 * Turn `turn` of session `session`: the question, then the tool step, then the answer. Every
 * fifth tool result is large (about 24 KB), so offloading runs too.
 */
function turnMessages(session: number, turn: number) {
  const seed = session * 1_000 + turn;
  const callId = `call_${session}_${turn}`;
  const large = turn % 5 === 4;
  const question: Message = {
    role: 'user',
    content: `Session ${session}, turn ${turn}: ${text(seed, 40)}?`,
  };
  const toolStep: Message[] = [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Looking into ${text(seed + 1, 6)}.` },
        {
          type: 'tool-call',
          toolCallId: callId,
          toolName: 'search',
          input: { query: text(seed + 2, 5) },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: callId,
          toolName: 'search',
          output: { type: 'text', value: text(seed + 3, large ? 4_000 : 150) },
        },
      ],
    },
  ];
  const answer: Message = { role: 'assistant', content: `Answer ${turn}: ${text(seed + 4, 60)}.` };
  return { question, toolStep, answer };
}

/** What makes a provider reject a prompt: over budget, broken tool pairing, no user message. */
function invalidPrompt(
  prompt: readonly Message[],
  budgetTokens: number,
  counter: TokenCounter,
): boolean {
  return (
    counter.countMessages(prompt) > budgetTokens ||
    checkToolPairing(prompt).length > 0 ||
    lastUserMessage(prompt) === undefined
  );
}

export interface LoadResult {
  /** Searches that answered from BM25 alone because the vector side missed its deadline or failed. */
  searchFallbacks?: number;
  calls: number;
  sessions: number;
  invalid: number;
  compactions: number;
  latencies: number[];
  seconds: number;
  /** Process CPU time (user + system) over the scenario, in seconds. */
  cpuSeconds: number;
  stoppedEarly: boolean;
}

/** One call of a scenario: returns the prompt to check and whether it compacted. */
export type Call = (
  session: number,
  history: readonly Message[],
) => Promise<{
  prompt: Message[];
  compacted: boolean;
  budgetTokens: number;
  counter: TokenCounter;
}>;

/**
 * Runs `sessions` conversations of `turns` turns, two calls per turn (before the tool step and
 * before the answer), `CONCURRENCY` sessions at a time, until done or `limitMs` has passed.
 */
export async function runLoad({
  sessions,
  turns,
  limitMs,
  call,
}: {
  sessions: number;
  turns: number;
  limitMs: number;
  call: Call;
}): Promise<LoadResult> {
  const histories: Message[][] = Array.from({ length: sessions }, (_, session) => [
    { role: 'system', content: `You are the agent of session ${session}. Keep answers short.` },
  ]);
  const result: LoadResult = {
    calls: 0,
    sessions,
    invalid: 0,
    compactions: 0,
    latencies: [],
    seconds: 0,
    cpuSeconds: 0,
    stoppedEarly: false,
  };
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const deadline = started + limitMs;
  const measured = async (session: number, history: readonly Message[]) => {
    const before = performance.now();
    const { prompt, compacted, budgetTokens, counter } = await call(session, history);
    result.latencies.push(performance.now() - before);
    result.calls++;
    if (compacted) result.compactions++;
    if (invalidPrompt(prompt, budgetTokens, counter)) result.invalid++;
  };
  for (let turn = 0; turn < turns; turn++) {
    let next = 0;
    const worker = async () => {
      while (next < sessions) {
        if (performance.now() > deadline) {
          result.stoppedEarly = true;
          return;
        }
        const session = next++;
        const { question, toolStep, answer } = turnMessages(session, turn);
        const history = histories[session]!;
        history.push(question);
        await measured(session, history);
        history.push(...toolStep);
        await measured(session, history);
        history.push(answer);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (result.stoppedEarly) break;
  }
  result.seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  result.cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return result;
}

function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

export function row(name: string, result: LoadResult): Record<string, string | number> {
  const sorted = [...result.latencies].sort((left, right) => left - right);
  const ms = (value: number) => Number(value.toFixed(2));
  return {
    path: name,
    sessions: result.sessions,
    calls: result.calls,
    compactions: result.compactions,
    'p50 ms': ms(percentile(sorted, 0.5)),
    'p99 ms': ms(percentile(sorted, 0.99)),
    'max ms': ms(sorted.at(-1) ?? 0),
    'CPU ms per call': ms((result.cpuSeconds * 1000) / Math.max(1, result.calls)),
    'calls/s': Math.round(result.calls / result.seconds),
    seconds: Number(result.seconds.toFixed(1)),
    'search fallbacks': result.searchFallbacks ?? '-',
    'invalid prompts': result.invalid,
    'stopped at limit': result.stoppedEarly ? 'yes' : 'no',
  };
}
