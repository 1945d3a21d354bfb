/**
 * A memory search's indexes of one scope, saved beside the scope's cards so that a new process
 * loads them instead of reading the whole card log, analysing and embedding every card again
 * (see `saved-search-index.ts`).
 *
 * Layout (version 2): the magic bytes `CTXMSIX2`, a 32-bit little-endian length, that many bytes
 * of JSON (the embedder, an analyzer fingerprint, where the card log stood, counts, a CRC-32 and
 * where each section is), then the sections, each at a multiple of 8 bytes: the card ids, their
 * text hashes, the cards as JSON (with their offsets), BM25's document lengths, terms and
 * postings, each card's vector row, and last the vectors (little-endian 32-bit floats, row after
 * row). Typed sections are used in place, not parsed; a card's JSON is parsed only when the card
 * is used; the vectors are read only when asked for.
 *
 * It is a cache: a file of another embedder or analyzer is stale; a file that does not have this
 * layout, or whose checksum fails, is damaged (`SearchIndexFileError`); a version-1 file is of an
 * older version. Each is rebuilt.
 */
import { open } from 'node:fs/promises';
import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import type { CheckedLogPosition } from '../memory/card-log-position.js';
import { hasErrorCode, readFileRange, writeFileAtomic } from '../storage/index.js';
import type { Bm25Postings } from './bm25-index.js';

const MAGIC = Buffer.from('CTXMSIX2', 'latin1');
const OLDER_MAGIC = Buffer.from('CTXMSIX1', 'latin1');
const VERSION = 2;
/** Length of a text hash (`contentHash`: 16 hex digits). */
const HASH_LENGTH = 16;

/** The saved cards, parsed one by one when used. */
export interface SavedCards {
  /** The JSON of card `number` (in the order of `ids`). */
  json(number: number): string;
}

export interface SavedSearchIndex {
  embedderId: string;
  dimensions: number;
  /** The analyzer's output for a fixed probe text: differs when the analysis changed. */
  analyzer: string;
  /** Where the store's card log stood for these cards (stores with a log). */
  log?: CheckedLogPosition;
  ids: string[];
  /** Text hash of card `number`. */
  hash(number: number): string;
  cards: SavedCards;
  postings: Bm25Postings;
  /** Each card's row in `vectors`, or -1. */
  rows: Int32Array;
  /** Number of saved vector rows. */
  vectorRows: number;
  /** The vectors, when they were read (see `readSearchIndexFile`). */
  vectors?: Float32Array;
}

/** What is written: the cards as JSON, the rest as it will be read. */
export type SearchIndexContents = Omit<
  SavedSearchIndex,
  'hash' | 'cards' | 'vectorRows' | 'vectors'
> & {
  hashes: string[];
  cardJson: string[];
  vectors: Float32Array;
};

/** A saved index that cannot be read: it is rebuilt. */
export class SearchIndexFileError extends Error {
  static isInstance(error: unknown): error is SearchIndexFileError {
    return error instanceof SearchIndexFileError;
  }
}

const SECTIONS = [
  'ids',
  'hashes',
  'cards',
  'cardOffsets',
  'lengths',
  'terms',
  'starts',
  'documents',
  'frequencies',
  'rows',
  'vectors',
] as const;
type Section = (typeof SECTIONS)[number];

interface Header {
  version: number;
  embedderId: string;
  dimensions: number;
  analyzer: string;
  log: CheckedLogPosition | null;
  count: number;
  vectorRows: number;
  /** CRC-32 of the bytes from the first section to the start of the vectors. */
  checksum: number;
  /** Section → [byte offset in the file, byte length]. */
  sections: Record<Section, [number, number]>;
}

/** Whether this machine can read and write the typed sections in place (they are little-endian). */
export const canSaveSearchIndex = endianness() === 'LE';

const align = (offset: number) => Math.ceil(offset / 8) * 8;

const bytesOf = (array: ArrayBufferView) =>
  Buffer.from(array.buffer, array.byteOffset, array.byteLength);

export function encodeSearchIndex(index: SearchIndexContents): Buffer {
  const cardBuffers = index.cardJson.map((json) => Buffer.from(json, 'utf8'));
  const cardOffsets = new Uint32Array(cardBuffers.length + 1);
  cardBuffers.forEach((buffer, number) => {
    cardOffsets[number + 1] = cardOffsets[number]! + buffer.length;
  });
  const parts: Record<Section, Buffer> = {
    ids: Buffer.from(index.ids.join('\n'), 'utf8'),
    hashes: Buffer.from(index.hashes.join(''), 'latin1'),
    cards: Buffer.concat(cardBuffers),
    cardOffsets: bytesOf(cardOffsets),
    lengths: bytesOf(index.postings.lengths),
    terms: Buffer.from(JSON.stringify(index.postings.terms), 'utf8'),
    starts: bytesOf(index.postings.starts),
    documents: bytesOf(index.postings.documents),
    frequencies: bytesOf(index.postings.frequencies),
    rows: bytesOf(index.rows),
    vectors: bytesOf(index.vectors),
  };
  // Offsets depend on the header's length, which depends on the offsets: lay the sections out
  // after a header of the final length (the offsets' digits only grow with the header).
  let headerLength = 0;
  let header: Header | undefined;
  let json = Buffer.alloc(0);
  for (let attempt = 0; attempt < 4; attempt++) {
    let at = align(MAGIC.length + 4 + headerLength);
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
      vectorRows: index.vectors.length / index.dimensions,
      checksum: 0,
      sections,
    };
    json = Buffer.from(JSON.stringify(header), 'utf8');
    if (json.length + 16 <= headerLength) break;
    headerLength = json.length + 16;
  }
  const sections = header!.sections;
  const total = sections.vectors[0] + sections.vectors[1];
  const buffer = Buffer.alloc(total);
  for (const section of SECTIONS) parts[section].copy(buffer, sections[section][0]);
  header!.checksum = crc32(buffer.subarray(sections.ids[0], sections.vectors[0]));
  const final = Buffer.from(JSON.stringify(header), 'utf8');
  // Padded with spaces to the length the sections were laid out for (JSON allows them).
  json = Buffer.concat([final, Buffer.alloc(headerLength - final.length, 0x20)]);
  MAGIC.copy(buffer, 0);
  buffer.writeUInt32LE(json.length, MAGIC.length);
  json.copy(buffer, MAGIC.length + 4);
  return buffer;
}

const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
const damaged = (reason: string) => new SearchIndexFileError(reason);

function parseHeader(prefix: Buffer): { header: Header; end: number } {
  if (prefix.length >= OLDER_MAGIC.length && prefix.subarray(0, 8).equals(OLDER_MAGIC)) {
    throw damaged('was written by an older version of ctxmem');
  }
  if (prefix.length < MAGIC.length + 4 || !prefix.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw damaged('is not a ctxmem search index');
  }
  const end = MAGIC.length + 4 + prefix.readUInt32LE(MAGIC.length);
  if (end > prefix.length) throw damaged('is cut short');
  let header: Header;
  try {
    header = JSON.parse(prefix.toString('utf8', MAGIC.length + 4, end)) as Header;
  } catch {
    throw damaged('has a header that is not JSON');
  }
  if (
    header?.version !== VERSION ||
    typeof header.embedderId !== 'string' ||
    !(Number.isInteger(header.dimensions) && header.dimensions > 0) ||
    typeof header.analyzer !== 'string' ||
    !isCount(header.count) ||
    !isCount(header.vectorRows) ||
    !isCount(header.checksum) ||
    typeof header.sections !== 'object' ||
    header.sections === null ||
    !SECTIONS.every((section) => {
      const [offset, length] = header.sections[section] ?? [];
      return isCount(offset) && isCount(length) && (offset as number) % 8 === 0;
    })
  ) {
    throw damaged('has a header that is not a search index header');
  }
  return { header, end };
}

/** A typed view of `bytes` (copied when it is not aligned for the type). */
function typed<Array extends Uint32Array | Int32Array | Float32Array>(
  make: (buffer: ArrayBuffer, offset: number, length: number) => Array,
  bytes: Buffer,
): Array {
  if (bytes.length % 4 !== 0) throw damaged('has a section of the wrong length');
  const own = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
  return make(own.buffer as ArrayBuffer, own.byteOffset, own.length / 4);
}

function isMonotonic(values: Uint32Array, last: number): boolean {
  if (values[0] !== 0 || values[values.length - 1] !== last) return false;
  for (let position = 1; position < values.length; position++) {
    if (values[position]! < values[position - 1]!) return false;
  }
  return true;
}

/** Decodes the sections before the vectors; `body` holds the file from offset 0 up to them. */
function decodeBody(header: Header, body: Buffer): SavedSearchIndex {
  const { sections, count } = header;
  const section = (name: Section) => {
    const [offset, length] = sections[name];
    if (offset + length > body.length) throw damaged('is cut short');
    return body.subarray(offset, offset + length);
  };
  if (sections.vectors[0] > body.length) throw damaged('is cut short');
  if (crc32(body.subarray(sections.ids[0], sections.vectors[0])) !== header.checksum) {
    throw damaged('fails its checksum');
  }
  const idText = section('ids').toString('utf8');
  const ids = count === 0 ? [] : idText.split('\n');
  const hashText = section('hashes').toString('latin1');
  const cardBytes = section('cards');
  const cardOffsets = typed((...args) => new Uint32Array(...args), section('cardOffsets'));
  const lengths = typed((...args) => new Uint32Array(...args), section('lengths'));
  const starts = typed((...args) => new Uint32Array(...args), section('starts'));
  const documents = typed((...args) => new Int32Array(...args), section('documents'));
  const frequencies = typed((...args) => new Float32Array(...args), section('frequencies'));
  const rows = typed((...args) => new Int32Array(...args), section('rows'));
  let terms: unknown;
  try {
    terms = JSON.parse(section('terms').toString('utf8'));
  } catch {
    throw damaged('has terms that are not JSON');
  }
  if (
    ids.length !== count ||
    hashText.length !== count * HASH_LENGTH ||
    cardOffsets.length !== count + 1 ||
    !isMonotonic(cardOffsets, cardBytes.length) ||
    lengths.length !== count ||
    !Array.isArray(terms) ||
    !terms.every(
      (term, position) =>
        typeof term === 'string' && (position === 0 || (terms as string[])[position - 1]! < term),
    ) ||
    starts.length !== terms.length + 1 ||
    !isMonotonic(starts, documents.length) ||
    frequencies.length !== documents.length ||
    rows.length !== count ||
    sections.vectors[1] !== header.vectorRows * header.dimensions * 4
  ) {
    throw damaged('has sections that do not match');
  }
  // Document numbers and rows are not checked one by one: the checksum vouches for what the
  // writer wrote, and the writer writes them in range.
  return {
    embedderId: header.embedderId,
    dimensions: header.dimensions,
    analyzer: header.analyzer,
    ...(header.log ? { log: header.log } : {}),
    ids,
    hash: (number) => hashText.slice(number * HASH_LENGTH, (number + 1) * HASH_LENGTH),
    cards: {
      json: (number) => cardBytes.toString('utf8', cardOffsets[number], cardOffsets[number + 1]),
    },
    postings: { lengths, terms: terms as string[], starts, documents, frequencies },
    rows,
    vectorRows: header.vectorRows,
  };
}

/** Decodes a whole saved index, vectors included. Throws `SearchIndexFileError`. */
export function decodeSearchIndex(buffer: Buffer): SavedSearchIndex {
  const { header } = parseHeader(buffer);
  const decoded = decodeBody(header, buffer);
  const [offset, length] = header.sections.vectors;
  if (offset + length !== buffer.length) throw damaged('is cut short');
  decoded.vectors = typed(
    (...args) => new Float32Array(...args),
    buffer.subarray(offset, offset + length),
  );
  return decoded;
}

/**
 * The saved index at `path`; undefined when there is none. Reads the vectors only when
 * `wantVectors(count)` says so (a search that embeds candidates on demand needs none). Throws
 * `SearchIndexFileError`.
 */
export async function readSearchIndexFile(
  path: string,
  wantVectors: (count: number) => boolean = () => true,
): Promise<SavedSearchIndex | undefined> {
  const handle = await open(path, 'r').catch((error: unknown) => {
    if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw new SearchIndexFileError(error instanceof Error ? error.message : String(error));
  });
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    const prefix = await readFileRange(handle, 0, Math.min(size, 64 * 1024));
    const { header, end } = parseHeader(prefix);
    const [vectorsAt, vectorBytes] = header.sections.vectors;
    if (vectorsAt + vectorBytes !== size) throw damaged('is cut short');
    const withVectors = wantVectors(header.count);
    const body = await readFileRange(handle, 0, withVectors ? size : vectorsAt);
    if (end > body.length) throw damaged('is cut short');
    const decoded = decodeBody(header, body);
    if (withVectors) {
      decoded.vectors = typed(
        (...args) => new Float32Array(...args),
        body.subarray(vectorsAt, vectorsAt + vectorBytes),
      );
    }
    return decoded;
  } catch (error) {
    if (SearchIndexFileError.isInstance(error)) throw error;
    throw new SearchIndexFileError(error instanceof Error ? error.message : String(error));
  } finally {
    await handle.close();
  }
}

/** Saves an index atomically (temp file, fsync, rename): readers see the old or the new one. */
export async function writeSearchIndexFile(
  path: string,
  index: SearchIndexContents,
): Promise<void> {
  await writeFileAtomic(path, encodeSearchIndex(index));
}
