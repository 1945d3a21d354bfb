/**
 * The model every fake provider plays in the wire tests: a tool-using agent that takes a fixed
 * number of tool steps per user turn (some of them parallel calls), shows reasoning before each
 * step, then answers; and, asked by ctxmem's model summarizer, a faithful summarizer that keeps
 * every planted fact (`FACT-<n>: …`) it is shown.
 */
import { SUMMARY_SYSTEM_PROMPT } from '@ctxmem/core';
import type { ScriptedHandler, ScriptedReply, ScriptedRequest } from './scripted-reply.js';

/** A planted fact as a test writes it into a user message, and finds it again. */
export const FACT_PATTERN = /FACT-\d+: [^.\n]+\./g;

export interface ScriptedAgentOptions {
  /** Tool steps per user turn before the answer. @default 2 */
  toolSteps?: number;
  /** Every how many turns the first step calls two tools at once. @default 3 */
  parallelEvery?: number;
  /** Words of reasoning before each step (0 for none). @default 40 */
  reasoningWords?: number;
  /** The tool to call. @default the first tool offered */
  toolName?: string;
}

export interface ScriptedAgent {
  handler: ScriptedHandler;
  /** Requests from ctxmem's summarizer, and from the agent loop. */
  readonly counts: { summaries: number; steps: number };
}

function isSummaryRequest(request: ScriptedRequest): boolean {
  return request.system.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 60));
}

function summaryReply(request: ScriptedRequest): ScriptedReply {
  const facts = [...new Set(request.text.match(FACT_PATTERN) ?? [])];
  return {
    text: JSON.stringify({
      summary: {
        goal: ['Answer the user’s numbered questions with the lookup tool.'],
        background: ['Earlier questions were answered from lookup results.'],
        keyFacts: facts,
        constraints: [],
        decisions: [],
        todos: [],
        snippets: [],
      },
      memories: [],
    }),
  };
}

const THINKING_WORDS = ['check', 'the', 'lookup', 'result', 'before', 'answering', 'carefully'];

export function createScriptedAgent({
  toolSteps = 2,
  parallelEvery = 3,
  reasoningWords = 40,
  toolName,
}: ScriptedAgentOptions = {}): ScriptedAgent {
  const counts = { summaries: 0, steps: 0 };
  const handler: ScriptedHandler = (request) => {
    if (isSummaryRequest(request)) {
      counts.summaries++;
      return summaryReply(request);
    }
    counts.steps++;
    const turn = Number(/Question (\d+)/.exec(request.lastUserText)?.[1] ?? 0);
    const reasoning =
      reasoningWords > 0
        ? Array.from(
            { length: reasoningWords },
            (_, index) => THINKING_WORDS[(index + turn) % THINKING_WORDS.length],
          ).join(' ')
        : undefined;
    const step = request.toolResultsSinceUser;
    const parallel = parallelEvery > 0 && turn % parallelEvery === 0;
    const resultsBeforeAnswer = toolSteps + (parallel ? 1 : 0);
    const name = toolName ?? request.tools.find((tool) => tool !== 'reload_context') ?? 'lookup';
    if (step < resultsBeforeAnswer) {
      const calls = parallel && step === 0 ? 2 : 1;
      return {
        ...(reasoning ? { reasoning } : {}),
        toolCalls: Array.from({ length: calls }, (_, index) => ({
          name,
          input: { query: `turn ${turn} step ${step + index}` },
        })),
      };
    }
    return {
      ...(reasoning ? { reasoning } : {}),
      text: `Answer ${turn}: the lookups agree.`,
    };
  };
  return { handler, counts };
}
