import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError } from '../errors/index.js';
import { decodeVocabularyFile } from './vocabulary-file.js';

/** The tiktoken encodings ctxmem ships. */
export type TokenEncodingName = 'o200k_base' | 'cl100k_base';

export const TOKEN_ENCODING_NAMES: readonly TokenEncodingName[] = ['o200k_base', 'cl100k_base'];

/**
 * A BPE vocabulary ready for counting, looked up with a "binary string" (one char per UTF-8
 * byte, codes 0–255) and a range of it (see `rankOf`), so a lookup allocates nothing.
 *
 * The tokens live in typed arrays, an open-addressing hash table over their bytes, not in a Map
 * of 200,000 strings: about 6 MB instead of about 40, built in a fraction of the time, which every
 * process that counts pays once.
 */
export interface BpeRanks {
  readonly name: TokenEncodingName;
  /** Every token's bytes, one after the other. */
  readonly tokenBytes: Uint8Array;
  /** Where token `index` starts in `tokenBytes`; one more entry marks the end of the last. */
  readonly tokenStarts: Int32Array;
  readonly tokenRanks: Int32Array;
  /** Hash table of token index + 1 (0: empty slot), by `hashBytes`; its size is a power of 2. */
  readonly slots: Int32Array;
  /**
   * Ranks of the two-byte tokens, indexed by `first << 8 | second` (NO_RANK when absent): a
   * quarter-megabyte table that answers the most frequent lookup of a merge without hashing.
   */
  readonly pairTable: Int32Array;
  /** tiktoken's pre-tokenizer; global + unicode, so use with `lastIndex`. */
  readonly pattern: RegExp;
}

/** The shape of the rank modules in `js-tiktoken/ranks/*`. */
interface RankModule {
  pat_str: string;
  bpe_ranks: string;
}

/** Marks "no such token" in rank tables. */
export const NO_RANK = 0x7fffffff;

const loaded = new Map<TokenEncodingName, BpeRanks>();

// Resolved (not imported) so the 1–2 MB rank modules are read only when a counter first counts,
// and only for the encodings in use; reading synchronously keeps `countText` synchronous.
const requireRanks = createRequire(import.meta.url);

function isRankModule(data: unknown): data is RankModule {
  return (
    typeof data === 'object' &&
    data !== null &&
    typeof (data as RankModule).pat_str === 'string' &&
    typeof (data as RankModule).bpe_ranks === 'string'
  );
}

/**
 * The module's `{ pat_str, bpe_ranks }` object, read as JSON: the module is `module.exports =
 * <a JSON object>`, and parsing that text is far cheaper than compiling megabytes of JavaScript
 * (a share of every `ctxmem compact`). Falls back to requiring the module if its text is laid out
 * differently.
 */
function readRankModule(name: TokenEncodingName): RankModule {
  const id =
    name === 'o200k_base' ? 'js-tiktoken/ranks/o200k_base' : 'js-tiktoken/ranks/cl100k_base';
  const path = requireRanks.resolve(id);
  try {
    // Bytes first, then decoded: `readFileSync(path, 'utf8')` took about three times as long on
    // Node 22 for this 2 MB file.
    const text = readFileSync(path).toString('utf8');
    const data: unknown = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
    if (isRankModule(data)) return data;
  } catch {
    // Not the expected layout: the module itself says what it exports.
  }
  const module: unknown = requireRanks(id);
  delete requireRanks.cache[path];
  const data = (module as { default?: unknown }).default ?? module;
  if (!isRankModule(data)) {
    throw new InvalidArgumentError({
      message: `js-tiktoken/ranks/${name} does not have the expected { pat_str, bpe_ranks } shape`,
      argument: 'encoding',
    });
  }
  return data;
}

/** Values of base64 characters by code (-1: not base64; `=` is padding). */
const BASE64_VALUES = new Int8Array(128).fill(-1);
for (let index = 0; index < 64; index++) {
  BASE64_VALUES[
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(index)
  ] = index;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;
const PADDING = 0x3d;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * The rank of the token whose bytes are the chars `start`…`end` of the binary string `text`, or
 * `NO_RANK`: FNV-1a over the bytes, then linear probing.
 */
export function rankOf(ranks: BpeRanks, text: string, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let index = start; index < end; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), FNV_PRIME);
  }
  const { slots, tokenStarts, tokenBytes, tokenRanks } = ranks;
  const mask = slots.length - 1;
  const length = end - start;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot]!;
    if (entry === 0) return NO_RANK;
    const token = entry - 1;
    const tokenStart = tokenStarts[token]!;
    if (tokenStarts[token + 1]! - tokenStart !== length) continue;
    let same = true;
    for (let offset = 0; offset < length; offset++) {
      if (tokenBytes[tokenStart + offset] !== text.charCodeAt(start + offset)) {
        same = false;
        break;
      }
    }
    if (same) return tokenRanks[token]!;
  }
}

/**
 * Parses js-tiktoken's compressed rank format, lines of `<marker> <first rank> <base64 token>…`
 * (ranks counting up from the first rank), in one pass straight into typed arrays: no split
 * arrays and no string per token. This runs in every process that counts, so its cost is part of
 * every `ctxmem compact`.
 */
function parseRanks(name: TokenEncodingName, text: string): Omit<BpeRanks, 'pattern'> {
  const length = text.length;
  // Upper bounds: every 4 base64 characters are at most 3 bytes, a token takes at least 2
  // characters and a separator.
  const tokenBytes = new Uint8Array(Math.ceil((length * 3) / 4));
  const starts: number[] = [0];
  const rankList: number[] = [];
  const hashes: number[] = [];
  const pairTable = new Int32Array(65_536).fill(NO_RANK);
  let written = 0;
  let index = 0;
  while (index < length) {
    // `<marker> <first rank> `
    while (index < length && text.charCodeAt(index) !== SPACE) index++;
    index++;
    let rank = 0;
    for (let code = text.charCodeAt(index); code >= 0x30 && code <= 0x39; ) {
      rank = rank * 10 + (code - 0x30);
      code = text.charCodeAt(++index);
    }
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code === NEWLINE) {
        index++;
        break;
      }
      if (code === SPACE) {
        index++;
        continue;
      }
      // One token: every 4 base64 characters are 3 bytes, `=` pads the end.
      const first = written;
      let bits = 0;
      let held = 0;
      let hash = FNV_OFFSET;
      for (; index < length; index++) {
        const value = BASE64_VALUES[text.charCodeAt(index)] ?? -1;
        if (value < 0) break;
        bits = ((bits << 6) | value) & 0xffffff;
        held += 6;
        if (held >= 8) {
          held -= 8;
          const byte = (bits >> held) & 0xff;
          tokenBytes[written++] = byte;
          hash = Math.imul(hash ^ byte, FNV_PRIME);
        }
      }
      while (index < length && text.charCodeAt(index) === PADDING) index++;
      if (written - first === 2) {
        pairTable[(tokenBytes[first]! << 8) | tokenBytes[first + 1]!] = rank;
      }
      starts.push(written);
      rankList.push(rank);
      hashes.push(hash);
      rank++;
    }
  }
  const count = rankList.length;
  // At most half full, so probes stay short.
  let size = 1;
  while (size < count * 2) size *= 2;
  const slots = new Int32Array(size);
  const mask = size - 1;
  for (let token = 0; token < count; token++) {
    let slot = hashes[token]! & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = token + 1;
  }
  return {
    name,
    tokenBytes: tokenBytes.slice(0, written),
    tokenStarts: Int32Array.from(starts),
    tokenRanks: Int32Array.from(rankList),
    slots,
    pairTable,
  };
}

/** The ranks of an encoding built from js-tiktoken's rank module (what the build writes out). */
export function buildBpeRanks(name: TokenEncodingName): BpeRanks {
  const module = readRankModule(name);
  return { ...parseRanks(name, module.bpe_ranks), pattern: new RegExp(module.pat_str, 'gu') };
}

/**
 * Where the build writes an encoding's vocabulary file: `dist/vocabulary/` of this package, found
 * through the package's own `package.json` (so from the bundled build and from the TypeScript
 * sources alike; from the sources before a build, the file is absent and the ranks are built).
 */
export function vocabularyFileUrl(name: TokenEncodingName): URL {
  return new URL(
    `dist/vocabulary/${name}.bin`,
    pathToFileURL(requireRanks.resolve('@ctxmem/core/package.json')),
  );
}

/** The vocabulary file's ranks, or `undefined` when it is missing or not intact. */
function readVocabularyFile(name: TokenEncodingName): BpeRanks | undefined {
  let file: Buffer;
  try {
    file = readFileSync(vocabularyFileUrl(name));
  } catch {
    return undefined;
  }
  return decodeVocabularyFile(file, name);
}

/**
 * The ranks of an encoding, loaded on first use and kept for the life of the process: from the
 * vocabulary file the build wrote when it is there and intact, else built from js-tiktoken.
 */
export function loadBpeRanks(name: TokenEncodingName): BpeRanks {
  let ranks = loaded.get(name);
  if (ranks === undefined) {
    ranks = readVocabularyFile(name) ?? buildBpeRanks(name);
    loaded.set(name, ranks);
  }
  return ranks;
}
