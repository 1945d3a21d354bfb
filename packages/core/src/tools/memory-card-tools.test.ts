import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, NotFoundError } from '../errors/index.js';
import { parseMemoryMarkdown, renderMemoryMarkdown } from '../flush/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createMemorySearch } from '../retrieval/index.js';
import {
  addMemoryTool,
  listMemoriesTool,
  MAX_TOOL_CARD_TAGS,
  removeMemoryTool,
  searchMemoryTool,
} from './index.js';

const alice = { userId: 'alice' };
const bob = { userId: 'bob' };

describe('memory card tools', () => {
  it('add_memory stores a typed, tagged, dated card in the call’s scope only', async () => {
    const store = createInMemoryMemoryStore();
    const add = addMemoryTool(store);
    const { card } = await add.execute(
      add.parseInput({
        content: 'Alice moved to Lisbon',
        tags: ['home', 'travel'],
        source: 'chat',
        occurredAt: '2023-05-08',
      }),
      { scope: alice },
    );
    expect(card).toMatchObject({
      content: 'Alice moved to Lisbon',
      type: 'fact',
      tags: ['home', 'travel'],
      source: 'chat',
      createdAt: '2023-05-08T00:00:00.000Z',
    });
    expect(await store.get(alice, card.id)).toMatchObject({ content: 'Alice moved to Lisbon' });
    expect(await store.list(bob)).toEqual([]);

    // The same statement again merges into the stored card.
    const again = await add.execute(add.parseInput({ content: 'Alice moved to Lisbon' }), {
      scope: alice,
    });
    expect(again.card.id).toBe(card.id);
  });

  it('add_memory names what is wrong with its input', () => {
    const add = addMemoryTool(createInMemoryMemoryStore());
    const problem = (input: unknown) => {
      try {
        add.parseInput(input);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidArgumentError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(problem({})).toMatch(/content/);
    expect(problem({ content: '   ' })).toMatch(/must not be blank/);
    expect(problem({ content: 'x', type: 'opinion' })).toMatch(/type/);
    expect(problem({ content: 'x', occurredAt: '2023-02-30' })).toMatch(/ISO 8601.*at occurredAt/s);
    expect(problem({ content: 'x', occurredAt: '2023-05-08T10:00' })).toMatch(/ISO 8601/);
    expect(
      problem({ content: 'x', tags: Array.from({ length: MAX_TOOL_CARD_TAGS + 1 }, String) }),
    ).toMatch(/tags/);
    expect(problem({ content: 'x'.repeat(10_001) })).toMatch(/content/);
  });

  it('list_memories pages through a scope newest first, filtered by type and tags', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(alice, [
      { content: 'Uses PostgreSQL 16 in production', type: 'fact', occurredAt: '2024-01-01' },
      { content: 'Prefers tabs over spaces', type: 'preference', tags: ['style'] },
      { content: 'Ship the importer by Friday', type: 'todo', occurredAt: '2024-03-01' },
    ]);
    await store.add(bob, [{ content: 'Bob likes Go', type: 'preference', tags: ['style'] }]);
    const list = listMemoriesTool(store);
    const run = async (input: unknown) => list.execute(list.parseInput(input), { scope: alice });

    const first = await run({ limit: 2 });
    expect(first.total).toBe(3);
    expect(first.cards.map((card) => card.content)).toEqual([
      'Prefers tabs over spaces',
      'Ship the importer by Friday',
    ]);
    expect(first.nextOffset).toBe(2);
    const second = await run({ limit: 2, offset: first.nextOffset });
    expect(second.cards.map((card) => card.content)).toEqual(['Uses PostgreSQL 16 in production']);
    expect(second.nextOffset).toBeUndefined();

    expect((await run({ type: 'todo' })).cards.map((card) => card.type)).toEqual(['todo']);
    expect((await run({ tags: ['style'] })).cards.map((card) => card.content)).toEqual([
      'Prefers tabs over spaces',
    ]);
    expect(() => list.parseInput({ limit: 0 })).toThrow(InvalidArgumentError);
  });

  it('remove_memory removes nothing unless every id exists in the scope', async () => {
    const store = createInMemoryMemoryStore();
    const [kept, gone] = await store.add(alice, [
      { content: 'Alice drinks tea' },
      { content: 'Alice owns a bicycle' },
    ]);
    const [bobs] = await store.add(bob, [{ content: 'Bob drinks coffee' }]);
    const remove = removeMemoryTool(store);

    // Bob's card is not Alice's to remove: nothing goes.
    await expect(
      remove.execute(remove.parseInput({ ids: [gone!.id, bobs!.id] }), { scope: alice }),
    ).rejects.toSatisfy(
      (error: unknown) =>
        NotFoundError.isInstance(error) && error.message.includes(JSON.stringify(bobs!.id)),
    );
    expect(await store.list(alice)).toHaveLength(2);

    expect(
      await remove.execute(remove.parseInput({ ids: [gone!.id, gone!.id] }), { scope: alice }),
    ).toEqual({ removed: [gone!.id] });
    expect((await store.list(alice)).map((card) => card.id)).toEqual([kept!.id]);
    expect(await store.list(bob)).toHaveLength(1);
    expect(() => remove.parseInput({ ids: [] })).toThrow(InvalidArgumentError);
  });

  it('search_memory results carry the card id that remove_memory takes', async () => {
    const store = createInMemoryMemoryStore();
    const [card] = await store.add(alice, [{ content: 'The staging database is on port 5433' }]);
    const search = searchMemoryTool(createMemorySearch({ store }));
    const { results } = await search.execute(search.parseInput({ query: 'staging port' }), {
      scope: alice,
    });
    expect(results[0]).toMatchObject({ id: card!.id, content: card!.content });
  });

  it('keep the zod schema their JSON schema and parsing come from', () => {
    const add = addMemoryTool(createInMemoryMemoryStore());
    expect(Object.keys(add.zodInputSchema.shape)).toEqual(
      Object.keys(add.inputSchema.properties as object),
    );
    expect(add.zodInputSchema.parse({ content: 'x' })).toEqual(add.parseInput({ content: 'x' }));
  });
});

describe('renderMemoryMarkdown', () => {
  it('renders current cards as MEMORY.md bullets that parse back to the same cards', () => {
    const text = renderMemoryMarkdown([
      { type: 'preference', content: 'Prefers Python\nfor scripts' },
      { type: 'decision', content: 'Use PostgreSQL', supersededBy: 'newer' },
      { type: 'constraint', content: 'Never touch prod' },
    ]);
    expect(text).toBe(
      '# MEMORY\n\n- [preference] Prefers Python for scripts\n- [constraint] Never touch prod\n',
    );
    expect(parseMemoryMarkdown(text, 'MEMORY.md')).toEqual([
      { content: 'Prefers Python for scripts', type: 'preference', source: 'MEMORY.md' },
      { content: 'Never touch prod', type: 'constraint', source: 'MEMORY.md' },
    ]);
    expect(renderMemoryMarkdown([])).toBe('# MEMORY\n\nNo memories yet.\n');
  });
});
