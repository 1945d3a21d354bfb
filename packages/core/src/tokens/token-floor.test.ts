import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededBase64 as base64 } from '../test/filler-text.js';
import { loadBpeRanks, TOKEN_ENCODING_NAMES } from './bpe-ranks.js';
import { createTokenCounter } from './create-token-counter.js';
import { LONGEST_TOKEN_BYTES, textTokenFloor } from './token-floor.js';

const exact = Object.fromEntries(
  TOKEN_ENCODING_NAMES.map((encoding) => [encoding, createTokenCounter({ encoding })]),
);

// Characters around which the pre-tokenizer's rules differ: every ASCII class, apostrophes and
// slashes (o200k joins `/` to a line break), letters, digits and spaces that are not ASCII (`²`
// joins a digit run, `é` a word, U+3000 is a space), CJK, emoji and lone surrogates.
const INTERESTING = [
  ...'abcxyzABCXYZ0123456789',
  ...' \t\n\r\u000b\u000c',
  ...`'"/\\.,;:!?-_=+*&^%$#@()[]{}<>|~\``,
  '\u0000',
  '\u001f',
  '\u007f',
  ...'éÉßøÆ²³¼٣५',
  '\u00a0',
  '\u2003',
  '\u3000',
  ...'上下文窗口かなカナ한국',
  '😀',
  '👍🏽',
  '\ud800',
  '\udc00',
];

const interestingText = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...INTERESTING) },
      { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9+/]{1,12}$/) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
    ),
    { maxLength: 120 },
  )
  .map((pieces) => pieces.join(''));

const LOG = Array.from(
  { length: 400 },
  (_, index) =>
    `2026-01-05T09:${String(index % 60).padStart(2, '0')}:0${index % 10}.${100 + index}Z [INFO] compiled src/ledger/ledger_${index}.ts in ${index * 7} ms (${index * 913} bytes)`,
).join('\n');

const ENGLISH =
  'Context windows are large, but they are not free. Every token you send costs money and latency, and models read long prompts less carefully than short ones. A good memory layer keeps the recent turns verbatim, compresses older tool output, and summarizes whole rounds only when it has to. '.repeat(
    20,
  );

describe('textTokenFloor', () => {
  it('is never more than the exact count, in either encoding (property)', () => {
    fc.assert(
      fc.property(interestingText, fc.constantFrom(...TOKEN_ENCODING_NAMES), (text, encoding) => {
        expect(textTokenFloor(text, encoding)).toBeLessThanOrEqual(
          exact[encoding]!.countText(text),
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it('is never more than the exact count on arbitrary Unicode (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.constantFrom(...TOKEN_ENCODING_NAMES),
        (text, encoding) => {
          expect(textTokenFloor(text, encoding)).toBeLessThanOrEqual(
            exact[encoding]!.countText(text),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('counts nothing as nothing and any text as at least one token', () => {
    expect(textTokenFloor('', 'o200k_base')).toBe(0);
    expect(textTokenFloor('x', 'o200k_base')).toBe(1);
    expect(textTokenFloor('上', 'cl100k_base')).toBe(1);
  });

  // The documented closeness: what decides "surely over the budget" for a payload.
  // cl100k does not split words at a case change, so base64 has fewer claimed boundaries.
  it.each([
    ['base64', base64(60_000, 7), { o200k_base: 0.6, cl100k_base: 0.35 }],
    ['a build log', LOG, { o200k_base: 0.85, cl100k_base: 0.85 }],
    ['English prose', ENGLISH, { o200k_base: 0.9, cl100k_base: 0.9 }],
  ] as const)('comes within a known share of the exact count on %s', (_label, text, shares) => {
    for (const encoding of TOKEN_ENCODING_NAMES) {
      const floor = textTokenFloor(text, encoding);
      const count = exact[encoding]!.countText(text);
      expect(floor).toBeLessThanOrEqual(count);
      expect(floor).toBeGreaterThanOrEqual(count * shares[encoding]);
    }
  });

  it('has no token longer than LONGEST_TOKEN_BYTES in either vocabulary', () => {
    for (const encoding of TOKEN_ENCODING_NAMES) {
      const { tokenStarts } = loadBpeRanks(encoding);
      let longest = 0;
      for (let token = 0; token + 1 < tokenStarts.length; token++) {
        longest = Math.max(longest, tokenStarts[token + 1]! - tokenStarts[token]!);
      }
      expect(longest).toBe(LONGEST_TOKEN_BYTES);
    }
  });
});
