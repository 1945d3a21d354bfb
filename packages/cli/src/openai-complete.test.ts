import { ContextOverflowError, InvalidArgumentError } from '@ctxmem/core';
import { describe, expect, it } from 'vitest';
import { createOpenAICompatibleComplete } from './index.js';

interface RecordedRequest {
  url: string;
  init: RequestInit;
  body: Record<string, unknown>;
}

function fakeFetch(respond: () => Response) {
  const requests: RecordedRequest[] = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    requests.push({
      url: String(url),
      init: init ?? {},
      body: JSON.parse(String(init?.body)) as Record<string, unknown>,
    });
    return respond();
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

const answer = (content: unknown, finishReason?: string) =>
  new Response(
    JSON.stringify({
      choices: [
        {
          message: { role: 'assistant', content },
          ...(finishReason ? { finish_reason: finishReason } : {}),
        },
      ],
    }),
    { status: 200 },
  );

describe('createOpenAICompatibleComplete', () => {
  it('reports why the model stopped, so a cut-off answer is not taken for a whole one', async () => {
    const cut = createOpenAICompatibleComplete({
      apiKey: 'sk-test',
      model: 'gpt-4o-mini',
      fetch: fakeFetch(() => answer('{"summary":{"keyFacts":["a', 'length')).fetch,
    });
    expect(await cut({ prompt: 'x' })).toEqual({
      text: '{"summary":{"keyFacts":["a',
      finishReason: 'length',
    });
    const filtered = createOpenAICompatibleComplete({
      apiKey: 'sk-test',
      model: 'gpt-4o-mini',
      fetch: fakeFetch(() => answer('', 'content_filter')).fetch,
    });
    expect(await filtered({ prompt: 'x' })).toEqual({ text: '', finishReason: 'content-filter' });
  });

  it('posts a chat completion and returns the answer', async () => {
    const { fetch, requests } = fakeFetch(() => answer('{"summary":{}}'));
    const complete = createOpenAICompatibleComplete({
      apiKey: 'sk-test',
      model: 'gpt-4o-mini',
      fetch,
    });
    const text = await complete({
      system: 'You summarize.',
      prompt: 'Summarize this.',
      maxOutputTokens: 500,
      responseFormat: 'json',
    });
    expect(text).toEqual({ text: '{"summary":{}}' });
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(request!.init.method).toBe('POST');
    expect((request!.init.headers as Record<string, string>).authorization).toBe('Bearer sk-test');
    expect(request!.body).toEqual({
      model: 'gpt-4o-mini',
      temperature: 0,
      messages: [
        { role: 'system', content: 'You summarize.' },
        { role: 'user', content: 'Summarize this.' },
      ],
      max_completion_tokens: 500,
      response_format: { type: 'json_object' },
    });
  });

  it('uses max_tokens and the given base URL for other OpenAI-compatible servers', async () => {
    const { fetch, requests } = fakeFetch(() => answer('ok'));
    const complete = createOpenAICompatibleComplete({
      apiKey: 'local',
      model: 'qwen2.5',
      baseUrl: 'http://localhost:11434/v1/',
      fetch,
    });
    await complete({ prompt: 'hi', maxOutputTokens: 50 });
    expect(requests[0]!.url).toBe('http://localhost:11434/v1/chat/completions');
    expect(requests[0]!.body.max_tokens).toBe(50);
    expect(requests[0]!.body).not.toHaveProperty('response_format');
    expect(requests[0]!.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('throws with the API error message on a non-2xx answer, without the key', async () => {
    const { fetch } = fakeFetch(
      () =>
        new Response(JSON.stringify({ error: { message: 'Rate limit reached' } }), { status: 429 }),
    );
    const complete = createOpenAICompatibleComplete({
      apiKey: 'sk-secret',
      model: 'gpt-4o',
      fetch,
    });
    const failure = await complete({ prompt: 'x' }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('HTTP 429');
    expect((failure as Error).message).toContain('Rate limit reached');
    expect((failure as Error).message).not.toContain('sk-secret');
  });

  it("throws ContextOverflowError with the server's numbers when it rejects the prompt as too long", async () => {
    // mckaywrigley/chatbot-ui#102: OpenAI's context_length_exceeded with its numbers.
    const body = {
      error: {
        message:
          "This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    };
    const complete = createOpenAICompatibleComplete({
      apiKey: 'sk-secret-key',
      model: 'gpt-3.5-turbo',
      fetch: fakeFetch(() => new Response(JSON.stringify(body), { status: 400 })).fetch,
    });
    const error = await complete({ prompt: 'x' }).catch((caught: unknown) => caught);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ providerTokens: 3_120, outputTokens: 1_000, limitTokens: 4_097 });
    expect((error as Error).message).not.toContain('sk-secret-key');
    // Any other 400 stays a plain error.
    const other = createOpenAICompatibleComplete({
      apiKey: 'sk-test',
      model: 'gpt-4o-mini',
      fetch: fakeFetch(
        () =>
          new Response(JSON.stringify({ error: { message: 'Invalid value for temperature' } }), {
            status: 400,
          }),
      ).fetch,
    });
    const plain = await other({ prompt: 'x' }).catch((caught: unknown) => caught);
    expect(ContextOverflowError.isInstance(plain)).toBe(false);
  });

  it('throws on an answer without content or with a body that is not JSON', async () => {
    const noContent = createOpenAICompatibleComplete({
      apiKey: 'k',
      model: 'm',
      fetch: fakeFetch(() => answer(null)).fetch,
    });
    await expect(noContent({ prompt: 'x' })).rejects.toThrow(/without choices/);
    const notJson = createOpenAICompatibleComplete({
      apiKey: 'k',
      model: 'm',
      fetch: fakeFetch(() => new Response('<html>bad gateway</html>', { status: 200 })).fetch,
    });
    await expect(notJson({ prompt: 'x' })).rejects.toThrow(/invalid JSON/);
  });

  it('passes the abort signal to fetch', async () => {
    const { fetch, requests } = fakeFetch(() => answer('ok'));
    const controller = new AbortController();
    const complete = createOpenAICompatibleComplete({ apiKey: 'k', model: 'm', fetch });
    await complete({ prompt: 'x', abortSignal: controller.signal });
    expect(requests[0]!.init.signal).toBe(controller.signal);
  });

  it('rejects an empty key, an empty model and a malformed base URL', () => {
    for (const options of [
      { apiKey: ' ', model: 'm' },
      { apiKey: 'k', model: '' },
      { apiKey: 'k', model: 'm', baseUrl: 'not a url' },
    ]) {
      expect(() => createOpenAICompatibleComplete(options)).toThrow();
      try {
        createOpenAICompatibleComplete(options);
      } catch (error) {
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
      }
    }
  });
});
