/**
 * A memory search's indexes of one scope, saved beside the scope's cards so that a new process
 * loads them instead of reading the whole card log, analysing and embedding every card again
 * (see `saved-search-index.ts`; the bytes are laid out in `search-index-layout.ts`).
 *
 * Loading reads the small sections whole and checks them under one CRC-32, and uses the typed
 * ones in place; the terms stay bytes, decoded only when a search probes them; a card is read
 * (with its block, checked then) only when it is used; the vectors only when asked for. At
 * 100,000 cards that is a third of the file, and nothing is made per card but its id.
 *
 * It is a cache: a file of another embedder or analyzer is stale; a file that does not have this
 * layout, or whose checksums fail, is damaged (`SearchIndexFileError`); a file of versions 1 and
 * 2 is of an older version. Each is rebuilt.
 */
import { open } from 'node:fs/promises';
import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import { hasErrorCode, readFileRange, writeFileAtomic } from '../storage/index.js';
import type { AdoptablePostings, SortedTerms } from './bm25-postings.js';
import { cardBlockCount, type SavedCards, savedCardBlocks } from './saved-card-blocks.js';
import { SearchIndexFileError } from './search-index-error.js';
import {
  damaged,
  encodeSearchIndex,
  HASH_LENGTH,
  type Header,
  parseHeader,
  type SavedIndexBase,
  type SearchIndexContents,
  type Section,
} from './search-index-layout.js';

export type { SavedCards } from './saved-card-blocks.js';
export { SearchIndexFileError } from './search-index-error.js';
export type { SearchIndexContents } from './search-index-layout.js';

export interface SavedSearchIndex extends SavedIndexBase {
  /** Text hash of card `number`. */
  hash(number: number): string;
  cards: SavedCards;
  postings: AdoptablePostings;
  /** Type of card `number`. */
  type(number: number): string;
  /** Number of saved vector rows. */
  vectorRows: number;
  /** The vectors, when they were read (see `readSearchIndexFile`). */
  vectors?: Float32Array;
}

/** Whether this machine can read and write the typed sections in place (they are little-endian). */
export const canSaveSearchIndex = endianness() === 'LE';

/** A typed view of `bytes` (copied when it is not aligned for the type). */
function typed<Array extends Uint32Array | Int32Array | Float32Array | Float64Array>(
  make: (buffer: ArrayBuffer, offset: number, length: number) => Array,
  bytes: Buffer,
  size = 4,
): Array {
  if (bytes.length % size !== 0) throw damaged('has a section of the wrong length');
  const own = bytes.byteOffset % size === 0 ? bytes : Buffer.from(bytes);
  return make(own.buffer as ArrayBuffer, own.byteOffset, own.length / size);
}

const uint32 = (bytes: Buffer) => typed((...args) => new Uint32Array(...args), bytes);

function isMonotonic(values: Uint32Array, last: number): boolean {
  if (values[0] !== 0 || values[values.length - 1] !== last) return false;
  for (let position = 1; position < values.length; position++) {
    if (values[position]! < values[position - 1]!) return false;
  }
  return true;
}

/** The sorted terms, decoded one at a time as a binary search probes them. */
function termsInPlace(bytes: Buffer, offsets: Uint32Array): SortedTerms {
  const length = offsets.length - 1;
  const at = (position: number) => bytes.toString('utf8', offsets[position], offsets[position + 1]);
  return {
    length,
    at,
    indexOf(term) {
      let low = 0;
      let high = length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (at(middle) < term) low = middle + 1;
        else high = middle;
      }
      return low < length && at(low) === term ? low : -1;
    },
  };
}

/**
 * Decodes the body: `body` holds the file's bytes from `start` (the first section) to the cards.
 */
function decodeBody(
  header: Header,
  body: Buffer,
  start: number,
): Omit<SavedSearchIndex, 'cards'> & { cardOffsets: Uint32Array; cardChecksums: Uint32Array } {
  const { sections, count, termCount } = header;
  const section = (name: Section) => {
    const [offset, length] = sections[name];
    if (offset - start + length > body.length) throw damaged('is cut short');
    return body.subarray(offset - start, offset - start + length);
  };
  if (crc32(body) !== header.checksums.body) throw damaged('fails its checksum');
  const ids = count === 0 ? [] : section('ids').toString('utf8').split('\n');
  const idOrder = uint32(section('idOrder'));
  const hashText = section('hashes').toString('latin1');
  const cardOffsets = uint32(section('cardOffsets'));
  const cardChecksums = uint32(section('cardChecksums'));
  const lengths = uint32(section('lengths'));
  const termOffsets = uint32(section('termOffsets'));
  const termBytes = section('terms');
  const starts = uint32(section('starts'));
  const documents = typed((...args) => new Int32Array(...args), section('documents'));
  const frequencies = typed((...args) => new Float32Array(...args), section('frequencies'));
  const rows = typed((...args) => new Int32Array(...args), section('rows'));
  const typeCodes = section('typeCodes');
  const times = typed((...args) => new Float64Array(...args), section('times'), 8);
  const { cardTypes } = header;
  if (
    ids.length !== count ||
    idOrder.length !== count ||
    idOrder.some((number) => number >= count) ||
    hashText.length !== count * HASH_LENGTH ||
    cardOffsets.length !== count + 1 ||
    !isMonotonic(cardOffsets, sections.cards[1]) ||
    cardChecksums.length !== cardBlockCount(count) ||
    lengths.length !== count ||
    termOffsets.length !== termCount + 1 ||
    !isMonotonic(termOffsets, termBytes.length) ||
    starts.length !== termCount + 1 ||
    !isMonotonic(starts, documents.length) ||
    frequencies.length !== documents.length ||
    rows.length !== count ||
    typeCodes.length !== count ||
    typeCodes.some((code) => code >= cardTypes.length) ||
    times.length !== count ||
    sections.vectors[1] !== header.vectorRows * header.dimensions * 4
  ) {
    throw damaged('has sections that do not match');
  }
  // Document numbers, rows and the terms' order are not checked one by one: the checksum vouches
  // for what the writer wrote, and the writer writes them in range and sorted.
  return {
    embedderId: header.embedderId,
    dimensions: header.dimensions,
    analyzer: header.analyzer,
    ...(header.log ? { log: header.log } : {}),
    ids,
    idOrder,
    hash: (number) => hashText.slice(number * HASH_LENGTH, (number + 1) * HASH_LENGTH),
    postings: {
      lengths,
      terms: termsInPlace(termBytes, termOffsets),
      starts,
      documents,
      frequencies,
    },
    rows,
    type: (number) => cardTypes[typeCodes[number]!]!,
    times,
    vectorRows: header.vectorRows,
    cardOffsets,
    cardChecksums,
  };
}

/**
 * The saved index at `path`; undefined when there is none. Reads the vectors only when
 * `wantVectors(count)` says so (a search that embeds candidates on demand needs none), and the
 * cards only when used (the file stays open until then). Throws `SearchIndexFileError`.
 */
export async function readSearchIndexFile(
  path: string,
  wantVectors: (count: number) => boolean = () => true,
): Promise<SavedSearchIndex | undefined> {
  const handle = await open(path, 'r').catch((error: unknown) => {
    if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw new SearchIndexFileError(error instanceof Error ? error.message : String(error));
  });
  if (handle === undefined) return undefined;
  let keptOpen = false;
  try {
    const prefix = await readFileRange(handle, 0, 64 * 1024);
    const { header } = parseHeader(prefix);
    const { sections } = header;
    const [vectorsAt, vectorBytes] = sections.vectors;
    const size = vectorsAt + vectorBytes;
    const tail = await readFileRange(handle, size - 1, size + 1);
    if (tail.length !== 1) throw damaged(tail.length === 0 ? 'is cut short' : 'is too long');
    const [bodyAt] = sections.ids;
    const body = await readFileRange(handle, bodyAt, sections.cards[0]);
    const { cardOffsets, cardChecksums, ...decoded } = decodeBody(header, body, bodyAt);
    const index: SavedSearchIndex = {
      ...decoded,
      cards: { json: () => '', close: () => {} },
    };
    if (wantVectors(header.count)) {
      const bytes = await readFileRange(handle, vectorsAt, size);
      if (bytes.length !== vectorBytes) throw damaged('is cut short');
      if (crc32(bytes) !== header.checksums.vectors) throw damaged('fails its checksum');
      index.vectors = typed((...args) => new Float32Array(...args), bytes);
    }
    if (header.count > 0) {
      index.cards = savedCardBlocks({
        handle,
        offset: sections.cards[0],
        cardOffsets,
        checksums: cardChecksums,
      });
      keptOpen = true;
    }
    return index;
  } catch (error) {
    if (SearchIndexFileError.isInstance(error)) throw error;
    throw new SearchIndexFileError(error instanceof Error ? error.message : String(error));
  } finally {
    if (!keptOpen) await handle.close();
  }
}

/** Saves an index atomically (temp file, fsync, rename): readers see the old or the new one. */
export async function writeSearchIndexFile(
  path: string,
  index: SearchIndexContents,
): Promise<void> {
  await writeFileAtomic(path, encodeSearchIndex(index));
}
