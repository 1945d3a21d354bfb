import { describe, expect, it } from 'vitest';
import { createContextManager } from '../context/index.js';
import type {
  CompleteRequest,
  Message,
  StructuredSummary,
  TokenCounter,
} from '../contracts/index.js';
import { InvalidArgumentError, SummarizerError } from '../errors/index.js';
import { messageText } from '../messages/index.js';
import { createScriptedComplete } from '../test/summarizers.js';
import {
  createModelSummarizer,
  emptySections,
  MODEL_SUMMARY_MAX_TOKENS,
  renderSummary,
  SUMMARY_HEADING,
} from './index.js';

const counter: TokenCounter = {
  name: 'chars/4',
  promptOverhead: 3,
  countText: (text) => Math.ceil(text.length / 4),
  countMessage: (message) => 4 + Math.ceil(messageText(message).length / 4),
  countMessages(messages) {
    return messages.reduce((sum, message) => sum + this.countMessage(message), this.promptOverhead);
  },
};

const messages: Message[] = [
  { id: 'u1', role: 'user', content: 'Build a CSV to JSON converter. Never add dependencies.' },
  { id: 'a1', role: 'assistant', content: 'Agreed, I will write src/parse.ts first.' },
];

const validAnswer = JSON.stringify({
  summary: {
    goal: ['Build a CSV to JSON converter.'],
    background: [],
    keyFacts: ['The parser lives in src/parse.ts.'],
    constraints: ['Never add dependencies.'],
    decisions: [],
    todos: ['Write src/parse.ts.'],
    snippets: [],
  },
  memories: [
    {
      content: 'The converter must not add dependencies.',
      type: 'constraint',
      tags: ['deps'],
      source: 1,
    },
  ],
});

async function rejection(promise: Promise<unknown>): Promise<SummarizerError> {
  try {
    await promise;
  } catch (error) {
    expect(SummarizerError.isInstance(error)).toBe(true);
    return error as SummarizerError;
  }
  throw new Error('expected the promise to reject');
}

/** A model that answers every call with one bullet naming the messages it was shown. */
function echoingAnswer(request: CompleteRequest, callIndex: number): string {
  const numbers = [...request.prompt.matchAll(/^\[(\d+)\] /gm)].map((match) => match[1]);
  return JSON.stringify({
    summary: { background: [`call ${callIndex + 1} saw messages ${numbers.join(',')}`] },
    memories: [],
  });
}

describe('createModelSummarizer', () => {
  it('turns a JSON answer into sections and memory cards', async () => {
    const complete = createScriptedComplete([validAnswer]);
    const summarizer = createModelSummarizer({ complete, counter });
    const result = await summarizer.summarize({ messages, maxTokens: 500 });
    expect(result.calls).toBe(1);
    expect(result.summary.sections.constraints).toEqual(['Never add dependencies.']);
    expect(result.summary.sections.todos).toEqual(['Write src/parse.ts.']);
    expect(result.cards).toEqual([
      {
        content: 'The converter must not add dependencies.',
        type: 'constraint',
        tags: ['deps'],
        source: 'u1',
      },
    ]);
    const [request] = complete.requests;
    expect(request!.responseFormat).toBe('json');
    expect(request!.system).toContain('"memories"');
    expect(request!.abortSignal).toBeInstanceOf(AbortSignal);
    expect(request!.prompt).toContain('[1] user: Build a CSV to JSON converter.');
    expect(request!.prompt).toContain('[2] assistant: Agreed');
  });

  it('sends the previous summary with the new messages (incremental)', async () => {
    const complete = createScriptedComplete([validAnswer]);
    const previousSummary: StructuredSummary = {
      sections: { ...emptySections(), decisions: ['Use TypeScript.'] },
    };
    await createModelSummarizer({ complete, counter }).summarize({
      messages,
      previousSummary,
      maxTokens: 500,
    });
    expect(complete.requests[0]!.prompt).toContain(
      `Previous summary:\n${renderSummary(previousSummary)}`,
    );
  });

  it('uses a summary message of the history as the previous summary instead of summarizing it', async () => {
    const complete = createScriptedComplete([validAnswer]);
    const previous = renderSummary({
      sections: { ...emptySections(), decisions: ['Use TypeScript.'] },
    });
    await createModelSummarizer({ complete, counter }).summarize({
      messages: [
        { role: 'assistant', content: previous, ctxmem: { kind: 'summary' } },
        ...messages,
      ],
      maxTokens: 500,
    });
    const prompt = complete.requests[0]!.prompt;
    expect(prompt.split(SUMMARY_HEADING)).toHaveLength(2);
    expect(prompt).toContain('### Decisions\n- Use TypeScript.');
    expect(prompt).toContain('[1] user: Build');
  });

  it('shows tool calls with their arguments and cuts long results', async () => {
    const complete = createScriptedComplete([validAnswer]);
    await createModelSummarizer({ complete, counter, toolResultChars: 50 }).summarize({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { query: 'csv' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'search',
              output: { type: 'text', value: `${'r'.repeat(500)}TAIL` },
            },
          ],
        },
      ],
      maxTokens: 500,
    });
    const prompt = complete.requests[0]!.prompt;
    expect(prompt).toContain('→ search({"query":"csv"})');
    expect(prompt).toContain('[… 454 more characters]');
    expect(prompt).not.toContain('TAIL');
  });

  it('accepts an answer in the summary’s own Markdown shape', async () => {
    const markdown = '## Context Summary\n### Key facts\n- The user builds a CSV converter.';
    const result = await createModelSummarizer({
      complete: createScriptedComplete([markdown]),
      counter,
    }).summarize({ messages, maxTokens: 500 });
    expect(result.summary.sections.keyFacts).toEqual(['The user builds a CSV converter.']);
  });

  it.each<[string, string | { text: string; finishReason: string }, RegExp]>([
    ['a refusal', "I'm sorry, but I can't help with summarizing this conversation.", /refused/],
    [
      'prose that is not a summary',
      'The user builds a CSV converter and forbids dependencies.',
      /not a summary/,
    ],
    [
      'JSON cut off at the output limit',
      { text: '{"summary":{"keyFacts":["The user builds', finishReason: 'length' },
      /cut off at the output limit/,
    ],
    [
      'a complete-looking answer that stopped at the limit',
      { text: JSON.stringify({ summary: { keyFacts: ['x'] } }), finishReason: 'length' },
      /cut off/,
    ],
    [
      'an answer stopped by a content filter',
      { text: '', finishReason: 'content-filter' },
      /content filter/,
    ],
  ])(
    'rejects %s with SummarizerError, so nothing of it is stored',
    async (_case, reply, reason) => {
      const summarizer = createModelSummarizer({
        complete: createScriptedComplete([reply]),
        counter,
      });
      const error = await summarizer.summarize({ messages, maxTokens: 500 }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(SummarizerError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(reason);
    },
  );

  it('falls back to the extractive summary, never the bad reply, through the context manager', async () => {
    const refusal = "I'm sorry, I can't do that.";
    const events: string[] = [];
    const manager = createContextManager({
      contextWindow: 2_000,
      modelSummarizer: { complete: createScriptedComplete([refusal], { repeatLast: true }) },
      onEvent: (event) => {
        if (event.type === 'summarizer-fallback') events.push(event.reason);
      },
    });
    const history = Array.from({ length: 40 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content:
        `Turn ${index}: the deployment uses region eu-west-${index} and port ${8000 + index}. `.repeat(
          6,
        ),
    }));
    const prepared = await manager.prepare(history);
    expect(prepared.compacted).toBe(true);
    expect(JSON.stringify(prepared.messages)).not.toContain('sorry');
    expect(events.some((reason) => /refused/.test(reason))).toBe(true);
  });

  it('trims the answer to maxTokens', async () => {
    const big = JSON.stringify({
      summary: { keyFacts: Array.from({ length: 200 }, (_, index) => `fact number ${index}`) },
    });
    const result = await createModelSummarizer({
      complete: createScriptedComplete([big]),
      counter,
    }).summarize({ messages, maxTokens: 100 });
    expect(counter.countText(renderSummary(result.summary))).toBeLessThanOrEqual(100);
    expect(result.summary.sections.keyFacts.at(-1)).toBe('fact number 199');
  });

  it('asks the model for at most maxSummaryTokens however large the room, with a bounded output', async () => {
    const big = JSON.stringify({
      summary: { keyFacts: Array.from({ length: 2_000 }, (_, index) => `fact number ${index}`) },
    });
    const complete = createScriptedComplete([big, big]);
    const summarizer = createModelSummarizer({ complete, counter, contextWindow: 200_000 });
    // The default bound: a compaction on a large window may offer 8,000 tokens of room.
    expect(summarizer.maxSummaryTokens).toBe(MODEL_SUMMARY_MAX_TOKENS);
    const result = await summarizer.summarize({ messages, maxTokens: 8_000 });
    const [request] = complete.requests;
    expect(request!.prompt).toContain(`under about ${MODEL_SUMMARY_MAX_TOKENS} tokens`);
    // 1.5 × the summary asked for + 512 for the memories: 2,762, where 2 × 8,000 + 512 was asked before.
    expect(request!.maxOutputTokens).toBe(2_762);
    // A longer answer is trimmed to the bound, which compaction planned with.
    expect(counter.countText(renderSummary(result.summary))).toBeLessThanOrEqual(
      MODEL_SUMMARY_MAX_TOKENS,
    );

    // A smaller room is what the model is asked for; a bound of one's own is honoured.
    await createModelSummarizer({ complete, counter, maxSummaryTokens: 400 }).summarize({
      messages,
      maxTokens: 300,
    });
    expect(complete.requests[1]!.prompt).toContain('under about 300 tokens');
    expect(complete.requests[1]!.maxOutputTokens).toBe(1_024);
  });

  it.each([
    ['an empty answer', ''],
    ['a whitespace answer', '  \n\t '],
    ['an empty summary', '{"summary": {"goal": []}, "memories": []}'],
  ])('throws SummarizerError for %s', async (_, answer) => {
    const summarizer = createModelSummarizer({
      complete: createScriptedComplete([answer]),
      counter,
    });
    const error = await rejection(summarizer.summarize({ messages, maxTokens: 500 }));
    expect(error.summarizer).toBe('model');
    expect(error.message).toMatch(/empty/);
  });

  it('throws SummarizerError when the call throws, keeping the cause', async () => {
    const cause = new Error('connection reset');
    const summarizer = createModelSummarizer({
      complete: createScriptedComplete([cause]),
      counter,
    });
    const error = await rejection(summarizer.summarize({ messages, maxTokens: 500 }));
    expect(error.message).toContain('connection reset');
    expect(error.cause).toBe(cause);
  });

  it('names a rate limit as such', async () => {
    const rateLimited = Object.assign(new Error('Too Many Requests'), { status: 429 });
    const summarizer = createModelSummarizer({
      complete: createScriptedComplete([rateLimited]),
      counter,
    });
    const error = await rejection(summarizer.summarize({ messages, maxTokens: 500 }));
    expect(error.message).toMatch(/rate limited/);
  });

  it('times out a slow call through its abort signal', async () => {
    const complete = createScriptedComplete(['hang']);
    const summarizer = createModelSummarizer({ complete, counter, timeoutMs: 20 });
    const error = await rejection(summarizer.summarize({ messages, maxTokens: 500 }));
    expect(error.message).toMatch(/timed out after 20 ms/);
    expect(complete.requests[0]!.abortSignal!.aborted).toBe(true);
  });

  it('stops waiting on timeout even when the call ignores its signal', async () => {
    const complete = createScriptedComplete([() => new Promise<string>(() => {})]);
    const summarizer = createModelSummarizer({ complete, counter, timeoutMs: 20 });
    const error = await rejection(summarizer.summarize({ messages, maxTokens: 500 }));
    expect(error.message).toMatch(/timed out/);
  });

  it("honours the caller's abort signal", async () => {
    const controller = new AbortController();
    const complete = createScriptedComplete(['hang']);
    const summarizer = createModelSummarizer({ complete, counter });
    const pending = summarizer.summarize({
      messages,
      maxTokens: 500,
      abortSignal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('user cancelled')), 10);
    const error = await rejection(pending);
    expect(error.message).toMatch(/aborted/);
    expect(complete.requests[0]!.abortSignal!.aborted).toBe(true);

    const before = createScriptedComplete([validAnswer]);
    await rejection(
      createModelSummarizer({ complete: before, counter }).summarize({
        messages,
        maxTokens: 500,
        abortSignal: controller.signal,
      }),
    );
    expect(before.requests).toHaveLength(0);
  });

  it('returns the previous summary without a call when there is nothing new', async () => {
    const complete = createScriptedComplete([]);
    const previousSummary: StructuredSummary = {
      sections: { ...emptySections(), goal: ['Ship it'] },
    };
    const result = await createModelSummarizer({ complete, counter }).summarize({
      messages: [],
      previousSummary,
      maxTokens: 500,
    });
    expect(result).toEqual({ summary: previousSummary, cards: [], calls: 0 });
  });

  describe('adaptive chunking', () => {
    const contextWindow = 4000;
    const many: Message[] = Array.from({ length: 120 }, (_, index) => ({
      id: `m${index + 1}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Message ${index + 1}: ${'lorem ipsum dolor sit amet '.repeat(12)}`,
    }));

    it('summarizes a large input in several calls, each prompt within the window', async () => {
      const complete = createScriptedComplete([echoingAnswer], { repeatLast: true });
      const summarizer = createModelSummarizer({ complete, counter, contextWindow });
      const result = await summarizer.summarize({ messages: many, maxTokens: 300 });
      expect(result.calls).toBeGreaterThan(1);
      expect(result.calls).toBe(complete.requests.length);
      for (const request of complete.requests) {
        const tokens =
          counter.countText(request.system ?? '') +
          counter.countText(request.prompt) +
          request.maxOutputTokens!;
        expect(tokens).toBeLessThanOrEqual(contextWindow);
      }
      // Every message is shown exactly once, in order.
      const shown = complete.requests.flatMap((request) =>
        [...request.prompt.matchAll(/^\[(\d+)\] /gm)].map((match) => Number(match[1])),
      );
      expect(shown).toEqual(many.map((_, index) => index + 1));
    });

    it("passes each chunk's summary to the next call as its previous summary", async () => {
      const complete = createScriptedComplete([echoingAnswer], { repeatLast: true });
      const summarizer = createModelSummarizer({ complete, counter, contextWindow });
      const result = await summarizer.summarize({ messages: many, maxTokens: 300 });
      complete.requests.slice(1).forEach((request, index) => {
        expect(request.prompt).toContain(`call ${index + 1} saw messages`);
        expect(request.prompt).toMatch(/New messages \(part \d+ of \d+\):/);
      });
      expect(result.summary.sections.background[0]).toMatch(
        new RegExp(`^call ${result.calls} saw`),
      );
    });

    it('makes one call when the input fits the window', async () => {
      const complete = createScriptedComplete([echoingAnswer]);
      const summarizer = createModelSummarizer({ complete, counter, contextWindow: 200_000 });
      const result = await summarizer.summarize({ messages: many, maxTokens: 300 });
      expect(result.calls).toBe(1);
      expect(complete.requests[0]!.prompt).not.toContain('part 1 of');
    });

    it('never sends an oversized message whole: only a head-and-tail excerpt with a note', async () => {
      const huge: Message = {
        id: 'huge',
        role: 'user',
        content: `HEAD ${'x'.repeat(20_000)} SECRET-MIDDLE ${'y'.repeat(20_000)} TAIL`,
      };
      const complete = createScriptedComplete([echoingAnswer], { repeatLast: true });
      const summarizer = createModelSummarizer({ complete, counter, contextWindow });
      await summarizer.summarize({ messages: [messages[0]!, huge, messages[1]!], maxTokens: 300 });
      const prompts = complete.requests.map((request) => request.prompt).join('\n');
      expect(prompts).not.toContain('SECRET-MIDDLE');
      expect(prompts).toContain('too large to include whole');
      expect(prompts).toContain('HEAD x');
      expect(prompts).toMatch(/y TAIL/);
      for (const request of complete.requests) {
        expect(
          counter.countText(request.system ?? '') +
            counter.countText(request.prompt) +
            request.maxOutputTokens!,
        ).toBeLessThanOrEqual(contextWindow);
      }
    });

    it('fails with SummarizerError when the window cannot hold a prompt at all', async () => {
      const summarizer = createModelSummarizer({
        complete: createScriptedComplete([validAnswer]),
        counter,
        contextWindow: 1000,
      });
      const error = await rejection(summarizer.summarize({ messages, maxTokens: 300 }));
      expect(error.message).toMatch(/leaves only/);
    });
  });

  it('rejects bad options with InvalidArgumentError', () => {
    const complete = createScriptedComplete([]);
    for (const options of [
      { complete: undefined as never, counter },
      { complete, counter: undefined as never },
      { complete, counter, contextWindow: 0 },
      { complete, counter, timeoutMs: -1 },
      { complete, counter, contextWindow: 1000, maxOutputTokens: 1000 },
      { complete, counter, maxSummaryTokens: 0 },
      { complete, counter, maxSummaryTokens: 1.5 },
    ]) {
      let caught: unknown;
      try {
        createModelSummarizer(options);
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught)).toBe(true);
    }
  });
});

describe('createModelSummarizer when the model rejects a prompt as too long', () => {
  /** Many messages, so that a smaller window means smaller prompts. */
  const long: Message[] = Array.from({ length: 40 }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Message ${index}: ${'the parser keeps every quoted field as it is '.repeat(12)}`,
  }));

  /**
   * A model behind a vLLM server with a smaller window than configured: it counts 1.5 times what
   * ctxmem counts and answers with vLLM's own rejection (vllm-project/vllm, the OpenAI server's
   * input check: "This model's maximum context length is N tokens. However, your request has M
   * input tokens.").
   */
  function smallerModel(limit: number) {
    const prompts: number[] = [];
    const complete = async (request: CompleteRequest) => {
      const tokens = Math.ceil(
        1.5 * (counter.countText(request.system ?? '') + counter.countText(request.prompt)),
      );
      prompts.push(tokens);
      if (tokens + (request.maxOutputTokens ?? 0) > limit) {
        throw Object.assign(
          new Error(
            `${limit === 0 ? '' : 'http://vllm/v1/chat/completions answered HTTP 400: '}This model's maximum context length is ${limit} tokens. However, your request has ${tokens} input tokens. Please reduce the length of the input messages.`,
          ),
          { status: 400 },
        );
      }
      return validAnswer;
    };
    return { complete, prompts };
  }

  it('summarizes a smaller input once, and starts later summaries at that size', async () => {
    const model = smallerModel(6_000);
    const summarizer = createModelSummarizer({
      complete: model.complete,
      counter,
      contextWindow: 16_000,
    });
    const result = await summarizer.summarize({ messages: long, maxTokens: 300 });
    expect(result.summary.sections.goal).toEqual(['Build a CSV to JSON converter.']);
    const rejected = model.prompts.filter((tokens) => tokens > 6_000 - 1_112).length;
    expect(rejected).toBe(1);
    // The next summary is planned in the smaller window from the start: no rejection.
    const before = model.prompts.length;
    await summarizer.summarize({ messages: long, maxTokens: 300 });
    expect(model.prompts.slice(before).every((tokens) => tokens + 1_112 <= 6_000)).toBe(true);
  });

  it('fails with kind context-overflow when the smaller input is rejected too', async () => {
    const complete = createScriptedComplete(
      [
        Object.assign(new Error('Input is too long for requested model.'), {
          name: 'ValidationException',
          $metadata: { httpStatusCode: 400 },
        }),
      ],
      { repeatLast: true },
    );
    const summarizer = createModelSummarizer({ complete, counter, contextWindow: 16_000 });
    const error = await rejection(summarizer.summarize({ messages: long, maxTokens: 300 }));
    expect(error.kind).toBe('context-overflow');
    expect(complete.requests).toHaveLength(2);
  });

  it('falls back to the extractive summary with a summarizer-fallback event in a manager', async () => {
    const complete = createScriptedComplete(
      [
        // The OpenAI Responses API's rejection, without numbers (anomalyco/opencode#6071).
        Object.assign(
          new Error(
            'Your input exceeds the context window of this model. Please adjust your input and try again.',
          ),
          { status: 400, code: 'context_length_exceeded' },
        ),
      ],
      { repeatLast: true },
    );
    const events: string[] = [];
    const manager = createContextManager({
      contextWindow: 4_000,
      counter,
      modelSummarizer: { complete, contextWindow: 16_000, name: 'too-long' },
      onEvent: (event) => {
        if (event.type === 'summarizer-fallback') events.push(event.reason);
      },
    });
    const result = await manager.prepare([...long, { role: 'user', content: 'Go on.' }], {
      force: true,
    });
    expect(result.compacted).toBe(true);
    expect(events.some((reason) => /too long/.test(reason))).toBe(true);
    expect(result.report?.strategies.find((strategy) => strategy.fallback)?.fallback?.kind).toBe(
      'context-overflow',
    );
  });
});
