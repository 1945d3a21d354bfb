/**
 * The cards of a saved search index, read from the file only when used (see
 * `search-index-file.ts`): a search at 100,000 cards uses a few hundred of them, and reading and
 * checking all of them took longer than the rest of loading. Cards are read in blocks of
 * `CARD_BLOCK` cards, each with its own CRC-32, checked when the block is read; a block that fails
 * it throws `SearchIndexFileError` (the search then rebuilds the scope from its cards, see
 * `memory-search.ts`).
 *
 * The file stays open while blocks remain unread: the cards are read from the file the index was
 * loaded from, even once another process saved a newer one over it (a rename). It is closed when
 * every block was read, or when the cards are garbage-collected.
 */
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { SearchIndexFileError } from './search-index-error.js';

/** Cards per checked block: small, so that a search reads little beyond the cards it uses. */
export const CARD_BLOCK = 16;

/** The saved cards, read and checked when used. */
export interface SavedCards {
  /** The JSON of card `number` (in the order of the index's ids). Throws `SearchIndexFileError`. */
  json(number: number): string;
  /** Closes the file now (the cards are not used any more); they can no longer be read. */
  close(): void;
}

/** Closes the file of cards that were garbage-collected before all of their blocks were read. */
const openFiles = new FinalizationRegistry<FileHandle>((handle) => {
  handle.close().catch(() => {});
});

export interface CardBlocksSource {
  /** The open index file (the cards take it over, and close it). */
  handle: FileHandle;
  /** Where the cards section starts in the file. */
  offset: number;
  /** Byte offset of each card in the section, and the section's length last. */
  cardOffsets: Uint32Array;
  /** CRC-32 of each block's bytes. */
  checksums: Uint32Array;
}

/** Block count for `count` cards. */
export const cardBlockCount = (count: number) => Math.ceil(count / CARD_BLOCK);

/** CRC-32 of each block of the cards section `bytes`. */
export function cardBlockChecksums(bytes: Buffer, cardOffsets: Uint32Array): Uint32Array {
  const count = cardOffsets.length - 1;
  const checksums = new Uint32Array(cardBlockCount(count));
  for (let block = 0; block < checksums.length; block++) {
    const start = cardOffsets[block * CARD_BLOCK]!;
    const end = cardOffsets[Math.min(count, (block + 1) * CARD_BLOCK)]!;
    checksums[block] = crc32(bytes.subarray(start, end));
  }
  return checksums;
}

class CardBlocks implements SavedCards {
  private readonly blocks: Array<Buffer | undefined>;
  private unread: number;
  private handle: FileHandle | undefined;

  constructor(private readonly source: CardBlocksSource) {
    this.blocks = new Array(source.checksums.length);
    this.unread = source.checksums.length;
    this.handle = source.handle;
    openFiles.register(this, source.handle, this);
  }

  json(number: number): string {
    const { cardOffsets } = this.source;
    const block = Math.floor(number / CARD_BLOCK);
    const bytes = this.blocks[block] ?? this.read(block);
    const base = cardOffsets[block * CARD_BLOCK]!;
    return bytes.toString('utf8', cardOffsets[number]! - base, cardOffsets[number + 1]! - base);
  }

  private read(block: number): Buffer {
    const { cardOffsets, checksums, offset } = this.source;
    const count = cardOffsets.length - 1;
    const start = cardOffsets[block * CARD_BLOCK]!;
    const end = cardOffsets[Math.min(count, (block + 1) * CARD_BLOCK)]!;
    const bytes = Buffer.allocUnsafe(end - start);
    let filled = 0;
    try {
      if (this.handle === undefined) throw new Error('the file is closed');
      while (filled < bytes.length) {
        const read = readSync(
          this.handle.fd,
          bytes,
          filled,
          bytes.length - filled,
          offset + start + filled,
        );
        if (read === 0) break;
        filled += read;
      }
    } catch (error) {
      throw new SearchIndexFileError(
        `cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (filled !== bytes.length) throw new SearchIndexFileError('is cut short');
    if (crc32(bytes) !== checksums[block]) {
      throw new SearchIndexFileError('fails the checksum of its cards');
    }
    this.blocks[block] = bytes;
    if (--this.unread === 0) this.close();
    return bytes;
  }

  close(): void {
    if (this.handle === undefined) return;
    openFiles.unregister(this);
    this.handle.close().catch(() => {});
    this.handle = undefined;
  }
}

/** The cards of `source`, read block by block on use. */
export function savedCardBlocks(source: CardBlocksSource): SavedCards {
  return new CardBlocks(source);
}
