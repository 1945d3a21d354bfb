/**
 * The entries of a scope loaded from its saved index (see `saved-search-index.ts`), made only
 * when used: a search of 100,000 cards uses a few hundred of them, and a map of 100,000 entry
 * objects cost more to build (and to collect) than the rest of loading. `SavedEntries` is the
 * scope's entry map: it finds a saved card's number by binary search in the saved id order,
 * makes its entry on first use, and keeps the changes since loading beside the saved ones.
 */
import type { MemoryCard, MemoryCardType } from '../contracts/index.js';
import type { Bm25Index } from './bm25-index.js';
import { bm25PostingAccess } from './bm25-index.js';
import {
  cardTime,
  type Entry,
  entryTime,
  entryType,
  type TypeAndTimeVisitor,
} from './scope-state.js';
import { type SavedSearchIndex, SearchIndexFileError } from './search-index-file.js';

/** What an entry indexes of a card: the text that is embedded, and its date terms. */
export type EntryTexts = (card: MemoryCard) => { text: string; dateTerms: string };

/** The text BM25 indexes for an entry: its text, then its date terms. */
export function keywordText({ text, dateTerms }: { text: string; dateTerms: string }): string {
  return dateTerms === '' ? text : `${text}\n${dateTerms}`;
}

/** What the saved entries of one loaded index share. */
interface SavedEntrySource {
  saved: SavedSearchIndex;
  textsOf: EntryTexts;
}

/** A saved card, parsed (and its texts derived) only when it is used. */
export class SavedEntry implements Entry {
  private parsed: MemoryCard | undefined;
  private texts: { text: string; dateTerms: string } | undefined;

  constructor(
    private readonly source: SavedEntrySource,
    private readonly number: number,
  ) {}

  get hash(): string {
    return this.source.saved.hash(this.number);
  }

  /** Throws `SearchIndexFileError` when the saved card cannot be read (see `memory-search.ts`). */
  get card(): MemoryCard {
    this.parsed ??= this.savedCard();
    return this.parsed;
  }

  /** Only ever given a card of the same texts (metadata changed). */
  set card(card: MemoryCard) {
    this.parsed = card;
  }

  get cardType(): MemoryCard['type'] {
    return this.parsed
      ? this.parsed.type
      : (this.source.saved.type(this.number) as MemoryCard['type']);
  }

  get createdTime(): number {
    return this.parsed ? cardTime(this.parsed) : this.source.saved.times[this.number]!;
  }

  get text(): string {
    this.texts ??= this.source.textsOf(this.card);
    return this.texts.text;
  }

  get dateTerms(): string {
    this.texts ??= this.source.textsOf(this.card);
    return this.texts.dateTerms;
  }

  /** The card as JSON: the saved text itself while the card was not replaced. */
  json(): string {
    return this.parsed ? JSON.stringify(this.parsed) : this.source.saved.cards.json(this.number);
  }

  private savedCard(): MemoryCard {
    const { saved } = this.source;
    let card: MemoryCard | undefined;
    try {
      card = JSON.parse(saved.cards.json(this.number)) as MemoryCard;
    } catch (error) {
      if (SearchIndexFileError.isInstance(error)) throw error;
    }
    // The checksums vouch for the bytes; this, for a writer that put a card in the wrong place.
    if (card === undefined || card.id !== saved.ids[this.number]) {
      throw new SearchIndexFileError('has a card that does not match its id');
    }
    return card;
  }
}

/**
 * A scope's entries as a `Map`, starting from the saved cards (in their saved order, then the
 * entries added since, as a map would keep them).
 */
export class SavedEntries implements Map<string, Entry> {
  readonly [Symbol.toStringTag] = 'Map';
  /** Entry of each saved card number, once used or replaced. */
  private readonly made: Array<Entry | undefined>;
  /** 1 for a saved card number that was deleted. */
  private readonly removed: Uint8Array;
  private removedCount = 0;
  /** Entries added since loading (a deleted saved card set again is one of them). */
  private readonly added = new Map<string, Entry>();

  constructor(private readonly source: SavedEntrySource) {
    this.made = new Array(source.saved.ids.length);
    this.removed = new Uint8Array(source.saved.ids.length);
  }

  /** The saved number of `id`, or -1: a binary search in the saved id order. */
  private numberOf(id: string): number {
    const { ids, idOrder } = this.source.saved;
    let low = 0;
    let high = idOrder.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ids[idOrder[middle]!]! < id) low = middle + 1;
      else high = middle;
    }
    const number = low < idOrder.length ? idOrder[low]! : -1;
    return number >= 0 && ids[number] === id ? number : -1;
  }

  /** The entry of saved card `number` (made now when not used before). */
  private entryAt(number: number): Entry {
    let entry = this.made[number];
    if (!entry) {
      entry = new SavedEntry(this.source, number);
      this.made[number] = entry;
    }
    return entry;
  }

  /** The entry saved card `number` was loaded as, even once replaced (its text is BM25's). */
  savedEntry(number: number): Entry {
    const entry = this.made[number];
    return entry instanceof SavedEntry ? entry : new SavedEntry(this.source, number);
  }

  get size(): number {
    return this.made.length - this.removedCount + this.added.size;
  }

  get(id: string): Entry | undefined {
    const added = this.added.get(id);
    if (added) return added;
    const number = this.numberOf(id);
    return number < 0 || this.removed[number] === 1 ? undefined : this.entryAt(number);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, entry: Entry): this {
    const number = this.added.has(id) ? -1 : this.numberOf(id);
    if (number >= 0 && this.removed[number] !== 1) this.made[number] = entry;
    else this.added.set(id, entry);
    return this;
  }

  delete(id: string): boolean {
    if (this.added.delete(id)) return true;
    const number = this.numberOf(id);
    if (number < 0 || this.removed[number] === 1) return false;
    this.removed[number] = 1;
    this.removedCount++;
    this.made[number] = undefined;
    return true;
  }

  clear(): void {
    this.removed.fill(1);
    this.removedCount = this.made.length;
    this.made.fill(undefined);
    this.added.clear();
  }

  /**
   * Every entry, in map order. Saved cards not used yet are given as entries made for this pass
   * only (going over every card must not keep an object per card).
   */
  *entries(): MapIterator<[string, Entry]> {
    const { ids } = this.source.saved;
    for (let number = 0; number < this.made.length; number++) {
      if (this.removed[number] === 1) continue;
      yield [ids[number]!, this.made[number] ?? new SavedEntry(this.source, number)];
    }
    yield* this.added;
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<Entry> {
    for (const [, entry] of this.entries()) yield entry;
  }

  /** `forEachTypeAndTime` (see `scope-state.ts`): from the saved sections for unused cards. */
  forEachTypeAndTime(visit: TypeAndTimeVisitor): void {
    const { ids, times } = this.source.saved;
    for (let number = 0; number < this.made.length; number++) {
      if (this.removed[number] === 1) continue;
      const entry = this.made[number];
      if (entry) visit(ids[number]!, entryType(entry), entryTime(entry));
      else visit(ids[number]!, this.source.saved.type(number) as MemoryCardType, times[number]!);
    }
    for (const [id, entry] of this.added) visit(id, entryType(entry), entryTime(entry));
  }

  [Symbol.iterator](): MapIterator<[string, Entry]> {
    return this.entries();
  }

  forEach(
    callback: (entry: Entry, id: string, map: Map<string, Entry>) => void,
    thisArgument?: unknown,
  ): void {
    for (const [id, entry] of this.entries()) callback.call(thisArgument, entry, id, this);
  }
}

/**
 * The saved cards as entries and BM25 filled with their saved postings: nothing is parsed,
 * analysed or even made per card until a card is used.
 */
export function adoptSavedIndex(
  saved: SavedSearchIndex,
  bm25: Bm25Index,
  textsOf: EntryTexts,
): SavedEntries | undefined {
  const access = bm25PostingAccess(bm25);
  if (!access) return undefined;
  const entries = new SavedEntries({ saved, textsOf });
  // The text BM25 adopted, even once the entry is replaced by a newer card.
  access.adopt(saved.ids, saved.postings, (number) => keywordText(entries.savedEntry(number)));
  return entries;
}
