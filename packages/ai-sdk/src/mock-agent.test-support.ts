/**
 * Test support (not part of the package): a scripted tool-using agent model for the AI SDK mock
 * models, deterministic text, and prompt checks. Works for V3 and V4 models alike, since the
 * result shapes used here are the same in both.
 */
import { SUMMARY_SYSTEM_PROMPT } from '@ctxmem/core';
import { summaryReply as summaryAnswer, fillerText as words } from '@ctxmem/core/test';

// One filler text and one summary reply for every package's tests.
export { summaryAnswer, words };

/**
 * The scripted agent's `lookup` tool, built with the test's own AI SDK (`tool` and `jsonSchema` of
 * AI SDK 6 or 7): one required `query`, answered with `resultWords` words of filler text seeded by
 * the query's length times `seed`.
 */
export function lookupTool<Built>(
  sdk: { tool: (definition: never) => Built; jsonSchema: (schema: never) => unknown },
  { seed = 7919, resultWords = 450 }: { seed?: number; resultWords?: number } = {},
): Built {
  return sdk.tool({
    description: 'Looks something up.',
    inputSchema: sdk.jsonSchema({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    } as never),
    execute: async ({ query }: { query: string }) => words(query.length * seed, resultWords),
  } as never);
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A `doGenerate` result with one text part. */
export function textResult(text: string) {
  return {
    content: [{ type: 'text' as const, text }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage,
    warnings: [],
  };
}

export interface ScriptedToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** A `doGenerate` result that calls tools (inputs are JSON strings in model output). */
export function toolCallResult(calls: readonly ScriptedToolCall[]) {
  return {
    content: calls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** The same result as `doStream` chunks. */
export function streamChunks(
  result: ReturnType<typeof textResult> | ReturnType<typeof toolCallResult>,
) {
  const chunks: Array<Record<string, unknown>> = [{ type: 'stream-start', warnings: [] }];
  for (const part of result.content) {
    if (part.type === 'text') {
      chunks.push({ type: 'text-start', id: 't' });
      chunks.push({ type: 'text-delta', id: 't', delta: part.text });
      chunks.push({ type: 'text-end', id: 't' });
    } else {
      chunks.push(part);
    }
  }
  chunks.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
  return chunks;
}

type PromptLike = ReadonlyArray<{ role: string; content: unknown }>;

/** True when the prompt is a call of ctxmem's model summarizer. */
export function isSummaryPrompt(prompt: PromptLike): boolean {
  const first = prompt[0];
  return (
    first?.role === 'system' && String(first.content).startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 80))
  );
}

export interface ScriptedAgentOptions {
  /** Tool calls per user turn before the final answer. @default 2 */
  toolStepsPerTurn?: number;
  /** @default 'lookup' */
  toolName?: string;
}

/**
 * Decides the agent's next step from the prompt it receives: a tool call until the current turn
 * has `toolStepsPerTurn` tool results, then a final text. Summary prompts get a summary answer.
 * Tool-call ids are unique across the conversation.
 */
export function createScriptedAgent({
  toolStepsPerTurn = 2,
  toolName = 'lookup',
}: ScriptedAgentOptions = {}) {
  let nextCall = 0;
  let summaries = 0;
  return {
    get summaryCalls() {
      return summaries;
    },
    respond(prompt: PromptLike) {
      if (isSummaryPrompt(prompt)) {
        summaries++;
        return textResult(summaryAnswer(String(summaries)));
      }
      let lastUser = prompt.length - 1;
      while (lastUser >= 0 && prompt[lastUser]!.role !== 'user') lastUser--;
      const toolMessages = prompt
        .slice(lastUser + 1)
        .filter((message) => message.role === 'tool').length;
      if (toolMessages < toolStepsPerTurn) {
        nextCall++;
        return toolCallResult([
          {
            toolCallId: `call-${nextCall}`,
            toolName,
            input: { query: `q${nextCall}`, page: toolMessages },
          },
        ]);
      }
      return textResult(`Done: ${words(nextCall, 12)}`);
    },
  };
}
