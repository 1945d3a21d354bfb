import { describe, expect, it } from 'vitest';
import type { Message, Summarizer, TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError, SummarizerError } from '../errors/index.js';
import { createFailingSummarizer, createScriptedComplete } from '../test/summarizers.js';
import {
  createExtractiveSummarizer,
  createModelSummarizer,
  renderSummary,
  withCircuitBreaker,
  withFallback,
} from './index.js';

const counter: TokenCounter = {
  name: 'chars/4',
  promptOverhead: 3,
  countText: (text) => Math.ceil(text.length / 4),
  countMessage: () => 4,
  countMessages: (messages) => 3 + 4 * messages.length,
};

const messages: Message[] = [
  { id: 'u1', role: 'user', content: 'Plan the migration. We decided to use Postgres 16.' },
];

const extractive = createExtractiveSummarizer({ counter });

describe('withFallback', () => {
  it('returns the primary result untouched when the primary works', async () => {
    const answer = '{"summary": {"decisions": ["Use Postgres 16."]}}';
    const model = createModelSummarizer({ complete: createScriptedComplete([answer]), counter });
    const result = await withFallback(model, extractive).summarize({ messages, maxTokens: 300 });
    expect(result.fallback).toBeUndefined();
    expect(result.calls).toBe(1);
    expect(result.summary.sections.decisions).toEqual(['Use Postgres 16.']);
  });

  it("plans with the primary's summary bound: the fallback is the exception", () => {
    const model = createModelSummarizer({
      complete: createScriptedComplete([]),
      counter,
      maxSummaryTokens: 700,
    });
    expect(withFallback(model, extractive).maxSummaryTokens).toBe(700);
    expect(withCircuitBreaker(model).maxSummaryTokens).toBe(700);
    expect(withFallback(extractive, model).maxSummaryTokens).toBeUndefined();
  });

  it("asks a fallback for no more than the primary's bound", async () => {
    const model = createModelSummarizer({
      complete: createScriptedComplete([new Error('down')]),
      counter,
      maxSummaryTokens: 40,
    });
    const fallback = createFailingSummarizer('also down');
    await withFallback(model, fallback)
      .summarize({ messages, maxTokens: 300 })
      .catch(() => {});
    expect(fallback.requests[0]!.maxTokens).toBe(40);
  });

  it('falls back to the extractive summarizer and reports from where and why', async () => {
    const model = createModelSummarizer({
      complete: createScriptedComplete([new Error('HTTP 500')]),
      counter,
    });
    const chain = withFallback(model, extractive);
    expect(chain.name).toBe('model>extractive');
    const result = await chain.summarize({ messages, maxTokens: 300 });
    expect(result.fallback).toEqual({
      from: 'model',
      reason: expect.stringContaining('HTTP 500'),
      // The kind and the class of the provider's error, without its words.
      kind: 'error',
      errorClass: 'Error',
    });
    expect(renderSummary(result.summary)).toContain('We decided to use Postgres 16');
  });

  it('tries every fallback in order and names each failure', async () => {
    const first = createFailingSummarizer('first broke', { name: 'first' });
    const second = createFailingSummarizer('second broke', { name: 'second' });
    const result = await withFallback(first, second, extractive).summarize({
      messages,
      maxTokens: 300,
    });
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);
    expect(result.fallback).toEqual({
      from: 'first',
      reason: 'first broke; then second: second broke',
      kind: 'error',
      errorClass: 'CtxmemSummarizerError',
    });
  });

  it('throws SummarizerError listing every reason when all fail', async () => {
    const last = new Error('last broke');
    const chain = withFallback(
      createFailingSummarizer('first broke', { name: 'first' }),
      createFailingSummarizer(last, { name: 'second' }),
    );
    let caught: unknown;
    try {
      await chain.summarize({ messages, maxTokens: 300 });
    } catch (error) {
      caught = error;
    }
    expect(SummarizerError.isInstance(caught)).toBe(true);
    expect((caught as SummarizerError).message).toContain('first: first broke; second: last broke');
    expect((caught as SummarizerError).cause).toBe(last);
  });

  it('does not fall back once the caller aborted', async () => {
    const controller = new AbortController();
    const model = createModelSummarizer({ complete: createScriptedComplete(['hang']), counter });
    const fallback = createFailingSummarizer('must not run', { name: 'fallback' });
    const pending = withFallback(model, fallback).summarize({
      messages,
      maxTokens: 300,
      abortSignal: controller.signal,
    });
    controller.abort();
    let caught: unknown;
    try {
      await pending;
    } catch (error) {
      caught = error;
    }
    expect(SummarizerError.isInstance(caught)).toBe(true);
    expect(fallback.requests).toHaveLength(0);
  });

  it('does not hide a bad request behind a fallback', async () => {
    const fallback = createFailingSummarizer('must not run', { name: 'fallback' });
    await expect(
      withFallback(extractive, fallback).summarize({ messages, maxTokens: 0 }),
    ).rejects.toSatisfy(InvalidArgumentError.isInstance);
    expect(fallback.requests).toHaveLength(0);
  });

  it('rejects arguments that are not summarizers', () => {
    expect(() => withFallback(extractive, {} as Summarizer)).toThrowError(
      expect.objectContaining({ name: 'CtxmemInvalidArgumentError' }),
    );
  });
});

describe('summarizer test doubles', () => {
  it('createScriptedComplete plays its steps in order, records requests and reports running out', async () => {
    const complete = createScriptedComplete([
      'first',
      (request, callIndex) => `${request.prompt}#${callIndex}`,
      new Error('boom'),
    ]);
    expect(await complete({ prompt: 'a' })).toBe('first');
    expect(await complete({ prompt: 'b' })).toBe('b#1');
    await expect(complete({ prompt: 'c' })).rejects.toThrow('boom');
    await expect(complete({ prompt: 'd' })).rejects.toThrow(/no step for call 4/);
    expect(complete.requests.map((request) => request.prompt)).toEqual(['a', 'b', 'c', 'd']);
  });

  it("createScriptedComplete's 'hang' settles only when aborted", async () => {
    const complete = createScriptedComplete(['hang']);
    const controller = new AbortController();
    const pending = complete({ prompt: 'x', abortSignal: controller.signal });
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('createScriptedComplete can repeat its last step', async () => {
    const complete = createScriptedComplete(['again'], { repeatLast: true });
    await complete({ prompt: '1' });
    expect(await complete({ prompt: '2' })).toBe('again');
  });

  it('createFailingSummarizer throws the given error, or a SummarizerError for a message', async () => {
    const error = new Error('custom');
    await expect(
      createFailingSummarizer(error).summarize({ messages, maxTokens: 10 }),
    ).rejects.toBe(error);
    await expect(
      createFailingSummarizer('broken').summarize({ messages, maxTokens: 10 }),
    ).rejects.toSatisfy(SummarizerError.isInstance);
  });
});
