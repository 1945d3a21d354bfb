import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import { arbitraryMessages } from '../test/arbitraries/index.js';
import { withMessageIds } from './index.js';

describe('withMessageIds', () => {
  it('gives the same ids on every run and after a JSON round trip, unique within a history', () => {
    fc.assert(
      fc.property(arbitraryMessages({ withCjk: true }), (messages) => {
        const first = withMessageIds(messages);
        const again = withMessageIds(JSON.parse(JSON.stringify(messages)) as Message[]);
        expect(again.map((message) => message.id)).toEqual(first.map((message) => message.id));
        expect(new Set(first.map((message) => message.id)).size).toBe(messages.length);
        for (const message of first) expect(message.id).toMatch(/^msg_[0-9a-f]{16}(-\d+)?$/);
        // The input is left alone.
        for (const message of messages) expect(message.id).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it('keeps existing ids and the very same objects', () => {
    const messages: Message[] = [
      { role: 'user', content: 'a', id: 'mine' },
      { role: 'user', content: 'b' },
    ];
    const result = withMessageIds(messages, { prefix: 'm-' });
    expect(result[0]).toBe(messages[0]);
    expect(result[1]!.id).toMatch(/^m-[0-9a-f]{16}$/);
  });

  it('depends on position and content', () => {
    const [a, b] = withMessageIds<Message>([
      { role: 'user', content: 'same' },
      { role: 'user', content: 'same' },
    ]);
    expect(a!.id).not.toBe(b!.id);
    const [changed] = withMessageIds<Message>([{ role: 'user', content: 'other' }]);
    expect(changed!.id).not.toBe(a!.id);
    const [binary] = withMessageIds<Message>([
      { role: 'user', content: [{ type: 'file', data: new Uint8Array([1]), mediaType: 'x/y' }] },
    ]);
    const [otherBinary] = withMessageIds<Message>([
      { role: 'user', content: [{ type: 'file', data: new Uint8Array([2]), mediaType: 'x/y' }] },
    ]);
    expect(binary!.id).not.toBe(otherBinary!.id);
  });

  it('gives a colliding id a suffix', () => {
    const [probe] = withMessageIds<Message>([{ role: 'user', content: 'x' }]);
    const result = withMessageIds<Message>([
      { role: 'user', content: 'x' },
      { role: 'user', content: 'y', id: probe!.id },
    ]);
    expect(result[0]!.id).toBe(`${probe!.id}-2`);
  });

  it('throws InvalidMessageError for content nested 10,000 deep instead of overflowing', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 10_000; level++) deep = [deep];
    const messages = [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: deep }],
      },
    ] as Message[];
    expect(() => withMessageIds(messages)).toThrow(InvalidMessageError);
  });
});
