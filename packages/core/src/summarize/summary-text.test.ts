import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapseWhitespace, comparisonKey } from './summary-text.js';

const text = fc.string({
  unit: fc.constantFrom(
    'a',
    'B',
    ' ',
    '  ',
    '\t',
    '\n',
    '\u00A0',
    '\u2028',
    '.',
    '…',
    '。',
    '?',
    'é',
    '😀',
  ),
  maxLength: 24,
});

describe('collapseWhitespace', () => {
  it('turns every run of whitespace into one space and trims, also when it skips the rewrite', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(collapseWhitespace(value)).toBe(value.replace(/\s+/g, ' ').trim());
      }),
    );
  });
});

describe('comparisonKey', () => {
  it('drops case, a role label and trailing punctuation, also when it skips the search', () => {
    fc.assert(
      fc.property(fc.constantFrom('', 'User: ', 'assistant :'), text, (label, value) => {
        const expected = `${label}${value}`
          .replace(/\s+/g, ' ')
          .trim()
          .toLowerCase()
          .replace(/^(user|assistant)\s*:\s*/, '')
          .replace(/[\s.。!！?？;；:：,，…]+$/u, '');
        expect(comparisonKey(`${label}${value}`)).toBe(expected);
      }),
    );
    expect(comparisonKey('User: Ship it on Friday!! ')).toBe('ship it on friday');
  });
});
