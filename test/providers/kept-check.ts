/**
 * Issue 24's kept check, shared by the AI SDK and LangChain runs: the facts planted in early user
 * turns, the question of each turn, and the figures judged at the end (rule-break and overflow
 * rejections, overflows in the second half, planted facts still in the last request).
 */
import type { FakeProviderServer } from './rule-break.js';

export const KEPT_CHECK_WINDOW = 16_000;
export const KEPT_CHECK_TURNS = 40;

/** Facts planted in early turns; the model must still see each of them in the last request. */
export const PLANTED_FACTS: ReadonlyMap<number, string> = new Map([
  [1, 'FACT-1: the staging database listens on port 8443.'],
  [4, 'FACT-2: the release train leaves every Thursday at 14:00 UTC.'],
  [9, 'FACT-3: the on-call alias is ops-blue.'],
]);

/** The user's question of `turn`, with the turn's planted fact if it has one. */
export function keptCheckQuestion(turn: number): string {
  const fact = PLANTED_FACTS.get(turn);
  return `Question ${turn}: look up record ${turn} and tell me what changed.${fact ? ` Remember this: ${fact}` : ''}`;
}

export interface KeptCheckFigures {
  requests: number;
  ruleRejections: string[];
  failedTurns: string[];
  overflows: number;
  overflowsInSecondHalf: number;
  factsMissing: string[];
  largestInputTokens: number;
}

/**
 * The figures of a finished run. `requestsBefore[turn]` is how many requests the server had seen
 * when user turn `turn` began; the summarizer's own requests are left out of "the last request".
 */
export function keptCheckFigures({
  server,
  requestsBefore,
  failedTurns,
  turns = KEPT_CHECK_TURNS,
}: {
  server: FakeProviderServer;
  requestsBefore: readonly number[];
  failedTurns: string[];
  turns?: number;
}): KeptCheckFigures {
  const overflows = server.rejected('overflow');
  const secondHalf = requestsBefore[turns / 2 + 1]!;
  const answered = server.requests.filter(
    (request) =>
      !request.rejection &&
      !JSON.stringify(request.body).includes('rolling context summary of a conversation'),
  );
  const lastText = JSON.stringify(answered.at(-1)?.body ?? {});
  return {
    requests: server.requests.length,
    ruleRejections: server.rejected('rule').map((request) => request.rejection!.message),
    failedTurns,
    overflows: overflows.length,
    overflowsInSecondHalf: overflows.filter((request) => request.index >= secondHalf).length,
    factsMissing: [...PLANTED_FACTS.values()].filter((fact) => !lastText.includes(fact)),
    largestInputTokens: Math.max(...server.requests.map((request) => request.inputTokens ?? 0)),
  };
}
