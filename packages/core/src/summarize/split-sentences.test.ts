import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hasSpokenContent,
  segmentSentences,
  segmentWithSegmenter,
  splitSentences,
} from './split-sentences.js';

/** Lines of words, spaces, terminators of several scripts, closing marks and abbreviations. */
const lines = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'Ana',
        'went',
        'home',
        ' ',
        '  ',
        '.',
        '!',
        '?',
        '…',
        '。',
        '！',
        '？',
        '；',
        '։',
        '؟',
        '।',
        '․',
        '．',
        '"',
        ')',
        '\u2029',
        '\r',
        'Dr.',
        'e.g.',
        'A.',
        '3.5',
        '我们',
      ),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
    ),
    { maxLength: 16 },
  )
  .map((pieces) => pieces.join(''));

describe('segmentSentences', () => {
  it('splits every line as Intl.Segmenter does, also when it skips the segmenter', () => {
    fc.assert(
      fc.property(lines, (line) => {
        expect(segmentSentences(line)).toEqual(segmentWithSegmenter(line));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a line without a terminator whole, split only at ；', () => {
    expect(segmentSentences('we met Ana at the lake')).toEqual(['we met Ana at the lake']);
    expect(segmentSentences('先做这个；再做那个')).toEqual(['先做这个；', '再做那个']);
    expect(segmentSentences('')).toEqual([]);
    expect(splitSentences('no full stop here\nDr. Lee came. He left')).toEqual([
      'no full stop here',
      'Dr. Lee came.',
      'He left',
    ]);
  });
});

describe('hasSpokenContent', () => {
  it('agrees with counting what is left without punctuation, symbols and spaces', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('a', '1', '.', '!', ' ', '😀', '𝐀', '\u0301', '#', '-'),
        }),
        (sentence) => {
          expect(hasSpokenContent(sentence)).toBe(
            sentence.replace(/[\p{P}\p{S}\s]/gu, '').length >= 3,
          );
        },
      ),
    );
  });
});
