import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { canonicalJson } from '../storage/index.js';
import { arbitraryMessages } from '../test/arbitraries/index.js';
import { offloadId } from './offload-id.js';

/** The id as it was computed before it was hashed in pieces: ids on disk must not change. */
const previousId = (message: Message) =>
  `off_${createHash('sha256').update(canonicalJson(message), 'utf8').digest('hex').slice(0, 16)}`;

describe('offloadId', () => {
  it('is the SHA-256 of the canonical JSON, as ids already stored (property)', () => {
    fc.assert(
      fc.property(arbitraryMessages(), (messages) => {
        for (const message of messages) expect(offloadId(message)).toBe(previousId(message));
      }),
      { numRuns: 100 },
    );
  });

  it('is the same id for a payload hashed in pieces', () => {
    const message: Message = {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1',
          toolName: 'read_file',
          output: { type: 'text', value: `"${'line\n😀é'.repeat(60_000)}"` },
        },
      ],
    };
    expect(offloadId(message)).toBe(previousId(message));
  });
});
