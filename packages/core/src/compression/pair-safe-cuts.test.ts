import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { isPairSafeCut } from '../messages/index.js';
import { pairSafeCuts } from './pair-safe-cuts.js';

const ids = fc.constantFrom('a', 'b', 'c', 'd');

// Histories with the pairings repairs exist for: calls without results, results without calls,
// late results, repeated ids, and a call and its result in one assistant message.
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.constant<Message>({ role: 'user', content: 'next' }),
  fc.array(ids, { maxLength: 3 }).map<Message>((calls) => ({
    role: 'assistant',
    content: calls.map((toolCallId) => ({
      type: 'tool-call' as const,
      toolCallId,
      toolName: 'run',
      input: {},
    })),
  })),
  fc.array(ids, { minLength: 1, maxLength: 3 }).map<Message>((results) => ({
    role: 'tool',
    content: results.map((toolCallId) => ({
      type: 'tool-result' as const,
      toolCallId,
      toolName: 'run',
      output: { type: 'text' as const, value: 'ok' },
    })),
  })),
  fc.tuple(ids, ids).map<Message>(([call, result]) => ({
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: call, toolName: 'run', input: {} },
      {
        type: 'tool-result',
        toolCallId: result,
        toolName: 'run',
        output: { type: 'text', value: 'ok' },
      },
    ],
  })),
);

describe('pairSafeCuts', () => {
  it('agrees with isPairSafeCut at every cut of any history (property)', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 30 }), (messages) => {
        const isSafe = pairSafeCuts(messages);
        for (let cut = 0; cut <= messages.length; cut++) {
          expect(isSafe(cut)).toBe(isPairSafeCut(messages, cut));
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
