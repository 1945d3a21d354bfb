import { type BpeRanks, NO_RANK, rankOf as rankOfRange } from './bpe-ranks.js';
import { asciiPieceScanner, NEEDS_REGEX, type PieceScanner } from './pre-tokenize.js';

/**
 * Pieces up to this many bytes merge with a plain scan for the lowest-ranked pair (quadratic, but
 * fastest on the short pieces that make up ordinary text); longer pieces use a heap, so a 100k
 * character CJK run or a long run of one character costs O(n log n) instead of O(n²).
 */
const SCAN_MERGE_LIMIT = 96;

/** Pieces up to this many characters have their token count cached (long pieces rarely repeat). */
const PIECE_CACHE_MAX_LENGTH = 64;

/** Entries of a counter's piece cache; cleared by halves when full. */
const PIECE_CACHE_SIZE = 50_000;

/** 2³²: a heap key is `rank * PAIR_KEY_BASE + position`, exact in a double for ranks < 2²¹. */
const PAIR_KEY_BASE = 4_294_967_296;

const utf8 = new TextEncoder();

/**
 * What one counter keeps between pieces: buffers grown on demand (so ordinary text allocates
 * nothing per piece) and the token counts of short pieces seen before. Each counter has its own,
 * so counters share nothing but the read-only ranks.
 */
interface CounterState {
  readonly encoding: BpeRanks;
  /** The encoding's pre-tokenizer, copied: a global RegExp carries its position in `lastIndex`. */
  readonly pattern: RegExp;
  /** Cuts the same pieces as `pattern` on ASCII text, by char codes (see `pre-tokenize.ts`). */
  readonly scan: PieceScanner | undefined;
  readonly pieceCounts: Map<string, number>;
  byteBuffer: Uint8Array;
  scanStarts: Int32Array;
  scanRanks: Int32Array;
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) > 0x7f) return false;
  }
  return true;
}

/**
 * The UTF-8 bytes of `text` as a binary string (one char per byte). Lone surrogates become
 * U+FFFD, as in `TextEncoder` and therefore js-tiktoken.
 */
function toBinaryString(state: CounterState, text: string): string {
  const needed = text.length * 3;
  if (state.byteBuffer.length < needed) {
    state.byteBuffer = new Uint8Array(Math.max(needed, state.byteBuffer.length * 2));
  }
  const byteBuffer = state.byteBuffer;
  const { written } = utf8.encodeInto(text, byteBuffer);
  let binary = '';
  // Chunked because `apply` has an argument limit.
  for (let start = 0; start < written; start += 8192) {
    binary += String.fromCharCode.apply(
      null,
      byteBuffer.subarray(start, Math.min(start + 8192, written)) as unknown as number[],
    );
  }
  return binary;
}

function rankOf(encoding: BpeRanks, bytes: string, start: number, end: number): number {
  if (end - start === 2) {
    return encoding.pairTable[(bytes.charCodeAt(start) << 8) | bytes.charCodeAt(start + 1)]!;
  }
  return rankOfRange(encoding, bytes, start, end);
}

/** Whether the whole binary string is one token. */
function isToken(encoding: BpeRanks, bytes: string): boolean {
  return rankOf(encoding, bytes, 0, bytes.length) !== NO_RANK;
}

/** Number of tokens BPE merges `bytes` into, scanning for the lowest pair (tiktoken's loop). */
function countByScan(state: CounterState, bytes: string): number {
  const { encoding } = state;
  const length = bytes.length;
  if (state.scanStarts.length < length + 2) {
    state.scanStarts = new Int32Array(length + 2);
    state.scanRanks = new Int32Array(length + 2);
  }
  const starts = state.scanStarts;
  const pairRanks = state.scanRanks;
  // Part `index` spans bytes starts[index]..starts[index + 1]; pairRanks[index] is the rank of
  // part `index` merged with part `index + 1`.
  for (let index = 0; index <= length; index++) starts[index] = index;
  for (let index = 0; index < length - 1; index++) {
    pairRanks[index] = rankOf(encoding, bytes, index, index + 2);
  }
  pairRanks[length - 1] = NO_RANK;
  let parts = length;
  while (parts > 1) {
    let lowest = NO_RANK;
    let lowestIndex = -1;
    for (let index = 0; index < parts - 1; index++) {
      const rank = pairRanks[index]!;
      if (rank < lowest) {
        lowest = rank;
        lowestIndex = index;
      }
    }
    if (lowestIndex === -1) break;
    starts.copyWithin(lowestIndex + 1, lowestIndex + 2, parts + 1);
    pairRanks.copyWithin(lowestIndex + 1, lowestIndex + 2, parts);
    parts--;
    pairRanks[lowestIndex] =
      lowestIndex < parts - 1
        ? rankOf(encoding, bytes, starts[lowestIndex]!, starts[lowestIndex + 2]!)
        : NO_RANK;
    if (lowestIndex > 0) {
      pairRanks[lowestIndex - 1] = rankOf(
        encoding,
        bytes,
        starts[lowestIndex - 1]!,
        starts[lowestIndex + 1]!,
      );
    }
  }
  return parts;
}

/** A binary min-heap of numbers (pair keys). */
class KeyHeap {
  #keys: Float64Array;
  #size = 0;

  constructor(capacity: number) {
    this.#keys = new Float64Array(Math.max(16, capacity));
  }

  get size(): number {
    return this.#size;
  }

  push(key: number): void {
    if (this.#size === this.#keys.length) {
      const grown = new Float64Array(this.#keys.length * 2);
      grown.set(this.#keys);
      this.#keys = grown;
    }
    const keys = this.#keys;
    let index = this.#size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentKey = keys[parent]!;
      if (parentKey <= key) break;
      keys[index] = parentKey;
      index = parent;
    }
    keys[index] = key;
  }

  pop(): number {
    const keys = this.#keys;
    const top = keys[0]!;
    const last = keys[--this.#size]!;
    const size = this.#size;
    let index = 0;
    while (true) {
      let child = 2 * index + 1;
      if (child >= size) break;
      if (child + 1 < size && keys[child + 1]! < keys[child]!) child++;
      if (keys[child]! >= last) break;
      keys[index] = keys[child]!;
      index = child;
    }
    keys[index] = last;
    return top;
  }
}

/**
 * The same merge as `countByScan`, in O(n log n): candidate pairs sit in a heap ordered by (rank,
 * position), which is exactly the scan's choice of the lowest rank and then the leftmost pair;
 * entries made stale by a merge are skipped when popped. The count is exact, not an estimate.
 */
function countByHeap(encoding: BpeRanks, bytes: string): number {
  const length = bytes.length;
  // next[position] is where the part starting at `position` ends (-1 once merged away).
  const next = new Int32Array(length);
  const previous = new Int32Array(length);
  const pairRanks = new Int32Array(length);
  const heap = new KeyHeap(length);
  for (let position = 0; position < length; position++) {
    next[position] = position + 1;
    previous[position] = position - 1;
    const rank = position + 2 <= length ? rankOf(encoding, bytes, position, position + 2) : NO_RANK;
    pairRanks[position] = rank;
    if (rank !== NO_RANK) heap.push(rank * PAIR_KEY_BASE + position);
  }
  let parts = length;
  while (heap.size > 0) {
    const key = heap.pop();
    const rank = Math.floor(key / PAIR_KEY_BASE);
    const position = key - rank * PAIR_KEY_BASE;
    if (next[position] === -1 || pairRanks[position] !== rank) continue;
    const right = next[position]!;
    const end = next[right]!;
    next[position] = end;
    next[right] = -1;
    if (end < length) previous[end] = position;
    parts--;
    const mergedRank = end < length ? rankOf(encoding, bytes, position, next[end]!) : NO_RANK;
    pairRanks[position] = mergedRank;
    if (mergedRank !== NO_RANK) heap.push(mergedRank * PAIR_KEY_BASE + position);
    const left = previous[position]!;
    if (left >= 0) {
      const leftRank = rankOf(encoding, bytes, left, end);
      pairRanks[left] = leftRank;
      if (leftRank !== NO_RANK) heap.push(leftRank * PAIR_KEY_BASE + left);
    }
  }
  return parts;
}

function countBinaryPiece(state: CounterState, bytes: string): number {
  const { encoding } = state;
  if (bytes.length <= 1 || isToken(encoding, bytes)) return bytes.length === 0 ? 0 : 1;
  return bytes.length <= SCAN_MERGE_LIMIT
    ? countByScan(state, bytes)
    : countByHeap(encoding, bytes);
}

function remember(cache: Map<string, number>, piece: string, count: number): void {
  if (cache.size >= PIECE_CACHE_SIZE) {
    // Drop the older half in insertion order: cheaper than true LRU bookkeeping on every hit.
    let toDrop = PIECE_CACHE_SIZE / 2;
    for (const key of cache.keys()) {
      cache.delete(key);
      if (--toDrop === 0) break;
    }
  }
  cache.set(piece, count);
}

/**
 * Tokens of the ASCII piece `text[start, end)`, read in place: an ASCII char code is its UTF-8
 * byte, so the text itself is the binary string, and the piece is copied out only when it is not
 * one token (to key the cache).
 */
function countAsciiPiece(state: CounterState, text: string, start: number, end: number): number {
  if (end - start === 1 || rankOf(state.encoding, text, start, end) !== NO_RANK) return 1;
  const piece = text.slice(start, end);
  const cacheable = piece.length <= PIECE_CACHE_MAX_LENGTH;
  if (cacheable) {
    const cached = state.pieceCounts.get(piece);
    if (cached !== undefined) return cached;
  }
  const count = countBinaryPiece(state, piece);
  if (cacheable) remember(state.pieceCounts, piece, count);
  return count;
}

/** Tokens of one pre-tokenizer piece. */
function countPiece(state: CounterState, piece: string): number {
  const { encoding, pieceCounts: cache } = state;
  const ascii = isAscii(piece);
  // Most pieces of ordinary text are one whole token: answer those with a single lookup.
  if (ascii && piece.length > 1 && isToken(encoding, piece)) return 1;
  const cacheable = piece.length <= PIECE_CACHE_MAX_LENGTH;
  if (cacheable) {
    const cached = cache.get(piece);
    if (cached !== undefined) return cached;
  }
  const count = countBinaryPiece(state, ascii ? piece : toBinaryString(state, piece));
  if (cacheable) remember(cache, piece, count);
  return count;
}

/**
 * A counter of the exact number of tokens tiktoken's encoder produces for a text with special
 * tokens treated as plain text (as `encode(text, [], [])` does), without building the token
 * array. Each counter keeps its own piece cache and buffers (see `CounterState`).
 */
export function createBpeTextCounter(encoding: BpeRanks): (text: string) => number {
  const state: CounterState = {
    encoding,
    pattern: new RegExp(encoding.pattern),
    scan: asciiPieceScanner(encoding.pattern),
    pieceCounts: new Map(),
    byteBuffer: new Uint8Array(1024),
    scanStarts: new Int32Array(SCAN_MERGE_LIMIT + 2),
    scanRanks: new Int32Array(SCAN_MERGE_LIMIT + 2),
  };
  return (text) => {
    const { pattern, scan } = state;
    let total = 0;
    let position = 0;
    // The same loop as `preTokenize`: the scanner where it decides, the regex where it cannot.
    while (position < text.length) {
      const end = scan === undefined ? NEEDS_REGEX : scan(text, position);
      if (end !== NEEDS_REGEX) {
        total += countAsciiPiece(state, text, position, end);
        position = end;
        continue;
      }
      pattern.lastIndex = position;
      const match = pattern.exec(text);
      if (match === null) break;
      const piece = match[0];
      if (piece.length === 0) {
        position = match.index + 1;
        continue;
      }
      total += countPiece(state, piece);
      position = pattern.lastIndex;
    }
    return total;
  };
}
