import { createTokenCounter, InvalidMessageError, type Message, messageText } from '@ctxmem/core';
import { brokenHistories } from '@ctxmem/core/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AI_SDK_PROMPT_OPTIONS_KEY,
  fromV3Prompt,
  fromV4Prompt,
  type PromptProviderOptions,
  toV3Prompt,
  toV4Prompt,
  type V3Message,
  type V4FileData,
  type V4Message,
} from './index.js';

// ---------------------------------------------------------------------------------------------
// Arbitraries: AI SDK prompts with every part type, providerOptions on messages and parts.

const providerOptions: fc.Arbitrary<PromptProviderOptions | undefined> = fc.option(
  fc.constantFrom<PromptProviderOptions>(
    { anthropic: { cacheControl: { type: 'ephemeral' } } },
    { openai: { imageDetail: 'low', store: false } },
    { google: { thoughtSignature: 'sig-1', nested: { list: [1, 'two', null] } } },
    {},
  ),
  { nil: undefined },
);

const withOptions = <Part extends object>(part: fc.Arbitrary<Part>) =>
  fc
    .tuple(part, providerOptions)
    .map(([value, options]) =>
      options === undefined ? value : { ...value, providerOptions: options },
    );

const text = fc.string({ maxLength: 40 });
const jsonValue = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<never>;
const bytes = fc.uint8Array({ maxLength: 16 });
const base64 = bytes.map((value) => Buffer.from(value).toString('base64'));
const url = fc.constantFrom('https://example.com/a.png', 'https://example.com/docs/report.pdf');
const mediaType = fc.constantFrom('image/png', 'application/pdf', 'image', 'text/plain');
const filename = fc.option(fc.constantFrom('report.pdf', 'plot.png'), { nil: undefined });

const fileData = fc.oneof(
  bytes.map((data) => ({ type: 'data' as const, data })),
  base64.map((data) => ({ type: 'data' as const, data })),
  url.map((href) => ({ type: 'url' as const, url: new URL(href) })),
  url.map((href) => ({
    type: 'url' as const,
    url: new URL(href),
    originalUrl: `s3://bucket/${href.length}`,
  })),
  fc
    .constantFrom({ openai: 'file-abc' }, { anthropic: 'file_01', google: 'files/x' })
    .map((reference) => ({ type: 'reference' as const, reference })),
  text.map((value) => ({ type: 'text' as const, text: value })),
) as fc.Arbitrary<V4FileData>;

const textPart = withOptions(text.map((value) => ({ type: 'text' as const, text: value })));
const v4FilePart = withOptions(
  fc.tuple(fileData, mediaType, filename).map(([data, type, name]) => ({
    type: 'file' as const,
    data,
    mediaType: type,
    ...(name === undefined ? {} : { filename: name }),
  })),
);
const v3FilePart = withOptions(
  fc
    .tuple(
      fc.oneof(
        bytes,
        base64,
        url.map((href) => new URL(href)),
      ),
      mediaType,
      filename,
    )
    .map(([data, type, name]) => ({
      type: 'file' as const,
      data,
      mediaType: type,
      ...(name === undefined ? {} : { filename: name }),
    })),
);
const reasoningPart = withOptions(
  text.map((value) => ({ type: 'reasoning' as const, text: value })),
);
const reasoningFilePart = withOptions(
  fc
    .tuple(
      fileData.filter((data) => data.type === 'data' || data.type === 'url'),
      fc.constantFrom('image/png', 'image/webp'),
    )
    .map(([data, type]) => ({ type: 'reasoning-file' as const, data, mediaType: type })),
) as fc.Arbitrary<never>;
const customPart = withOptions(
  fc.constantFrom('openai.compaction', 'anthropic.container').map((kind) => ({
    type: 'custom' as const,
    kind: kind as `${string}.${string}`,
  })),
);
const toolCallPart = withOptions(
  fc
    .tuple(
      fc.uuid(),
      fc.constantFrom('search', 'read_file'),
      jsonValue,
      fc.option(fc.boolean(), { nil: undefined }),
    )
    .map(([id, name, input, providerExecuted]) => ({
      type: 'tool-call' as const,
      toolCallId: id,
      toolName: name,
      input,
      ...(providerExecuted === undefined ? {} : { providerExecuted }),
    })),
);

function outputs(contentItem: fc.Arbitrary<object>) {
  return fc.oneof(
    withOptions(text.map((value) => ({ type: 'text' as const, value }))),
    withOptions(jsonValue.map((value) => ({ type: 'json' as const, value }))),
    withOptions(text.map((value) => ({ type: 'error-text' as const, value }))),
    withOptions(jsonValue.map((value) => ({ type: 'error-json' as const, value }))),
    withOptions(
      fc.option(text, { nil: undefined }).map((reason) => ({
        type: 'execution-denied' as const,
        ...(reason === undefined ? {} : { reason }),
      })),
    ),
    fc.array(contentItem, { maxLength: 3 }).map((value) => ({ type: 'content' as const, value })),
  );
}

const v4ContentItem = fc.oneof(
  withOptions(text.map((value) => ({ type: 'text' as const, text: value }))),
  withOptions(
    fc
      .tuple(fileData, mediaType)
      .map(([data, type]) => ({ type: 'file' as const, data, mediaType: type })),
  ),
  withOptions(fc.constant({ type: 'custom' as const })),
);
const v3ContentItem = fc.oneof(
  withOptions(text.map((value) => ({ type: 'text' as const, text: value }))),
  withOptions(
    base64.map((data) => ({ type: 'file-data' as const, data, mediaType: 'application/pdf' })),
  ),
  withOptions(url.map((href) => ({ type: 'image-url' as const, url: href }))),
  withOptions(fc.constant({ type: 'file-id' as const, fileId: { openai: 'file-1' } })),
);

const toolResultPart = (contentItem: fc.Arbitrary<object>) =>
  withOptions(
    fc.tuple(fc.uuid(), outputs(contentItem)).map(([id, output]) => ({
      type: 'tool-result' as const,
      toolCallId: id,
      toolName: 'search',
      output,
    })),
  );
const approvalResponsePart = withOptions(
  fc
    .tuple(fc.uuid(), fc.boolean(), fc.option(text, { nil: undefined }))
    .map(([id, approved, reason]) => ({
      type: 'tool-approval-response' as const,
      approvalId: id,
      approved,
      ...(reason === undefined ? {} : { reason }),
    })),
);

const message = <Part>(role: string, parts: fc.Arbitrary<Part>) =>
  withOptions(fc.array(parts, { maxLength: 4 }).map((content) => ({ role, content })));

const v4Message = fc.oneof(
  withOptions(text.map((content) => ({ role: 'system', content }))),
  message('user', fc.oneof(textPart, v4FilePart)),
  message(
    'assistant',
    fc.oneof(
      textPart,
      v4FilePart,
      customPart,
      reasoningPart,
      reasoningFilePart,
      toolCallPart,
      toolResultPart(v4ContentItem),
    ),
  ),
  message('tool', fc.oneof(toolResultPart(v4ContentItem), approvalResponsePart)),
) as fc.Arbitrary<V4Message>;

const v3Message = fc.oneof(
  withOptions(text.map((content) => ({ role: 'system', content }))),
  message('user', fc.oneof(textPart, v3FilePart)),
  message(
    'assistant',
    fc.oneof(textPart, v3FilePart, reasoningPart, toolCallPart, toolResultPart(v3ContentItem)),
  ),
  message('tool', fc.oneof(toolResultPart(v3ContentItem), approvalResponsePart)),
) as fc.Arbitrary<V3Message>;

const v4Prompt = fc.array(v4Message, { maxLength: 12 });
const v3Prompt = fc.array(v3Message, { maxLength: 12 });

const counter = createTokenCounter();

/** Freezes plain objects and arrays deeply, so that any mutation throws in strict mode. */
function deepFreeze<Value>(value: Value): Value {
  if (
    Array.isArray(value) ||
    (typeof value === 'object' &&
      value !== null &&
      Object.getPrototypeOf(value) === Object.prototype)
  ) {
    for (const item of Object.values(value as object)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

function hasMarker(value: unknown): boolean {
  return JSON.stringify(value, (_key, item) => (item instanceof Uint8Array ? [] : item)).includes(
    AI_SDK_PROMPT_OPTIONS_KEY,
  );
}

// ---------------------------------------------------------------------------------------------

describe('V4 prompt ⇄ core messages', () => {
  it('round-trips every prompt losslessly, without touching the input', () => {
    fc.assert(
      fc.property(v4Prompt, (prompt) => {
        const messages = fromV4Prompt(deepFreeze(prompt));
        const back = toV4Prompt(deepFreeze(messages));
        expect(back).toEqual(prompt);
        expect(hasMarker(back)).toBe(false);
        // Core can count and read every converted history.
        expect(counter.countMessages(messages)).toBeGreaterThan(0);
        for (const converted of messages) messageText(converted);
      }),
      { numRuns: 200 },
    );
  });

  it('returns messages that need no change as the same objects, both ways', () => {
    fc.assert(
      fc.property(v4Prompt, (prompt) => {
        const messages = fromV4Prompt(prompt);
        const back = toV4Prompt(messages);
        prompt.forEach((original, index) => {
          if (messages[index] === (original as unknown)) expect(back[index]).toBe(original);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('gives core plain file data and keeps what core has no field for in a marker', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const image = new URL('https://example.com/cat.png');
    const messages = fromV4Prompt([
      {
        role: 'user',
        content: [
          { type: 'file', data: { type: 'data', data: bytes }, mediaType: 'image/png' },
          { type: 'file', data: { type: 'url', url: image }, mediaType: 'image/png' },
          {
            type: 'file',
            data: { type: 'text', text: 'inline notes' },
            mediaType: 'text/plain',
            filename: 'notes.txt',
          },
          {
            type: 'file',
            data: { type: 'reference', reference: { openai: 'file-1' } },
            mediaType: 'application/pdf',
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning-file', data: { type: 'data', data: 'AAAA' }, mediaType: 'image/png' },
          { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'c1' } } },
        ],
      },
    ]);
    const [user, assistant] = messages as [
      Message & { content: unknown[] },
      Message & { content: unknown[] },
    ];
    expect(user.content[0]).toEqual({ type: 'file', data: bytes, mediaType: 'image/png' });
    expect(user.content[1]).toEqual({ type: 'file', data: image, mediaType: 'image/png' });
    // Inline text is text to core: counted and summarized as such.
    expect(user.content[2]).toMatchObject({ type: 'text', text: 'inline notes' });
    expect(user.content[3]).toMatchObject({ type: 'file', data: '', mediaType: 'application/pdf' });
    expect(assistant.content[0]).toMatchObject({
      type: 'file',
      data: 'AAAA',
      mediaType: 'image/png',
    });
    // Custom parts stay opaque and in place.
    expect(assistant.content[1]).toEqual({
      type: 'custom',
      kind: 'openai.compaction',
      providerOptions: { openai: { id: 'c1' } },
    });
    expect(messageText(messages[0]!)).toContain('inline notes');
  });

  it('writes messages ctxmem created as plain prompt messages', () => {
    const prompt = toV4Prompt([
      { role: 'system', content: '## Context Summary\n- goal', ctxmem: { kind: 'summary' } },
      {
        role: 'user',
        content: '## Relevant Memories',
        ctxmem: { kind: 'memory-injection' },
        id: 'm1',
      },
      { role: 'assistant', content: 'record', name: 'bot', ctxmem: { kind: 'tool-run-record' } },
      {
        role: 'user',
        content: [
          { type: 'image', image: 'https://example.com/a.png' },
          { type: 'file', data: 'data:application/pdf;base64,QUJD', mediaType: 'application/pdf' },
          { type: 'file', data: new Uint8Array([7]).buffer, mediaType: 'image/png' },
        ],
      },
    ]);
    expect(prompt).toEqual([
      { role: 'system', content: '## Context Summary\n- goal' },
      { role: 'user', content: [{ type: 'text', text: '## Relevant Memories' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'record' }] },
      {
        role: 'user',
        content: [
          {
            type: 'file',
            data: { type: 'url', url: new URL('https://example.com/a.png') },
            mediaType: 'image',
          },
          { type: 'file', data: { type: 'data', data: 'QUJD' }, mediaType: 'application/pdf' },
          {
            type: 'file',
            data: { type: 'data', data: new Uint8Array([7]) },
            mediaType: 'image/png',
          },
        ],
      },
    ]);
  });

  it('leaves providerOptions under the marker key alone when they are not a marker', () => {
    const prompt: V4Message[] = [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: 'hi',
            providerOptions: { [AI_SDK_PROMPT_OPTIONS_KEY]: { mine: 1 } },
          },
        ],
      },
    ];
    expect(toV4Prompt(fromV4Prompt(prompt))).toEqual(prompt);
  });

  it('rejects malformed prompts with a typed error naming the place', () => {
    const cases: Array<[unknown, string]> = [
      ['not an array', 'prompt'],
      [[{ role: 'robot', content: [] }], 'prompt[0].role'],
      [[{ role: 'system', content: [] }], 'prompt[0].content'],
      [[{ role: 'user', content: 'text' }], 'prompt[0].content'],
      [[{ role: 'user', content: [{ text: 'no type' }] }], 'prompt[0].content[0]'],
      [
        [{ role: 'user', content: [{ type: 'file', data: { type: 'blob' }, mediaType: 'x/y' }] }],
        'prompt[0].content[0].data.type',
      ],
    ];
    for (const [input, path] of cases) {
      let caught: unknown;
      try {
        fromV4Prompt(input as V4Message[]);
      } catch (error) {
        caught = error;
      }
      expect(InvalidMessageError.isInstance(caught), String(path)).toBe(true);
      expect((caught as InvalidMessageError).path).toBe(path);
    }
  });
});

describe('prompts that cannot be sent', () => {
  // Protection: the converters walk each prompt message once and read the prompt by index.
  // Without that a hole comes back as a hole (`map` skips it) and a cycle passes through.
  it.each(brokenHistories().map((broken) => [broken.name, broken] as const))(
    'rejects %s with InvalidMessageError naming the place, in V4 and V3',
    (_name, broken) => {
      const path = broken.path.replace(/^messages/, 'prompt');
      const prompts: Array<[string, () => unknown]> = [
        ['v4', () => fromV4Prompt(broken.corrupt(toV4Prompt(broken.clean())) as V4Message[])],
        ['v3', () => fromV3Prompt(broken.corrupt(toV3Prompt(broken.clean())) as V3Message[])],
      ];
      for (const [version, convert] of prompts) {
        let caught: unknown;
        try {
          convert();
        } catch (error) {
          caught = error;
        }
        expect(InvalidMessageError.isInstance(caught), version).toBe(true);
        expect((caught as InvalidMessageError).path, version).toBe(path);
        expect((caught as InvalidMessageError).message, version).toContain(broken.problem);
      }
    },
  );
});

describe('V3 prompt ⇄ core messages', () => {
  it('round-trips every prompt losslessly and with the same objects', () => {
    fc.assert(
      fc.property(v3Prompt, (prompt) => {
        const messages = fromV3Prompt(prompt);
        messages.forEach((converted, index) => {
          expect(converted).toBe(prompt[index]);
        });
        const back = toV3Prompt(messages);
        back.forEach((converted, index) => {
          expect(converted).toBe(prompt[index]);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('writes core-only shapes as V3 parts', () => {
    expect(
      toV3Prompt([
        { role: 'user', content: 'hello', ctxmem: { kind: 'memory-injection' } },
        {
          role: 'user',
          content: [{ type: 'image', image: new Uint8Array([1]), mediaType: 'image/png' }],
        },
      ]),
    ).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      {
        role: 'user',
        content: [{ type: 'file', data: new Uint8Array([1]), mediaType: 'image/png' }],
      },
    ]);
  });

  it('leaves out custom parts, which AI SDK 6 prompts cannot hold', () => {
    // A history written by an AI SDK 7 stream (`anthropic.message_start`), sent to an AI SDK 6 model.
    expect(
      toV3Prompt([
        {
          role: 'assistant',
          content: [
            { type: 'custom', kind: 'anthropic.message_start', providerOptions: { anthropic: {} } },
            { type: 'text', text: 'hi' },
          ],
        },
      ]),
    ).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'hi' }] }]);
  });
});
