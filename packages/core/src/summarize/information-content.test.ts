import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentWords, createContentWordReader } from './information-content.js';

/** Words whose reading differs by case, position, form and script. */
const WORDS = [
  'Paint',
  'painted',
  'painting',
  'PAINTS',
  'Ana',
  "Ana's",
  'Ana’s',
  'the',
  'I',
  'Went',
  'went',
  'children',
  'user_id',
  'camelCase',
  'v1.2',
  '2023',
  'a.b',
  'x',
  'No',
  'don’t',
  '我们',
  '选型',
  'GPU选型',
  'テスト',
];
const SEPARATORS = [' ', '  ', '. ', ', ', '! ', '? ', ': ', '\n', ' (', ' "', '; '];

const texts = fc.array(
  fc
    .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 12 })
    .map((pairs) => pairs.map(([word, separator]) => `${word}${separator}`).join('')),
  { minLength: 1, maxLength: 8 },
);

describe('createContentWordReader', () => {
  it('reads every text as contentWords reads it alone, whatever the reader read before', () => {
    fc.assert(
      fc.property(texts, (batch) => {
        const read = createContentWordReader();
        // All read first: a later text must not change the words handed out for an earlier one.
        const words = batch.map((text) => read(text));
        expect(words).toEqual(batch.map((text) => contentWords(text)));
      }),
    );
  });

  it('gives a capitalised word the name boost only where it does not open a sentence', () => {
    const read = createContentWordReader();
    expect(read('Paint dries.')).toEqual([
      { key: 'paint', boost: 1 },
      { key: 'dri', boost: 1 },
    ]);
    expect(read('We met Paint')).toEqual([
      { key: 'meet', boost: 1 },
      { key: 'paint', boost: 1.3 },
    ]);
    expect(read('Paint walls')).toEqual([
      { key: 'paint', boost: 1 },
      { key: 'wall', boost: 1 },
    ]);
  });

  it('keeps each key once, with the highest boost it was met with', () => {
    expect(createContentWordReader()('painted the fence, then Paint')).toEqual([
      { key: 'paint', boost: 1.3 },
      { key: 'fenc', boost: 1 },
    ]);
  });
});
