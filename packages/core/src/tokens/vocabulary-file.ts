import { crc32 } from 'node:zlib';
import type { BpeRanks, TokenEncodingName } from './bpe-ranks.js';

/**
 * A BPE vocabulary as one binary file: the typed arrays of `BpeRanks`, laid out as they are in
 * memory, so a process that counts maps them with a file read instead of decoding js-tiktoken's
 * base64 rank text and hashing 200,000 tokens (about 150 ms of every `ctxmem compact` on a slow
 * machine). Written by the core build into `dist/vocabulary/`; a missing, stale or damaged file is
 * never used: the ranks are then built from js-tiktoken as before.
 *
 * Layout, little-endian, every section 4-byte aligned:
 * `magic, version, crc32 of the rest, encoding, token count, token byte length, slot count,
 * pattern byte length` (8 × u32), then `tokenStarts` (count + 1 × i32), `tokenRanks` (count × i32),
 * `slots`, `pairTable` (65,536 × i32), `tokenBytes`, the pattern's UTF-8.
 */
const MAGIC = 0x56584354; // "TCXV"
const VERSION = 1;
const HEADER_WORDS = 8;
const PAIR_TABLE_LENGTH = 65_536;

function encodingCode(name: TokenEncodingName): number {
  return name === 'o200k_base' ? 1 : 2;
}

function aligned(length: number): number {
  return (length + 3) & ~3;
}

/** The file for a vocabulary (its `pattern` source included). */
export function encodeVocabularyFile(ranks: BpeRanks): Uint8Array {
  const pattern = Buffer.from(ranks.pattern.source, 'utf8');
  const count = ranks.tokenRanks.length;
  const words = [ranks.tokenStarts, ranks.tokenRanks, ranks.slots, ranks.pairTable];
  const wordBytes = words.reduce((sum, array) => sum + array.byteLength, 0);
  const total =
    HEADER_WORDS * 4 + wordBytes + aligned(ranks.tokenBytes.byteLength) + pattern.byteLength;
  const file = new Uint8Array(total);
  const header = new DataView(file.buffer);
  const fields = [
    MAGIC,
    VERSION,
    0,
    encodingCode(ranks.name),
    count,
    ranks.tokenBytes.byteLength,
    ranks.slots.length,
    pattern.byteLength,
  ];
  for (const [index, value] of fields.entries()) header.setUint32(index * 4, value, true);
  let offset = HEADER_WORDS * 4;
  for (const array of words) {
    file.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offset);
    offset += array.byteLength;
  }
  file.set(ranks.tokenBytes, offset);
  offset += aligned(ranks.tokenBytes.byteLength);
  file.set(pattern, offset);
  header.setUint32(8, crc32(file.subarray(12)), true);
  return file;
}

/**
 * The vocabulary in `file`, or `undefined` when the file is not a complete, intact vocabulary of
 * this format for `name` (wrong magic or version, another encoding, sizes that do not add up, a
 * checksum that does not match). The typed arrays view the file's memory; nothing is copied
 * unless the file's bytes are not 4-byte aligned.
 */
export function decodeVocabularyFile(
  file: Uint8Array,
  name: TokenEncodingName,
): BpeRanks | undefined {
  if (file.byteLength < HEADER_WORDS * 4) return undefined;
  const bytes = file.byteOffset % 4 === 0 ? file : file.slice();
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_WORDS * 4);
  const field = (index: number) => header.getUint32(index * 4, true);
  if (field(0) !== MAGIC || field(1) !== VERSION || field(3) !== encodingCode(name)) {
    return undefined;
  }
  const count = field(4);
  const byteLength = field(5);
  const slotCount = field(6);
  const patternLength = field(7);
  const expected =
    HEADER_WORDS * 4 +
    4 * (count + 1 + count + slotCount + PAIR_TABLE_LENGTH) +
    aligned(byteLength) +
    patternLength;
  if (bytes.byteLength !== expected || (slotCount & (slotCount - 1)) !== 0 || slotCount < count) {
    return undefined;
  }
  if (crc32(bytes.subarray(12)) !== field(2)) return undefined;
  let offset = bytes.byteOffset + HEADER_WORDS * 4;
  const words = (length: number) => {
    const array = new Int32Array(bytes.buffer, offset, length);
    offset += length * 4;
    return array;
  };
  const tokenStarts = words(count + 1);
  const tokenRanks = words(count);
  const slots = words(slotCount);
  const pairTable = words(PAIR_TABLE_LENGTH);
  const tokenBytes = new Uint8Array(bytes.buffer, offset, byteLength);
  offset += aligned(byteLength);
  const pattern = Buffer.from(bytes.buffer, offset, patternLength).toString('utf8');
  if (tokenStarts[count] !== byteLength) return undefined;
  return {
    name,
    tokenBytes,
    tokenStarts,
    tokenRanks,
    slots,
    pairTable,
    pattern: new RegExp(pattern, 'gu'),
  };
}
