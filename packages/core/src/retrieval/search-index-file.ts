/**
 * A memory search's indexes of one scope, saved beside the scope's cards so that a new process
 * loads them instead of analysing and embedding every card again (see `createMemorySearch`).
 *
 * Layout: the magic bytes `CTXMSIX1`, a 32-bit little-endian length, that many bytes of JSON
 * (the embedder, an analyzer fingerprint, a term dictionary, and per card: id, text hash, BM25
 * length, term numbers and counts, vector row), padding to 4 bytes, then the vectors as
 * little-endian 32-bit floats, row after row. The vectors are read in place, not parsed.
 *
 * It is a cache: every entry is used only for a card whose id and text hash it matches, the rest
 * is analysed and embedded anew. A file of another embedder or analyzer is stale; a file that
 * does not have this layout is damaged (`SearchIndexFileError`). Either is rebuilt.
 */
import { readFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { hasErrorCode, writeFileAtomic } from '../storage/index.js';
import type { Bm25Document } from './bm25-index.js';

const MAGIC = Buffer.from('CTXMSIX1', 'latin1');
const VERSION = 1;

/** What a saved index holds for one card. */
export interface SavedSearchEntry {
  hash: string;
  document: Bm25Document;
  /** Row of its vector in `vectors`, or -1. */
  row: number;
}

export interface SavedSearchIndex {
  embedderId: string;
  dimensions: number;
  /** The analyzer's output for a fixed probe text: differs when the analysis changed. */
  analyzer: string;
  entries: Map<string, SavedSearchEntry>;
  vectors: Float32Array;
}

/** A saved index that cannot be read: it is rebuilt. */
export class SearchIndexFileError extends Error {}

interface Header {
  version: number;
  embedderId: string;
  dimensions: number;
  analyzer: string;
  terms: string[];
  /** id, hash, length, term numbers, counts, vector row */
  entries: Array<[string, string, number, number[], number[], number]>;
  rows: number;
}

/** Whether this machine can read and write the vectors in place (they are little-endian). */
export const canSaveSearchIndex = endianness() === 'LE';

export function encodeSearchIndex(index: SavedSearchIndex): Buffer {
  const termNumbers = new Map<string, number>();
  const terms: string[] = [];
  const entries: Header['entries'] = [];
  for (const [id, { hash, document, row }] of index.entries) {
    const numbers = document.terms.map((term) => {
      let number = termNumbers.get(term);
      if (number === undefined) {
        number = terms.length;
        terms.push(term);
        termNumbers.set(term, number);
      }
      return number;
    });
    entries.push([id, hash, document.length, numbers, document.counts, row]);
  }
  const header: Header = {
    version: VERSION,
    embedderId: index.embedderId,
    dimensions: index.dimensions,
    analyzer: index.analyzer,
    terms,
    entries,
    rows: index.vectors.length / index.dimensions,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const vectorsAt = align(MAGIC.length + 4 + json.length);
  const buffer = Buffer.alloc(vectorsAt + index.vectors.byteLength);
  MAGIC.copy(buffer, 0);
  buffer.writeUInt32LE(json.length, MAGIC.length);
  json.copy(buffer, MAGIC.length + 4);
  Buffer.from(index.vectors.buffer, index.vectors.byteOffset, index.vectors.byteLength).copy(
    buffer,
    vectorsAt,
  );
  return buffer;
}

const align = (offset: number) => Math.ceil(offset / 4) * 4;

const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;

export function decodeSearchIndex(buffer: Buffer): SavedSearchIndex {
  const damaged = (reason: string) => new SearchIndexFileError(reason);
  if (buffer.length < MAGIC.length + 4 || !buffer.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw damaged('it is not a ctxmem search index');
  }
  const jsonLength = buffer.readUInt32LE(MAGIC.length);
  const jsonEnd = MAGIC.length + 4 + jsonLength;
  if (jsonEnd > buffer.length) throw damaged('it is cut short');
  let header: Header;
  try {
    header = JSON.parse(buffer.toString('utf8', MAGIC.length + 4, jsonEnd)) as Header;
  } catch {
    throw damaged('its header is not JSON');
  }
  if (
    header?.version !== VERSION ||
    typeof header.embedderId !== 'string' ||
    !(Number.isInteger(header.dimensions) && header.dimensions > 0) ||
    typeof header.analyzer !== 'string' ||
    !Array.isArray(header.terms) ||
    !Array.isArray(header.entries) ||
    !isCount(header.rows)
  ) {
    throw damaged('its header is not a search index header');
  }
  const vectorsAt = align(jsonEnd);
  const floats = header.rows * header.dimensions;
  if (buffer.length !== vectorsAt + floats * 4) throw damaged('its vectors are cut short');
  // In place when aligned (a file this large is read into its own memory, so it is).
  const vectors =
    (buffer.byteOffset + vectorsAt) % 4 === 0
      ? new Float32Array(buffer.buffer, buffer.byteOffset + vectorsAt, floats)
      : new Float32Array(buffer.subarray(vectorsAt).buffer.slice(0));
  const entries = new Map<string, SavedSearchEntry>();
  for (const entry of header.entries) {
    const [id, hash, length, numbers, counts, row] = Array.isArray(entry) ? entry : [];
    if (
      typeof id !== 'string' ||
      typeof hash !== 'string' ||
      !isCount(length) ||
      !Array.isArray(numbers) ||
      !Array.isArray(counts) ||
      numbers.length !== counts.length ||
      !Number.isInteger(row) ||
      (row as number) < -1 ||
      (row as number) >= header.rows
    ) {
      throw damaged('an entry is malformed');
    }
    const terms = numbers.map((number) => header.terms[number]);
    if (terms.some((term) => typeof term !== 'string') || !counts.every(isCount)) {
      throw damaged('an entry is malformed');
    }
    entries.set(id, {
      hash,
      document: { length: length as number, terms: terms as string[], counts },
      row: row as number,
    });
  }
  return {
    embedderId: header.embedderId,
    dimensions: header.dimensions,
    analyzer: header.analyzer,
    entries,
    vectors,
  };
}

/** The saved index at `path`; undefined when there is none. Throws `SearchIndexFileError`. */
export async function readSearchIndexFile(path: string): Promise<SavedSearchIndex | undefined> {
  let buffer: Buffer;
  try {
    buffer = await readFile(path);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw new SearchIndexFileError(error instanceof Error ? error.message : String(error));
  }
  return decodeSearchIndex(buffer);
}

/** Saves an index atomically (temp file, fsync, rename): readers see the old or the new one. */
export async function writeSearchIndexFile(path: string, index: SavedSearchIndex): Promise<void> {
  await writeFileAtomic(path, encodeSearchIndex(index));
}
