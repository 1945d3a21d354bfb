import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { buildBpeRanks, loadBpeRanks, TOKEN_ENCODING_NAMES } from './bpe-ranks.js';
import { createTokenCounter } from './index.js';
import { asciiPieceScanner, preTokenize } from './pre-tokenize.js';

// The references: each encoding's regex as js-tiktoken ships it (`pat_str`, compiled with the
// flags js-tiktoken uses), and js-tiktoken's own encoder with special tokens treated as text.
const modules = { o200k_base: o200kBase, cl100k_base: cl100kBase };
const patterns = {
  o200k_base: new RegExp(o200kBase.pat_str, 'gu'),
  cl100k_base: new RegExp(cl100kBase.pat_str, 'gu'),
};
const encoders = { o200k_base: new Tiktoken(o200kBase), cl100k_base: new Tiktoken(cl100kBase) };
const counters = {
  o200k_base: createTokenCounter({ encoding: 'o200k_base' }),
  cl100k_base: createTokenCounter({ encoding: 'cl100k_base' }),
};

const regexPieces = (encoding: keyof typeof patterns, text: string) =>
  text.match(patterns[encoding]) ?? [];

/** Fragments aimed at the patterns' edges; joined, they make texts ASCII-heavy but not pure. */
const ASCII_FRAGMENTS = [
  ...'aqzAQZ',
  'hello',
  'World',
  'HTML',
  'Parser',
  'I',
  'iOS',
  // apostrophes: every contraction in several cases, and ones that are not contractions
  "'",
  "'s",
  "'S",
  "'t",
  "'T",
  "'m",
  "'d",
  "'D",
  "'ll",
  "'LL",
  "'lL",
  "'Ll",
  "'l",
  "'re",
  "'rE",
  "'Ve",
  "'ve",
  "'x",
  "''",
  ...'0123456789',
  '2025',
  '1234567',
  // punctuation, `/` (which o200k lets trail a line break) and control characters
  ...'.,!?;:/\\()[]{}<>"`~@#$%^&*-_=+|',
  '//',
  '...',
  '\x00',
  '\x1b',
  '\x1f',
  '\x7f',
  // whitespace: runs, tabs, line breaks in both conventions, \v and \f
  ' ',
  '  ',
  '   ',
  '\t',
  '\t\t',
  '\n',
  '\n\n',
  '\r',
  '\r\n',
  ' \r\n ',
  '\v',
  '\f',
];

const NON_ASCII_FRAGMENTS = [
  'é',
  'É',
  'ß',
  'ы',
  'Ж',
  '中',
  '文',
  'の',
  '한',
  '😀',
  '👍🏽',
  '\u0301', // a combining mark (\p{M})
  'ǅ', // titlecase (\p{Lt})
  'ʰ', // modifier letter (\p{Lm})
  '٣', // Arabic-Indic digit (\p{N})
  '²', // superscript two (\p{N}, not a decimal digit)
  '\u00a0', // no-break space (\s)
  '\u3000', // ideographic space (\s)
  '\u2028', // line separator (\s, but not [\r\n])
  '\ufeff', // byte order mark (\s in JavaScript)
  '\u0085', // next line (not \s in JavaScript)
  '\u00ad', // soft hyphen
  '—',
  '\ud800', // a lone surrogate
];

const mostlyAsciiText = fc
  .array(
    fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom(...ASCII_FRAGMENTS) },
      { weight: 1, arbitrary: fc.constantFrom(...NON_ASCII_FRAGMENTS) },
    ),
    { maxLength: 40 },
  )
  .map((fragments) => fragments.join(''));

const anyAsciiText = fc.string({ unit: 'binary-ascii', maxLength: 60 });

describe('preTokenize', () => {
  it.each(TOKEN_ENCODING_NAMES)('has a scanner for the pattern js-tiktoken ships (%s)', (name) => {
    // Otherwise counting would silently fall back to the regex alone (still exact, but slow).
    expect(asciiPieceScanner(patterns[name])).toBeDefined();
    expect(asciiPieceScanner(buildBpeRanks(name).pattern)).toBeDefined();
    expect(asciiPieceScanner(loadBpeRanks(name).pattern)).toBeDefined();
    expect(patterns[name].source).toBe(new RegExp(modules[name].pat_str, 'gu').source);
  });

  it.each([
    "Hello world, it's a TEST of HTMLParser; helloWorld I'M DON'T we'll THEY'LL",
    "rock'n'roll 'sup 're ''s x'S y'lL z'Ll",
    '12345 $100 1,234.5678 v2.0.1 0x1F',
    '!!\n\n/foo //\r\n// a/b \\path\\to ...\n',
    '  leading and trailing  ',
    'word  \n  next\t\tTabbed\v\fend',
    '\n\n\n',
    '\r\n\r\n  \r\n',
    '   ',
    ' ',
    '\t',
    'x',
    "'",
    ' !',
    ' \tword',
    'a\u00a0b \u00a0 c',
    'café CAFÉ naïve Ωmega',
    'tokens 中文 and 😀 emoji',
    'x\u0301 X\u0301y',
    'digits ٣٣٣٣ and ²²²2',
    '\x00\x01 \x1f\x7f',
  ])('cuts the same pieces as the regex: %j', (text) => {
    for (const name of TOKEN_ENCODING_NAMES) {
      expect(preTokenize(patterns[name], text)).toEqual(regexPieces(name, text));
    }
  });

  it('cuts the same pieces as the regex on generated mostly-ASCII text', () => {
    fc.assert(
      fc.property(mostlyAsciiText, (text) => {
        for (const name of TOKEN_ENCODING_NAMES) {
          expect(preTokenize(patterns[name], text)).toEqual(regexPieces(name, text));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('cuts the same pieces as the regex on any ASCII text', () => {
    fc.assert(
      fc.property(anyAsciiText, (text) => {
        for (const name of TOKEN_ENCODING_NAMES) {
          expect(preTokenize(patterns[name], text)).toEqual(regexPieces(name, text));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('cuts long runs without word breaks the same way', () => {
    const texts = [
      'a'.repeat(5000),
      `${'A'.repeat(5000)}é`,
      `${' '.repeat(5000)}é`,
      `\n${' '.repeat(5000)}é`,
      `${'!'.repeat(5000)}中`,
      `${'9'.repeat(5000)}٣`,
      ' \n'.repeat(2500),
    ];
    for (const text of texts) {
      for (const name of TOKEN_ENCODING_NAMES) {
        expect(preTokenize(patterns[name], text)).toEqual(regexPieces(name, text));
      }
    }
  });

  it('falls back to the regex alone for a pattern it was not written for', () => {
    const pattern = /\p{L}+|\s+|./gu;
    expect(asciiPieceScanner(pattern)).toBeUndefined();
    const text = "it's  a Test, 中文";
    expect(preTokenize(pattern, text)).toEqual(text.match(pattern));
  });
});

describe('counting with the ASCII pre-tokenizer', () => {
  it('counts generated mostly-ASCII text exactly as js-tiktoken does', () => {
    fc.assert(
      fc.property(mostlyAsciiText, (text) => {
        for (const name of TOKEN_ENCODING_NAMES) {
          expect(counters[name].countText(text)).toBe(encoders[name].encode(text, [], []).length);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('counts any ASCII text exactly as js-tiktoken does', () => {
    fc.assert(
      fc.property(anyAsciiText, (text) => {
        for (const name of TOKEN_ENCODING_NAMES) {
          expect(counters[name].countText(text)).toBe(encoders[name].encode(text, [], []).length);
        }
      }),
      { numRuns: 300 },
    );
  });
});
