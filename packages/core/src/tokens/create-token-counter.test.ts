import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { InvalidArgumentError, InvalidMessageError } from '../errors/index.js';
import { createTokenCounter } from './index.js';

// The reference: js-tiktoken's own encoder, with special tokens treated as text as ctxmem does.
const reference = {
  o200k_base: new Tiktoken(o200kBase),
  cl100k_base: new Tiktoken(cl100kBase),
};
const referenceCount = (encoding: keyof typeof reference, text: string) =>
  reference[encoding].encode(text, [], []).length;

const o200k = createTokenCounter({ encoding: 'o200k_base' });
const cl100k = createTokenCounter({ encoding: 'cl100k_base' });

/** A deterministic pseudo-random generator (mulberry32), so samples are the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function cjkRun(length: number, seed: number): string {
  const next = random(seed);
  let text = '';
  for (let index = 0; index < length; index++) {
    text += String.fromCharCode(0x4e00 + Math.floor(next() * 3000));
  }
  return text;
}

function base64(bytes: number, seed: number): string {
  const next = random(seed);
  return Buffer.from(Array.from({ length: bytes }, () => Math.floor(next() * 256))).toString(
    'base64',
  );
}

describe('countText', () => {
  it('matches known counts', () => {
    expect(o200k.countText('hello world')).toBe(2);
    expect(o200k.countText('')).toBe(0);
    expect(cl100k.countText('hello world')).toBe(2);
    expect(o200k.name).toBe('tiktoken:o200k_base');
    expect(cl100k.name).toBe('tiktoken:cl100k_base');
  });

  it.each([
    ['English prose', 'The quick brown fox jumps over the lazy dog, twice, in 2025!'],
    ['code', 'export const add = (a: number, b: number): number => a + b;\n'],
    ['Chinese', '上下文窗口虽然很大，但并不是免费的。发送的每一个词元都会带来费用和延迟。'],
    ['Japanese', 'コンテキストウィンドウは大きいですが、無料ではありません。'],
    ['mixed', 'Résumé: naïve café — 😀🎉 ok?\r\n\tdone'],
  ])('matches js-tiktoken on %s in both encodings', (_label, text) => {
    expect(o200k.countText(text)).toBe(referenceCount('o200k_base', text));
    expect(cl100k.countText(text)).toBe(referenceCount('cl100k_base', text));
  });

  it('counts special-token text as plain text instead of throwing', () => {
    const text = 'before <|endoftext|> after <|endofprompt|>';
    expect(o200k.countText(text)).toBe(referenceCount('o200k_base', text));
    expect(cl100k.countText(text)).toBe(referenceCount('cl100k_base', text));
  });

  it('matches js-tiktoken on random text from a mixed alphabet', () => {
    const alphabet = [
      ...'abeAZ09.,"{}/=-_\'',
      ' ',
      '  ',
      '\n',
      '\r\n',
      '\t',
      'é',
      'ß',
      'ы',
      '中',
      '文',
      'の',
      '한',
      '😀',
      '\u0301',
      '\ud800',
      'the',
      ' and',
      'ing',
      "'s",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        expect(o200k.countText(text)).toBe(referenceCount('o200k_base', text));
        expect(cl100k.countText(text)).toBe(referenceCount('cl100k_base', text));
      }),
      { numRuns: 200 },
    );
  });

  // These runs are single pre-tokenizer pieces long enough to take the linear-time merge; they are
  // kept small because js-tiktoken itself is quadratic on them.
  it.each([
    ['a CJK run', cjkRun(300, 1)],
    ['base64', base64(600, 2)],
    ['minified JSON', JSON.stringify(Array.from({ length: 40 }, (_, id) => ({ id, ok: true })))],
    ['one repeated letter', 'a'.repeat(600)],
    ['one repeated symbol', '='.repeat(600)],
    ['a long space run', `${' '.repeat(500)}x`],
    ['a long random word', 'qzjxkvbwpyfgmuclhdrsnioate'.repeat(20)],
    ['a run of capitals', 'A'.repeat(400)],
    ['combining marks', `a${'\u0301'.repeat(300)}`],
    ['tabs and line breaks', `${'\t'.repeat(300)}${'\r\n'.repeat(100)}x`],
    ['emoji', '😀🎉👍🏽'.repeat(60)],
    ['ideographic spaces', '\u3000'.repeat(300)],
  ])('counts %s exactly as js-tiktoken does', (_label, text) => {
    expect(o200k.countText(text)).toBe(referenceCount('o200k_base', text));
    expect(cl100k.countText(text)).toBe(referenceCount('cl100k_base', text));
  });

  it('counts a 100k-character CJK run in one piece', () => {
    // js-tiktoken cannot count this in reasonable time (it is quadratic); the count must be
    // consistent with counting the run's halves, which can differ only at the seam.
    const text = cjkRun(100_000, 3);
    const whole = o200k.countText(text);
    const halves = o200k.countText(text.slice(0, 50_000)) + o200k.countText(text.slice(50_000));
    expect(Math.abs(whole - halves)).toBeLessThanOrEqual(1);
    expect(whole).toBeGreaterThan(100_000);
  });

  it('rejects a non-string', () => {
    expect(() => o200k.countText(undefined as unknown as string)).toThrow(
      expect.objectContaining({ argument: 'text' }),
    );
  });
});

describe('countMessage', () => {
  const overhead = 3 + 1; // messageOverhead + role

  it('costs the overhead, the role and the content', () => {
    expect(o200k.countMessage({ role: 'user', content: 'hello world' })).toBe(overhead + 2);
    expect(o200k.countMessage({ role: 'user', content: '' })).toBe(overhead);
  });

  it('adds the name and one token for it', () => {
    const plain = o200k.countMessage({ role: 'user', content: 'hi' });
    expect(o200k.countMessage({ role: 'user', content: 'hi', name: 'alice' })).toBe(
      plain + 1 + o200k.countText('alice'),
    );
  });

  it('counts text and reasoning parts', () => {
    const message: Message = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'The user wants a greeting.' },
        { type: 'text', text: 'hello world' },
      ],
    };
    expect(o200k.countMessage(message)).toBe(
      overhead + o200k.countText('The user wants a greeting.') + 2,
    );
  });

  it('counts tool names and the JSON of call inputs', () => {
    const input = { city: 'Paris', days: [1, 2, 3], units: 'metric' };
    const message: Message = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input }],
    };
    const withoutFraming =
      overhead + o200k.countText('get_weather') + o200k.countText(JSON.stringify(input));
    expect(o200k.countMessage(message)).toBe(withoutFraming + 3);
    const bigger: Message = {
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call_1',
          toolName: 'get_weather',
          input: { ...input, note: 'a much longer argument that must be paid for' },
        },
      ],
    };
    expect(o200k.countMessage(bigger)).toBeGreaterThan(o200k.countMessage(message));
  });

  it('counts the text of tool results', () => {
    const result = (output: Extract<Message, { role: 'tool' }>['content'][number]): Message => ({
      role: 'tool',
      content: [output],
    });
    const framing = overhead + 3 + o200k.countText('search');
    expect(
      o200k.countMessage(
        result({
          type: 'tool-result',
          toolCallId: 'c',
          toolName: 'search',
          output: { type: 'text', value: 'three results found' },
        }),
      ),
    ).toBe(framing + o200k.countText('three results found'));
    const value = { hits: [{ title: 'Token counting', score: 0.93 }] };
    expect(
      o200k.countMessage(
        result({
          type: 'tool-result',
          toolCallId: 'c',
          toolName: 'search',
          output: { type: 'json', value },
        }),
      ),
    ).toBe(framing + o200k.countText(JSON.stringify(value)));
    expect(
      o200k.countMessage(
        result({
          type: 'tool-result',
          toolCallId: 'c',
          toolName: 'search',
          output: { type: 'execution-denied' },
        }),
      ),
    ).toBe(framing + o200k.countText('execution denied'));
  });

  it('charges images and files a fixed cost whatever their base64 size', () => {
    const counter = createTokenCounter({ imageTokens: 765, fileTokens: 250 });
    const image = (data: string): Message => ({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', image: data, mediaType: 'image/png' },
      ],
    });
    const small = counter.countMessage(image(base64(30, 4)));
    const large = counter.countMessage(image(base64(300_000, 5)));
    expect(small).toBe(large);
    expect(small).toBe(overhead + counter.countText('what is this?') + 765);
    const files: Message = {
      role: 'user',
      content: [
        { type: 'file', data: base64(90_000, 6), mediaType: 'application/pdf' },
        { type: 'file', data: new Uint8Array(50_000), mediaType: 'image/jpeg' },
      ],
    };
    expect(counter.countMessage(files)).toBe(overhead + 250 + 765);
    const media: Message = {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c',
          toolName: 'screenshot',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'done' },
              { type: 'media', data: base64(200_000, 7), mediaType: 'image/png' },
            ],
          },
        },
      ],
    };
    expect(counter.countMessage(media)).toBe(
      overhead + 3 + counter.countText('screenshot') + counter.countText('done') + 765,
    );
  });

  it('charges approvals a small fixed cost', () => {
    const request = o200k.countMessage({
      role: 'assistant',
      content: [{ type: 'tool-approval-request', approvalId: 'a', toolCallId: 'c' }],
    });
    expect(request).toBe(overhead + 5);
    const response = o200k.countMessage({
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: 'a', approved: false, reason: 'too risky' },
      ],
    });
    expect(response).toBe(overhead + 5 + o200k.countText('too risky'));
  });

  it('does not count ctxmem metadata or ids', () => {
    const plain: Message = { role: 'user', content: 'summary text' };
    expect(
      o200k.countMessage({
        ...plain,
        id: 'msg_0123456789',
        ctxmem: { kind: 'summary', replaces: ['a', 'b', 'c'], offloadIds: ['x'] },
      }),
    ).toBe(o200k.countMessage(plain));
  });

  it('counts unknown part types by their JSON rather than as free', () => {
    const message = {
      role: 'assistant',
      content: [{ type: 'source', url: 'https://example.com/a-long-source-url' }],
    } as unknown as Message;
    expect(o200k.countMessage(message)).toBeGreaterThan(overhead + 5);
  });

  it.each([
    ['a null message', null, 'message'],
    ['an unknown role', { role: 'robot', content: 'x' }, 'message.role'],
    ['a missing content', { role: 'user' }, 'message.content'],
    ['a system message with parts', { role: 'system', content: [] }, 'message.content'],
    ['a tool message with a string', { role: 'tool', content: 'x' }, 'message.content'],
    ['a part without a type', { role: 'user', content: [{ text: 'x' }] }, 'message.content[0]'],
    [
      'a text part without text',
      { role: 'user', content: [{ type: 'text' }] },
      'message.content[0].text',
    ],
    [
      'a tool output that is not an object',
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't' }] },
      'message.content[0].output',
    ],
  ])('rejects %s with InvalidMessageError and its path', (_label, message, path) => {
    expect(() => o200k.countMessage(message as unknown as Message)).toThrow(
      expect.objectContaining({ path }),
    );
    try {
      o200k.countMessage(message as unknown as Message);
    } catch (error) {
      expect(InvalidMessageError.isInstance(error)).toBe(true);
    }
  });

  it('rejects tool inputs that cannot be serialized', () => {
    const input: Record<string, unknown> = {};
    input.self = input;
    expect(() =>
      o200k.countMessage({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input }],
      }),
    ).toThrow(expect.objectContaining({ path: 'message.content[0].input' }));
  });
});

describe('countMessages', () => {
  const messages: Message[] = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { q: 'Paris' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'weather',
          output: { type: 'json', value: { celsius: 18 } },
        },
      ],
    },
    { role: 'assistant', content: '18 °C and sunny.' },
  ];

  it('equals the sum of countMessage plus promptOverhead', () => {
    for (const counter of [o200k, createTokenCounter({ promptOverhead: 11, messageOverhead: 0 })]) {
      const sum = messages.reduce((total, message) => total + counter.countMessage(message), 0);
      expect(counter.countMessages(messages)).toBe(sum + counter.promptOverhead);
    }
    expect(o200k.countMessages([])).toBe(3);
  });

  it('reports the index of a malformed message', () => {
    expect(() =>
      o200k.countMessages([messages[0]!, { role: 'user', content: 42 } as unknown as Message]),
    ).toThrow(expect.objectContaining({ path: 'messages[1].content' }));
    expect(() => o200k.countMessages('nope' as unknown as Message[])).toThrow(
      expect.objectContaining({ path: 'messages' }),
    );
  });
});

describe('caching', () => {
  function spyCounter(options: Parameters<typeof createTokenCounter>[0] = {}) {
    const calls: string[] = [];
    const counter = createTokenCounter({
      ...options,
      countText: (text) => {
        calls.push(text);
        return text.length;
      },
    });
    return { counter, calls };
  }

  const conversation = (count: number): Message[] =>
    Array.from({ length: count }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `message number ${index}`,
    }));

  it('counts a message object once', () => {
    const { counter, calls } = spyCounter();
    const message: Message = { role: 'user', content: 'hello' };
    const first = counter.countMessage(message);
    expect(counter.countMessage(message)).toBe(first);
    expect(calls).toEqual(['hello']);
  });

  it('recounts only the new message of a grown history, even as new objects', () => {
    const { counter, calls } = spyCounter();
    const history = conversation(200);
    const before = counter.countMessages(history);
    calls.length = 0;
    // An adapter converts the whole history into new objects on every call.
    const grown = [...structuredClone(history), { role: 'user', content: 'one more' } as Message];
    const after = counter.countMessages(grown);
    expect(calls).toEqual(['one more']);
    expect(after - before).toBe(counter.countMessage({ role: 'user', content: 'one more' }));
  });

  it('recounts only new or replaced messages when the same objects are passed again', () => {
    const { counter, calls } = spyCounter();
    const history = conversation(50);
    const before = counter.countMessages(history);
    calls.length = 0;
    const grown = [...history, { role: 'user', content: 'next' } as Message];
    expect(counter.countMessages(grown)).toBe(before + 3 + 1 + 4);
    expect(calls).toEqual(['next']);
    // Replacing a message in the middle changes the total by the difference, nothing else.
    const edited = [...grown];
    edited[10] = { role: 'user', content: 'x' };
    const expected = before + 3 + 1 + 4 - counter.countMessage(history[10]!) + 3 + 1 + 1;
    expect(counter.countMessages(edited)).toBe(expected);
    // Mutating the array that was passed must not leave a stale total behind.
    grown.length = 10;
    expect(counter.countMessages(grown)).toBe(
      grown.reduce((sum, message) => sum + counter.countMessage(message), 3),
    );
  });

  it('shares cache entries across ids and ctxmem metadata, which are not counted', () => {
    const { counter, calls } = spyCounter();
    counter.countMessage({ role: 'user', content: 'same', id: 'a' });
    counter.countMessage({ role: 'user', content: 'same', id: 'b', ctxmem: { kind: 'summary' } });
    expect(calls).toEqual(['same']);
  });

  it('tells apart messages that differ only in how text is split across parts', () => {
    const { counter, calls } = spyCounter();
    const split = (first: string, second: string): Message => ({
      role: 'user',
      content: [
        { type: 'text', text: first },
        { type: 'text', text: second },
      ],
    });
    counter.countMessage(split('hello', ' world'));
    counter.countMessage(split('hello ', 'world'));
    expect(calls).toEqual(['hello', ' world', 'hello ', 'world']);
  });

  it('keeps the content cache within cacheSize, forgetting the least recently used', () => {
    const { counter, calls } = spyCounter({ cacheSize: 2 });
    const fresh = (content: string): Message => ({ role: 'user', content });
    counter.countMessage(fresh('a'));
    counter.countMessage(fresh('b'));
    counter.countMessage(fresh('a')); // a is now the most recent
    counter.countMessage(fresh('c')); // evicts b
    calls.length = 0;
    counter.countMessage(fresh('a'));
    counter.countMessage(fresh('c'));
    expect(calls).toEqual([]);
    counter.countMessage(fresh('b'));
    expect(calls).toEqual(['b']);
  });

  it('with cacheSize 0 still caches by object but not by content', () => {
    const { counter, calls } = spyCounter({ cacheSize: 0 });
    const message: Message = { role: 'user', content: 'x' };
    counter.countMessage(message);
    counter.countMessage(message);
    counter.countMessage({ role: 'user', content: 'x' });
    expect(calls).toEqual(['x', 'x']);
  });

  it('keeps caches per counter, since costs depend on its options', () => {
    const message: Message = { role: 'user', content: 'hello' };
    const cheap = createTokenCounter({ messageOverhead: 0 });
    const dear = createTokenCounter({ messageOverhead: 10 });
    expect(dear.countMessage(message) - cheap.countMessage(message)).toBe(10);
  });
});

describe('options', () => {
  it.each([
    ['imageTokens', -1],
    ['fileTokens', 1.5],
    ['messageOverhead', Number.NaN],
    ['promptOverhead', '3'],
    ['cacheSize', -10],
  ])('rejects %s = %s', (argument, value) => {
    expect(() => createTokenCounter({ [argument]: value })).toThrow(
      expect.objectContaining({ argument }),
    );
  });

  it('rejects an unknown encoding', () => {
    let error: unknown;
    try {
      createTokenCounter({ encoding: 'p50k_base' as 'o200k_base' });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
  });

  it('picks the encoding from the model, with encoding winning', () => {
    expect(createTokenCounter({ model: 'gpt-4' }).name).toBe('tiktoken:cl100k_base');
    expect(createTokenCounter({ model: 'gpt-4o-mini' }).name).toBe('tiktoken:o200k_base');
    expect(createTokenCounter({ model: 'claude-sonnet-4-5' }).name).toBe('tiktoken:o200k_base');
    expect(createTokenCounter({ model: 'gpt-4', encoding: 'o200k_base' }).name).toBe(
      'tiktoken:o200k_base',
    );
  });

  it('uses a custom text counter and rejects bad counts from it', () => {
    const counter = createTokenCounter({ countText: (text) => text.length });
    expect(counter.name).toBe('custom');
    expect(counter.countText('abcd')).toBe(4);
    const broken = createTokenCounter({ countText: () => Number.NaN });
    expect(() => broken.countText('x')).toThrow(expect.objectContaining({ argument: 'countText' }));
  });
});
