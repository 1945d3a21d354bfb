import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CASELESS_CUES,
  caseless,
  cueText,
  informationWeight,
  isInstruction,
  sentenceKind,
} from './cue-words.js';

/** Words and phrases the cue patterns look for, and words around them. */
const PHRASES = [
  'I',
  'we',
  'really',
  'prefer',
  'like',
  'love',
  'favourite',
  "I'd rather",
  "don't",
  'do not',
  'decided',
  'settled on',
  'going with',
  'switch to',
  "let's use",
  "we'll use",
  'must',
  'must be so',
  'never',
  'never forget',
  'always',
  "can't",
  "can't wait",
  'should not',
  'required',
  'deadline',
  'at least',
  'todo',
  'next step',
  'need to',
  'later',
  'tomorrow',
  'will fix',
  '[ ]',
  'remember that',
  'note that',
  'fyi',
  'my name is',
  'I work at',
  'my goal',
  'we are building',
  'please',
  'make sure',
  'you',
  "you're",
  'went',
  'adopted',
  'my sister',
  'Monday',
  'May',
  '8 May 2023',
  'January 2023',
  'yesterday',
  'next week',
  'Ana',
  'the',
  'dog',
  'x',
];
const SEPARATORS = [' ', '  ', ', ', '. ', '! ', '? ', '\n', "'", '-', '_'];

/** ASCII sentences of cue words in any mix of cases. */
const asciiSentences = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...PHRASES), fc.string({ unit: 'binary-ascii', maxLength: 6 })),
      fc.constantFrom(...SEPARATORS),
      fc.constantFrom('as is', 'upper', 'lower', 'title'),
    ),
    { maxLength: 10 },
  )
  .map((parts) =>
    parts
      .map(([phrase, separator, casing]) => {
        const cased =
          casing === 'upper'
            ? phrase.toUpperCase()
            : casing === 'lower'
              ? phrase.toLowerCase()
              : casing === 'title'
                ? `${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}`
                : phrase;
        return `${cased}${separator}`;
      })
      .join(''),
  );

describe('caseless', () => {
  it('gives every cue the same answer on lower-cased ASCII as the case-insensitive pattern', () => {
    fc.assert(
      fc.property(asciiSentences, (sentence) => {
        const fast = cueText(sentence);
        expect(fast.lower).toBe(sentence.toLowerCase());
        const slow = { text: sentence, lower: undefined };
        for (const [name, matches] of Object.entries(CASELESS_CUES)) {
          expect([name, matches(fast)]).toEqual([name, matches(slow)]);
        }
      }),
    );
  });

  it('reads text that is not all ASCII with the pattern itself', () => {
    expect(cueText('Ana prefers crêpes').lower).toBeUndefined();
    expect(sentenceKind('WE DECIDED ON CRÊPES')).toBe('decision');
    expect(sentenceKind('WE DECIDED ON PANCAKES')).toBe('decision');
    expect(isInstruction('NEVER deploy on Friday')).toBe(true);
    expect(informationWeight('I WENT THERE YESTERDAY')).toBeCloseTo(1.5 * 1.2 * 1.1);
  });

  it('refuses a pattern that names an upper-case letter or is not case-insensitive Unicode', () => {
    expect(() => caseless(/\bTODO\b/iu)).toThrow(/cannot be tested lower-cased/);
    expect(() => caseless(/[A-Z]x/iu)).toThrow(/cannot be tested lower-cased/);
    expect(() => caseless(/\u017Fx/iu)).toThrow(/cannot be tested lower-cased/);
    expect(() => caseless(/todo/u)).toThrow(/cannot be tested lower-cased/);
    expect(caseless(/\btodo\b\s\S\W/iu)(cueText('A TODO x!'))).toBe(true);
  });
});
