import { describe, expect, it } from 'vitest';
import { results } from '../compression/test-messages.js';
import type { Message } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { boundedCounter, createEstimateCounter, createTokenCounter } from '../index.js';
import { seededBase64 as base64 } from '../test/filler-text.js';

// 400k characters: over the size below which everything is counted exactly.
const PAYLOAD = base64(300_000, 3);

const toolResult = (value: string): Message => results({ id: 'call_1', output: value });

const small: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Read the archive and tell me what is in it.' },
];

describe('boundedCounter', () => {
  const counter = createTokenCounter({ encoding: 'o200k_base' });
  const exact = counter.countMessage(toolResult(PAYLOAD));

  it('counts a payload surely over the limit by its floor: at most exact, over the limit', () => {
    const bounded = boundedCounter(createTokenCounter({ encoding: 'o200k_base' }), 4_000);
    const tokens = bounded.countMessage(toolResult(PAYLOAD));
    expect(bounded.countedByFloor).toBe(true);
    expect(tokens).toBeGreaterThan(4_000);
    expect(tokens).toBeLessThanOrEqual(exact);
    // The documented closeness on base64 (o200k): at least 60% of the exact count.
    expect(tokens).toBeGreaterThanOrEqual(exact * 0.6);
  });

  it('counts exactly whatever could fit the limit, and every message under 256k characters', () => {
    const roomy = boundedCounter(counter, exact + 10);
    expect(roomy.countMessage(toolResult(PAYLOAD))).toBe(exact);
    expect(roomy.countedByFloor).toBe(false);
    const tight = boundedCounter(counter, 1);
    const medium = toolResult(base64(90_000, 5));
    expect(tight.countMessage(medium)).toBe(counter.countMessage(medium));
    expect(tight.countedByFloor).toBe(false);
  });

  it('answers "over the limit?" as exact counts do, and sums messages as the contract says', () => {
    const messages = [...small, toolResult(PAYLOAD)];
    const total = counter.countMessages(messages);
    for (const limit of [1, 4_000, total - 1, total, total + 1, 2 * total]) {
      const bounded = boundedCounter(counter, limit);
      const counted = bounded.countMessages(messages);
      expect(counted > limit).toBe(total > limit);
      expect(counted).toBeLessThanOrEqual(total);
      expect(counted).toBe(
        messages.reduce((sum, message) => sum + bounded.countMessage(message), 0) +
          counter.promptOverhead,
      );
    }
  });

  it('bounds plain texts the same way', () => {
    const bounded = boundedCounter(counter, 4_000);
    expect(bounded.countText('hello world')).toBe(counter.countText('hello world'));
    expect(bounded.countedByFloor).toBe(false);
    const floor = bounded.countText(PAYLOAD);
    expect(floor).toBeGreaterThan(4_000);
    expect(floor).toBeLessThanOrEqual(counter.countText(PAYLOAD));
    expect(bounded.countedByFloor).toBe(true);
  });

  it('keeps the floor of a counter with a margin below its scaled count', () => {
    const scaled = createTokenCounter({ encoding: 'o200k_base', margin: 1.2 });
    expect(scaled.name).toBe('tiktoken:o200k_base×1.2');
    expect(scaled.countText('hello world')).toBe(Math.ceil(counter.countText('hello world') * 1.2));
    const floor = boundedCounter(scaled, 4_000).countMessage(toolResult(PAYLOAD));
    expect(floor).toBeGreaterThan(4_000);
    expect(floor).toBeLessThanOrEqual(scaled.countMessage(toolResult(PAYLOAD)));
  });

  it('uses a counter without a floor as it is', () => {
    const estimate = createEstimateCounter();
    const custom = createTokenCounter({ countText: (text) => text.length });
    for (const plain of [estimate, custom]) {
      const bounded = boundedCounter(plain, 10);
      expect(bounded.countMessage(toolResult(PAYLOAD))).toBe(
        plain.countMessage(toolResult(PAYLOAD)),
      );
      expect(bounded.countMessages(small)).toBe(plain.countMessages(small));
      expect(bounded.countedByFloor).toBe(false);
    }
  });

  it('rejects a limit that is not a non-negative integer', () => {
    for (const limit of [-1, 1.5, Number.NaN, '10' as unknown as number]) {
      expect(() => boundedCounter(counter, limit)).toThrow(InvalidArgumentError);
    }
  });

  it('rejects messages that are not an array, as the counter does', () => {
    expect(() =>
      boundedCounter(counter, 10).countMessages('nope' as unknown as Message[]),
    ).toThrowError(/messages must be an array/);
  });

  it('rejects a malformed message with its path, as the counter does', () => {
    const bounded = boundedCounter(counter, 10);
    expect(() => bounded.countMessages([{ role: 'robot' } as unknown as Message])).toThrowError(
      /messages\[0\]\.role/,
    );
  });

  it('rejects an invalid margin', () => {
    for (const margin of [0.5, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() => createTokenCounter({ margin })).toThrow(InvalidArgumentError);
    }
  });
});
