import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type BpeRanks,
  buildBpeRanks,
  TOKEN_ENCODING_NAMES,
  vocabularyFileUrl,
} from './bpe-ranks.js';
import { createBpeTextCounter } from './count-bpe.js';
import { decodeVocabularyFile, encodeVocabularyFile } from './vocabulary-file.js';

const built = new Map(TOKEN_ENCODING_NAMES.map((name) => [name, buildBpeRanks(name)]));

function expectSameRanks(actual: BpeRanks | undefined, expected: BpeRanks): void {
  expect(actual).toBeDefined();
  expect(actual!.name).toBe(expected.name);
  expect(Buffer.compare(Buffer.from(actual!.tokenBytes), Buffer.from(expected.tokenBytes))).toBe(0);
  for (const key of ['tokenStarts', 'tokenRanks', 'slots', 'pairTable'] as const) {
    expect(actual![key].length, key).toBe(expected[key].length);
    expect(
      Buffer.compare(
        Buffer.from(actual![key].buffer, actual![key].byteOffset, actual![key].byteLength),
        Buffer.from(expected[key].buffer, expected[key].byteOffset, expected[key].byteLength),
      ),
      key,
    ).toBe(0);
  }
  expect(actual!.pattern.source).toBe(expected.pattern.source);
  expect(actual!.pattern.flags).toBe('gu');
}

describe('vocabulary file', () => {
  it.each(TOKEN_ENCODING_NAMES)(
    'reads back exactly the ranks built from js-tiktoken (%s)',
    (name) => {
      const ranks = built.get(name)!;
      expectSameRanks(decodeVocabularyFile(encodeVocabularyFile(ranks), name), ranks);
    },
  );

  it('reads a file whose bytes are not 4-byte aligned', () => {
    const ranks = built.get('cl100k_base')!;
    const file = encodeVocabularyFile(ranks);
    const shifted = new Uint8Array(file.byteLength + 1).subarray(1);
    shifted.set(file);
    expectSameRanks(decodeVocabularyFile(shifted, 'cl100k_base'), ranks);
  });

  it('refuses another encoding, a truncated file, a damaged byte and another version', () => {
    const file = encodeVocabularyFile(built.get('cl100k_base')!);
    expect(decodeVocabularyFile(file, 'o200k_base')).toBeUndefined();
    expect(
      decodeVocabularyFile(file.subarray(0, file.byteLength - 1), 'cl100k_base'),
    ).toBeUndefined();
    expect(decodeVocabularyFile(file.subarray(0, 16), 'cl100k_base')).toBeUndefined();
    for (const offset of [40, Math.floor(file.byteLength / 2), file.byteLength - 1]) {
      const damaged = file.slice();
      damaged[offset]! ^= 0x10;
      expect(decodeVocabularyFile(damaged, 'cl100k_base'), `byte ${offset}`).toBeUndefined();
    }
    const otherVersion = file.slice();
    new DataView(otherVersion.buffer).setUint32(4, 2, true);
    expect(decodeVocabularyFile(otherVersion, 'cl100k_base')).toBeUndefined();
  });

  // The files the build ships: CI builds before it tests (`pnpm build` in `.ci/run`).
  it.each(TOKEN_ENCODING_NAMES)(
    'the built dist/vocabulary/%s.bin holds the ranks of js-tiktoken',
    (name) => {
      const url = new URL(`../../dist/vocabulary/${name}.bin`, import.meta.url);
      expect(vocabularyFileUrl(name).href).toBe(url.href);
      let file: Buffer;
      try {
        file = readFileSync(url);
      } catch {
        throw new Error(`${url.pathname} is missing: run \`pnpm build\` first`);
      }
      expectSameRanks(decodeVocabularyFile(file, name), built.get(name)!);
    },
  );

  it('counts the same with ranks from a file as with ranks built from js-tiktoken', () => {
    const texts = [
      'Hello, world!',
      'naïve café — 東京 🚀 ',
      'x'.repeat(3000),
      'aGVsbG8gd29ybGQ='.repeat(200),
      '  indented\n\tcode();  // comment\r\n',
    ];
    const fromBuild = createBpeTextCounter(built.get('o200k_base')!);
    const fromFile = createBpeTextCounter(
      decodeVocabularyFile(encodeVocabularyFile(built.get('o200k_base')!), 'o200k_base')!,
    );
    // tiktoken's own count of "Hello, world!" in o200k_base.
    expect(fromFile(texts[0]!)).toBe(4);
    for (const text of texts) expect(fromFile(text)).toBe(fromBuild(text));
  });
});
