import { createRequire } from 'node:module';
import { InvalidArgumentError } from '../errors/index.js';

/** The tiktoken encodings ctxmem ships. */
export type TokenEncodingName = 'o200k_base' | 'cl100k_base';

export const TOKEN_ENCODING_NAMES: readonly TokenEncodingName[] = ['o200k_base', 'cl100k_base'];

/**
 * A BPE vocabulary ready for counting: ranks keyed by a "binary string" (one char per UTF-8 byte,
 * codes 0–255), so a pair lookup is a substring plus one Map lookup, with no byte-array joins.
 */
export interface BpeRanks {
  readonly name: TokenEncodingName;
  readonly ranks: ReadonlyMap<string, number>;
  /**
   * Ranks of the two-byte tokens, indexed by `first << 8 | second` (NO_RANK when absent): a
   * quarter-megabyte table that answers the most frequent lookup of a merge without touching the
   * large Map.
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

// Required (not imported) so the 1–2 MB rank modules are parsed only when a counter first counts,
// and only for the encodings in use; `require` keeps `countText` synchronous.
const requireRanks = createRequire(import.meta.url);

function readRankModule(name: TokenEncodingName): RankModule {
  const module: unknown =
    name === 'o200k_base'
      ? requireRanks('js-tiktoken/ranks/o200k_base')
      : requireRanks('js-tiktoken/ranks/cl100k_base');
  const data = (module as { default?: unknown }).default ?? module;
  if (
    typeof data !== 'object' ||
    data === null ||
    typeof (data as RankModule).pat_str !== 'string' ||
    typeof (data as RankModule).bpe_ranks !== 'string'
  ) {
    throw new InvalidArgumentError({
      message: `js-tiktoken/ranks/${name} does not have the expected { pat_str, bpe_ranks } shape`,
      argument: 'encoding',
    });
  }
  return data as RankModule;
}

/**
 * Parses js-tiktoken's compressed rank format: lines of `<marker> <first rank> <base64 token>…`,
 * ranks counting up from the first rank.
 */
function parseRanks(bpeRanks: string): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const line of bpeRanks.split('\n')) {
    if (line.length === 0) continue;
    const fields = line.split(' ');
    let rank = Number.parseInt(fields[1] ?? '', 10);
    for (let index = 2; index < fields.length; index++) {
      const token = fields[index]!;
      if (token.length > 0) ranks.set(atob(token), rank);
      rank++;
    }
  }
  return ranks;
}

function buildPairTable(ranks: ReadonlyMap<string, number>): Int32Array {
  const table = new Int32Array(65_536).fill(NO_RANK);
  for (const [bytes, rank] of ranks) {
    if (bytes.length === 2) table[(bytes.charCodeAt(0) << 8) | bytes.charCodeAt(1)] = rank;
  }
  return table;
}

/** The ranks of an encoding, built on first use and kept for the life of the process. */
export function loadBpeRanks(name: TokenEncodingName): BpeRanks {
  let ranks = loaded.get(name);
  if (ranks === undefined) {
    const module = readRankModule(name);
    const parsed = parseRanks(module.bpe_ranks);
    ranks = {
      name,
      ranks: parsed,
      pairTable: buildPairTable(parsed),
      pattern: new RegExp(module.pat_str, 'gu'),
    };
    loaded.set(name, ranks);
  }
  return ranks;
}
