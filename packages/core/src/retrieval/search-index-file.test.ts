/**
 * The saved search index, version 3, through the public API: a file store, `createMemorySearch`
 * and its index events. The file's layout is read here only to damage one section at a time.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryCardDraft, Scope } from '../contracts/index.js';
import { createFileMemoryStore } from '../memory/index.js';
import { scopeFolder } from '../storage/index.js';
import { createMemorySearch, type MemorySearchOptions, type SearchIndexEvent } from './index.js';

let base: string;
let counter = 0;
const scope: Scope = { userId: 'u3' };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxmem-index-file-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const colours = ['red', 'blue', 'green', 'amber'];
/** Facts, and a transcript of episodes (the sequence), with dates. */
const drafts: MemoryCardDraft[] = Array.from({ length: 60 }, (_, index) =>
  index % 3 === 0
    ? {
        content: `Turn ${index}: we talked about the ${colours[index % 4]} deploy on 2024-03-${String((index % 28) + 1).padStart(2, '0')}`,
        type: 'episode',
      }
    : {
        content: `Fact ${index}: the ${colours[index % 4]} service ${index} deploys on Fridays`,
        type: index % 2 === 0 ? 'preference' : 'fact',
        tags: [`t${index % 5}`],
      },
);
const queries = ['green deploy', 'what did we talk about the amber deploy', 'service 7 Fridays'];
/** Every card holds this word: a search for it reads every saved card. */
const everyCard = 'deploy';

async function filledRoot(): Promise<string> {
  const root = join(base, `root-${counter++}`);
  const store = createFileMemoryStore({ root });
  // In batches with distinct creation times, so that the sequence has an order to keep.
  for (let start = 0; start < drafts.length; start += 20) {
    await store.add(scope, drafts.slice(start, start + 20));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return root;
}

const settings: Partial<MemorySearchOptions> = { sequenceContext: { types: ['episode'] } };

/** A new process: a new store and a new search on the same files. */
function open(root: string, events: SearchIndexEvent[] = []) {
  return createMemorySearch({
    ...settings,
    store: createFileMemoryStore({ root }),
    onIndexEvent: (event) => events.push(event),
  });
}

type Search = ReturnType<typeof createMemorySearch>;
async function answers(search: Search) {
  const all = [...queries, everyCard].map(async (query) =>
    (await search.search(scope, query, { topK: query === everyCard ? 60 : 5 })).map((hit) => [
      hit.card.id,
      hit.card.type,
      hit.card.content,
      hit.score,
    ]),
  );
  return Promise.all(all);
}

async function savedIndexPath(root: string): Promise<string> {
  const folder = scopeFolder(root, scope);
  const name = (await readdir(folder)).find((file) => file.startsWith('search-index-'));
  expect(name).toBeDefined();
  return join(folder, name!);
}

/** The header of a version-3 file: magic (8), length (4), CRC-32 (4), JSON. */
function headerOf(bytes: Buffer): { sections: Record<string, [number, number]> } {
  const length = bytes.readUInt32LE(8);
  return JSON.parse(bytes.toString('utf8', 16, 16 + length));
}

/** The sections of a version-3 file, and its header. */
const sections = [
  'header',
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
  'cards',
  'vectors',
];

describe('saved search index, version 3', () => {
  it('round trip: a new process answers exactly as the process that saved, and as a fresh search', async () => {
    const root = await filledRoot();
    const first = open(root);
    await first.sync(scope);
    const expected = await answers(first);
    const bytes = await readFile(await savedIndexPath(root));
    expect(bytes.subarray(0, 8).toString('latin1')).toBe('CTXMSIX3');
    // The damage tests below cover every section the file has.
    expect(Object.keys(headerOf(bytes).sections).sort()).toEqual(
      sections.filter((section) => section !== 'header').sort(),
    );

    const events: SearchIndexEvent[] = [];
    const next = open(root, events);
    expect(await next.sync(scope)).toMatchObject({ cards: drafts.length, embedded: 0 });
    expect(await answers(next)).toEqual(expected);
    expect(events).toEqual([]);

    // The same cards indexed from the log alone (no saved index) answer the same.
    await rm(await savedIndexPath(root));
    expect(await answers(open(root))).toEqual(expected);
  });

  it('stale: cards appended and removed after the save are read from the log', async () => {
    const root = await filledRoot();
    await open(root).sync(scope);
    const store = createFileMemoryStore({ root });
    await store.add(scope, [
      { content: 'Turn 99: we talked about the green deploy again', type: 'episode' },
    ]);
    const [removed] = await store.list(scope);
    await store.remove(scope, [removed!.id]);

    const next = open(root);
    expect(await next.sync(scope)).toMatchObject({ cards: drafts.length, embedded: 1 });
    // The same cards indexed from the log alone (no saved index) answer the same.
    await rm(await savedIndexPath(root));
    const reference = open(root);
    expect(await answers(next)).toEqual(await answers(reference));
    const all = await next.search(scope, everyCard, { topK: 100 });
    expect(all.map((hit) => hit.card.id)).not.toContain(removed!.id);
    expect(all.map((hit) => hit.card.content)).toContain(
      'Turn 99: we talked about the green deploy again',
    );
  });

  // Every section, damaged by one byte: the file is rebuilt once, with an event, whether the
  // damage is found on load (the header, the body, the vectors) or when a card is first used.
  it.each(sections)(
    'damaged %s: rebuilt once, with an event, and the same answers',
    async (section) => {
      const root = await filledRoot();
      const first = open(root);
      await first.sync(scope);
      const expected = await answers(first);
      const path = await savedIndexPath(root);
      const bytes = await readFile(path);
      const [offset, length] =
        section === 'header' ? [16, bytes.readUInt32LE(8)] : headerOf(bytes).sections[section]!;
      expect(length).toBeGreaterThan(0);
      const at = offset + Math.floor(length / 2);
      bytes[at] = bytes[at]! ^ 0x5a;
      await writeFile(path, bytes);

      const events: SearchIndexEvent[] = [];
      const second = open(root, events);
      await second.sync(scope);
      expect(await answers(second)).toEqual(expected);
      expect(events).toEqual([expect.objectContaining({ type: 'search-index-rebuilt', path })]);
      expect(events[0]!.message).toMatch(/checksum/);

      // Saved again: the next process loads it without an event. Damage found on load is
      // rebuilt by the sync, which saves the vectors too; a card found damaged by a search is
      // repaired without embedding every card inside that search (the next sync saves them).
      const third = open(root, events);
      expect((await third.sync(scope)).embedded).toBe(section === 'cards' ? drafts.length : 0);
      expect(await answers(third)).toEqual(expected);
      expect(events).toHaveLength(1);
    },
  );

  it('a damaged card found by a search: the search still answers right, and reports it once', async () => {
    const root = await filledRoot();
    const first = open(root);
    await first.sync(scope);
    const expected = await answers(first);
    const path = await savedIndexPath(root);
    const bytes = await readFile(path);
    const [offset, length] = headerOf(bytes).sections.cards!;
    bytes[offset + length - 3] = bytes[offset + length - 3]! ^ 0x01;
    await writeFile(path, bytes);

    const events: SearchIndexEvent[] = [];
    const second = open(root, events);
    // Loading reads no card: nothing is found yet.
    await second.sync(scope);
    expect(events).toEqual([]);
    // No sync before the search: the search itself finds the damage, rebuilds and saves.
    const direct = open(root, events);
    expect(await answers(direct)).toEqual(expected);
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toMatch(/checksum of its cards/);
    expect(await answers(open(root, events))).toEqual(expected);
    expect(events).toHaveLength(1);
  });

  it('a process keeps reading the cards of the file it loaded while another saves a newer one', async () => {
    const root = await filledRoot();
    await open(root).sync(scope);
    const events: SearchIndexEvent[] = [];
    const reader = open(root, events);
    await reader.sync(scope);
    // Another process adds cards and saves its indexes over the file the reader loaded (a
    // rename): the reader's cards, read only now, still come from the file it loaded.
    const store = createFileMemoryStore({ root });
    await store.add(scope, [
      { content: 'Turn 98: we talked about the amber deploy at night', type: 'episode' },
    ]);
    await open(root).sync(scope);
    const fresh = open(root, events);
    expect(await answers(reader)).toEqual(await answers(fresh));
    // Neither the reader nor the new process found anything to rebuild.
    expect(events).toEqual([]);
  });

  it('a file cut short or grown is damaged', async () => {
    for (const change of [
      (bytes: Buffer) => bytes.subarray(0, bytes.length - 5),
      (bytes: Buffer) => Buffer.concat([bytes, Buffer.from('x')]),
    ]) {
      const root = await filledRoot();
      await open(root).sync(scope);
      const path = await savedIndexPath(root);
      await writeFile(path, change(await readFile(path)));
      const events: SearchIndexEvent[] = [];
      await open(root, events).sync(scope);
      expect(events).toEqual([expect.objectContaining({ type: 'search-index-rebuilt' })]);
      expect(events[0]!.message).toMatch(/cut short|too long/);
    }
  });
});
