import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateMessages } from '../../messages/index.js';
import { arbitraryMessages, arbitraryModelMessages } from './index.js';

describe('arbitraryMessages', () => {
  it.each([1, 2, 3, 8, 30])('produces valid histories of at most %i messages', (maxMessages) => {
    fc.assert(
      fc.property(
        arbitraryMessages({ maxMessages, withImages: true, withCjk: true }),
        (messages) => {
          expect(messages.length).toBeGreaterThan(0);
          expect(messages.length).toBeLessThanOrEqual(maxMessages);
          expect(() => validateMessages(messages)).not.toThrow();
          const newest = messages[messages.length - 1]!;
          expect(['user', 'tool']).toContain(newest.role);
          messages.forEach((message, index) => {
            if (message.role === 'system') expect(index).toBe(0);
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('produces what the options ask for', () => {
    const sample = (options: Parameters<typeof arbitraryMessages>[0]) =>
      fc
        .sample(arbitraryMessages({ maxMessages: 30, ...options }), { seed: 3, numRuns: 60 })
        .flat();
    const text = (messages: unknown[]) => JSON.stringify(messages);

    expect(sample({ withTools: false }).some((message) => message.role === 'tool')).toBe(false);
    const withTools = sample({});
    expect(withTools.some((message) => message.role === 'tool')).toBe(true);
    // Parallel calls: some assistant message makes more than one call.
    expect(
      withTools.some(
        (message) =>
          message.role === 'assistant' &&
          typeof message.content !== 'string' &&
          message.content.filter((part) => part.type === 'tool-call').length > 1,
      ),
    ).toBe(true);
    expect(text(sample({}))).not.toMatch(/[\u4e00-\u9fa5]/);
    expect(text(sample({ withCjk: true }))).toMatch(/[\u4e00-\u9fa5]/);
    expect(text(sample({})).includes('"type":"image"')).toBe(false);
    expect(text(sample({ withImages: true })).includes('"type":"image"')).toBe(true);
    const longest = (messages: unknown[]) =>
      Math.max(...messages.map((message) => text([message]).length));
    expect(longest(sample({}))).toBeLessThan(20_000);
    expect(longest(sample({ withHugeOutputs: true }))).toBeGreaterThan(20_000);
  });
});

describe('arbitraryModelMessages', () => {
  it('produces valid histories with provider options, reasoning and approvals', () => {
    const histories = fc.sample(arbitraryModelMessages(), { seed: 5, numRuns: 60 });
    for (const history of histories) expect(() => validateMessages(history)).not.toThrow();
    const all = JSON.stringify(histories);
    for (const marker of [
      'providerOptions',
      '"reasoning"',
      'tool-approval-request',
      'tool-approval-response',
    ]) {
      expect(all).toContain(marker);
    }
  });
});
