import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { InvalidArgumentError, NotFoundError } from '../errors/index.js';
import { createInMemoryHistoryStore } from '../history/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createInMemoryOffloadStore } from '../offload/index.js';
import { createMemorySearch } from '../retrieval/index.js';
import { estimateTextTokens } from '../tokens/index.js';
import {
  createMemoryTools,
  recallConversationTool,
  reloadContextTool,
  searchMemoryTool,
} from './index.js';

const alice = { userId: 'alice' };
const bob = { userId: 'bob' };

describe('memory tools', () => {
  it('describe their input with a JSON schema and validate it', () => {
    const tool = reloadContextTool(createInMemoryOffloadStore());
    expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['id'] });
    expect(() => tool.parseInput({ id: '../../etc/passwd' })).toThrow(InvalidArgumentError);
    expect(() => tool.parseInput({})).toThrow(InvalidArgumentError);
    expect(
      searchMemoryTool(createMemorySearch({ store: createInMemoryMemoryStore() })).parseInput({
        query: 'x',
      }),
    ).toEqual({
      query: 'x',
      top_k: 5,
    });
  });

  it('search_memory finds a scope’s own memories only', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(alice, [{ content: 'Alice prefers Python for scripting', type: 'preference' }]);
    await store.add(bob, [{ content: 'Bob prefers Go for scripting', type: 'preference' }]);
    const tool = searchMemoryTool(createMemorySearch({ store }));
    const result = await tool.execute(tool.parseInput({ query: 'which language for scripting?' }), {
      scope: alice,
    });
    expect(result.results.map((hit) => hit.content)).toEqual([
      'Alice prefers Python for scripting',
    ]);
  });

  it('recall_conversation returns exact original turns and names missing ones', async () => {
    const history = createInMemoryHistoryStore();
    const messages: Message[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question' },
    ];
    await history.append(alice, messages);
    const tool = recallConversationTool(history);
    const result = await tool.execute(tool.parseInput({ turn_numbers: [1, 9, 1] }), {
      scope: alice,
    });
    expect(result.turns).toEqual([
      {
        turn: 1,
        messages: [
          { role: 'user', text: 'first question' },
          { role: 'assistant', text: 'first answer' },
        ],
      },
    ]);
    expect(result.missing).toEqual([9]);
    const other = await tool.execute(tool.parseInput({ turn_numbers: [1] }), { scope: bob });
    expect(other.turns).toEqual([]);
  });

  it('reload_context brings back offloaded content in its own scope only', async () => {
    const offload = createInMemoryOffloadStore();
    const id = await offload.put(alice, { role: 'user', content: 'a very large log' });
    const tool = reloadContextTool(offload);
    expect(await tool.execute(tool.parseInput({ id }), { scope: alice })).toEqual({
      id,
      role: 'user',
      content: 'a very large log',
      page: 1,
      pages: 1,
    });
    await expect(tool.execute({ id, page: 1 }, { scope: bob })).rejects.toThrow(NotFoundError);
  });

  it('reload_context pages through content larger than a page, each page within it', async () => {
    const offload = createInMemoryOffloadStore();
    const lines = Array.from(
      { length: 2_000 },
      (_, index) => `line ${index}: build step ${index * 7} finished in ${index % 13} ms`,
    );
    const big = lines.join('\n');
    const id = await offload.put(alice, { role: 'user', content: big });
    const tool = reloadContextTool(offload, { pageTokens: 1_000 });
    const pages: string[] = [];
    let page: number | undefined = 1;
    while (page !== undefined) {
      const result = await tool.execute(tool.parseInput({ id, page }), { scope: alice });
      expect(estimateTextTokens(result.content)).toBeLessThanOrEqual(1_000);
      pages.push(result.content);
      expect(result.pages).toBeGreaterThan(10);
      page = result.nextPage;
    }
    // Every character comes back once, in order, cut at line breaks.
    expect(pages.join('')).toBe(big);
    expect(pages.slice(0, -1).every((text) => text.endsWith('\n'))).toBe(true);
    await expect(tool.execute({ id, page: pages.length + 1 }, { scope: alice })).rejects.toSatisfy(
      (error: unknown) => InvalidArgumentError.isInstance(error),
    );
  });

  it('reload_context pages break-free text too (CJK, one long token run)', async () => {
    const offload = createInMemoryOffloadStore();
    for (const text of ['文'.repeat(30_000), 'x'.repeat(50_000), '😀'.repeat(10_000)]) {
      const id = await offload.put(alice, { role: 'user', content: text });
      const tool = reloadContextTool(offload, { pageTokens: 500 });
      const first = await tool.execute({ id, page: 1 }, { scope: alice });
      let joined = '';
      for (let page = 1; page <= first.pages; page++) {
        const result = await tool.execute({ id, page }, { scope: alice });
        expect(estimateTextTokens(result.content)).toBeLessThanOrEqual(500);
        joined += result.content;
      }
      expect(joined).toBe(text);
    }
  });

  it('createMemoryTools offers the tools for the stores it is given', () => {
    expect(Object.keys(createMemoryTools({ offload: createInMemoryOffloadStore() }))).toEqual([
      'reload_context',
    ]);
    expect(() => createMemoryTools({})).toThrow(InvalidArgumentError);
  });
});
