/**
 * The bytes of a saved search index, version 3 (read by `search-index-file.ts`): the magic bytes
 * `CTXMSIX3`, the header's length and CRC-32 (32-bit little-endian each), the header (JSON: the
 * embedder, an analyzer fingerprint, where the card log stood, counts, checksums and where each
 * section is), then the sections, each at a multiple of 8 bytes:
 *
 * - read whole on load, under one CRC-32 (`checksums.body`): the card ids, their numbers in the
 *   order of the ids (for a binary search), their text hashes,
 *   each card's offset in the cards section, each card block's CRC-32, BM25's document lengths,
 *   each term's offset in the terms and the terms (UTF-8, sorted, looked up in place), the
 *   postings' starts, documents and frequencies, each card's vector row, type (a number into
 *   the header's `cardTypes`) and `createdAt` in milliseconds (64-bit floats);
 * - read block by block when a card is used, each block under its own CRC-32: the cards as JSON
 *   (`saved-card-blocks.ts`);
 * - read only when asked for, under `checksums.vectors`: the vectors (little-endian 32-bit
 *   floats, row after row).
 */
import { crc32 } from 'node:zlib';
import type { CheckedLogPosition } from '../memory/card-log-position.js';
import type { Bm25Postings } from './bm25-postings.js';
import { CARD_BLOCK, cardBlockChecksums } from './saved-card-blocks.js';
import { SearchIndexFileError } from './search-index-error.js';

export const MAGIC = Buffer.from('CTXMSIX3', 'latin1');
/** Magic bytes of the versions before, rebuilt as older. */
const OLDER_MAGICS = ['CTXMSIX1', 'CTXMSIX2'].map((magic) => Buffer.from(magic, 'latin1'));
const VERSION = 3;
/** Magic bytes, the header's length and its CRC-32. */
const PREFIX = MAGIC.length + 8;
/** Length of a text hash (`contentHash`: 16 hex digits). */
export const HASH_LENGTH = 16;

/** The sections read whole on load, in file order; the cards and the vectors follow them. */
export const BODY_SECTIONS = [
  'ids',
  'idOrder',
  'hashes',
  'cardOffsets',
  'cardChecksums',
  'lengths',
  'termOffsets',
  'terms',
  'starts',
  'documents',
  'frequencies',
  'rows',
  'typeCodes',
  'times',
] as const;
const SECTIONS = [...BODY_SECTIONS, 'cards', 'vectors'] as const;
export type Section = (typeof SECTIONS)[number];

export interface Header {
  version: number;
  embedderId: string;
  dimensions: number;
  analyzer: string;
  log: CheckedLogPosition | null;
  count: number;
  termCount: number;
  vectorRows: number;
  /** The card types `typeCodes` number. */
  cardTypes: string[];
  /** Cards per checked block (`CARD_BLOCK` when written). */
  cardBlock: number;
  /** CRC-32 of the body (from the first section to the cards) and of the vectors. */
  checksums: { body: number; vectors: number };
  /** Section → [byte offset in the file, byte length]. */
  sections: Record<Section, [number, number]>;
}

/** What a saved index holds as written and as read alike. */
export interface SavedIndexBase {
  embedderId: string;
  dimensions: number;
  /** The analyzer's output for a fixed probe text: differs when the analysis changed. */
  analyzer: string;
  /** Where the store's card log stood for these cards (stores with a log). */
  log?: CheckedLogPosition;
  ids: string[];
  /** Card numbers in the order of their ids. */
  idOrder: Uint32Array;
  /** Each card's row in `vectors`, or -1. */
  rows: Int32Array;
  /** Each card's `createdAt` in milliseconds since 1970 (0 when it is not a date). */
  times: Float64Array;
}

/** What is written: the cards as JSON, the rest as it will be read. */
export interface SearchIndexContents extends SavedIndexBase {
  hashes: string[];
  cardJson: string[];
  /** Each card's type (for the sequence, without parsing). */
  types: string[];
  postings: Bm25Postings;
  vectors: Float32Array;
}

const align = (offset: number) => Math.ceil(offset / 8) * 8;

export const bytesOf = (array: ArrayBufferView) =>
  Buffer.from(array.buffer, array.byteOffset, array.byteLength);

/** Byte offsets of each of `buffers` when concatenated, and the total last. */
function offsetsOf(buffers: readonly Buffer[]): Uint32Array {
  const offsets = new Uint32Array(buffers.length + 1);
  buffers.forEach((buffer, number) => {
    offsets[number + 1] = offsets[number]! + buffer.length;
  });
  return offsets;
}

export function encodeSearchIndex(index: SearchIndexContents): Buffer {
  const cardBuffers = index.cardJson.map((json) => Buffer.from(json, 'utf8'));
  const cardOffsets = offsetsOf(cardBuffers);
  const cards = Buffer.concat(cardBuffers);
  const termBuffers = index.postings.terms.map((term) => Buffer.from(term, 'utf8'));
  const cardTypes = [...new Set(index.types)];
  if (cardTypes.length > 256) throw new Error('more than 256 card types');
  const typeCodes = Uint8Array.from(index.types, (type) => cardTypes.indexOf(type));
  const parts: Record<Section, Buffer> = {
    ids: Buffer.from(index.ids.join('\n'), 'utf8'),
    idOrder: bytesOf(index.idOrder),
    hashes: Buffer.from(index.hashes.join(''), 'latin1'),
    cardOffsets: bytesOf(cardOffsets),
    cardChecksums: bytesOf(cardBlockChecksums(cards, cardOffsets)),
    lengths: bytesOf(index.postings.lengths),
    termOffsets: bytesOf(offsetsOf(termBuffers)),
    terms: Buffer.concat(termBuffers),
    starts: bytesOf(index.postings.starts),
    documents: bytesOf(index.postings.documents),
    frequencies: bytesOf(index.postings.frequencies),
    rows: bytesOf(index.rows),
    typeCodes: bytesOf(typeCodes),
    times: bytesOf(index.times),
    cards,
    vectors: bytesOf(index.vectors),
  };
  // Offsets depend on the header's length, which depends on the offsets: lay the sections out
  // after a header of the final length (the offsets' digits only grow with the header).
  let headerLength = 0;
  let header: Header | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    let at = align(PREFIX + headerLength);
    const sections = {} as Header['sections'];
    for (const section of SECTIONS) {
      sections[section] = [at, parts[section].length];
      at = align(at + parts[section].length);
    }
    header = {
      version: VERSION,
      embedderId: index.embedderId,
      dimensions: index.dimensions,
      analyzer: index.analyzer,
      log: index.log ?? null,
      count: index.ids.length,
      termCount: index.postings.terms.length,
      vectorRows: index.vectors.length / index.dimensions,
      cardTypes,
      cardBlock: CARD_BLOCK,
      checksums: { body: 0, vectors: 0 },
      sections,
    };
    const length = Buffer.byteLength(JSON.stringify(header), 'utf8');
    if (length + 32 <= headerLength) break;
    headerLength = length + 32;
  }
  const { sections } = header!;
  const buffer = Buffer.alloc(sections.vectors[0] + sections.vectors[1]);
  for (const section of SECTIONS) parts[section].copy(buffer, sections[section][0]);
  header!.checksums = {
    body: crc32(buffer.subarray(sections.ids[0], sections.cards[0])),
    vectors: crc32(parts.vectors),
  };
  const final = Buffer.from(JSON.stringify(header), 'utf8');
  // Padded with spaces to the length the sections were laid out for (JSON allows them).
  const json = Buffer.concat([final, Buffer.alloc(headerLength - final.length, 0x20)]);
  MAGIC.copy(buffer, 0);
  buffer.writeUInt32LE(json.length, MAGIC.length);
  buffer.writeUInt32LE(crc32(json), MAGIC.length + 4);
  json.copy(buffer, PREFIX);
  return buffer;
}

const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
export const damaged = (reason: string) => new SearchIndexFileError(reason);

/** The header of a file that starts with `prefix`, and where it ends. */
export function parseHeader(prefix: Buffer): { header: Header; end: number } {
  const magic = prefix.subarray(0, MAGIC.length);
  if (OLDER_MAGICS.some((older) => magic.equals(older))) {
    throw damaged('was written by an older version of ctxmem');
  }
  if (prefix.length < PREFIX || !magic.equals(MAGIC)) {
    throw damaged('is not a ctxmem search index');
  }
  const end = PREFIX + prefix.readUInt32LE(MAGIC.length);
  if (end > prefix.length) throw damaged('is cut short');
  if (crc32(prefix.subarray(PREFIX, end)) !== prefix.readUInt32LE(MAGIC.length + 4)) {
    throw damaged('fails the checksum of its header');
  }
  let header: Header;
  try {
    header = JSON.parse(prefix.toString('utf8', PREFIX, end)) as Header;
  } catch {
    throw damaged('has a header that is not JSON');
  }
  if (
    header?.version !== VERSION ||
    typeof header.embedderId !== 'string' ||
    !(Number.isInteger(header.dimensions) && header.dimensions > 0) ||
    typeof header.analyzer !== 'string' ||
    !isCount(header.count) ||
    !isCount(header.termCount) ||
    !isCount(header.vectorRows) ||
    !Array.isArray(header.cardTypes) ||
    !header.cardTypes.every((type) => typeof type === 'string') ||
    header.cardBlock !== CARD_BLOCK ||
    !isCount(header.checksums?.body) ||
    !isCount(header.checksums?.vectors) ||
    typeof header.sections !== 'object' ||
    header.sections === null ||
    !SECTIONS.every((section) => {
      const [offset, length] = header.sections[section] ?? [];
      return isCount(offset) && isCount(length) && (offset as number) % 8 === 0;
    }) ||
    !SECTIONS.every(
      (section, position) =>
        position === 0 ||
        header.sections[section][0] >=
          header.sections[SECTIONS[position - 1]!][0] + header.sections[SECTIONS[position - 1]!][1],
    ) ||
    header.sections.ids[0] < end
  ) {
    throw damaged('has a header that is not a search index header');
  }
  return { header, end };
}
