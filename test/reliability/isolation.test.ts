/**
 * Isolation between scopes, and the storage root as a boundary. For random scopes (odd but valid
 * ids included) nothing — the memory store, the search, injection into a prompt, the compacted
 * prompt itself, `recall_conversation`, `reload_context` — ever returns another scope's data; and
 * no id, however hostile, makes a store touch a path outside its root.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createContextManager,
  createFileHistoryStore,
  createFileMemoryStore,
  createFileOffloadStore,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createInMemoryOffloadStore,
  createMemorySearch,
  createMemoryTools,
  createTokenCounter,
  defaultMemoryScope,
  type HistoryStore,
  InvalidArgumentError,
  InvalidIdError,
  type MemoryStore,
  type Message,
  NotFoundError,
  type OffloadStore,
  type Scope,
  scopeKey,
} from '@ctxmem/core';
import { isSafeId } from '@ctxmem/core/driver-kit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInside, listTree, markedConversation, temporaryFolder, textOf } from './helpers.js';

const counter = createTokenCounter();
let folder: { path: string; remove: () => Promise<void> };
let rootCount = 0;
const nextRoot = () => join(folder.path, `root-${++rootCount}`);

beforeAll(async () => {
  folder = await temporaryFolder('isolation');
});
afterAll(async () => {
  await folder.remove();
});

// ---------------------------------------------------------------------------------------------
// Random scopes

/** Valid but awkward ids: separators of the scope key, percent signs, spaces, accents, CJK. */
const awkwardId = fc
  .string({
    unit: fc.constantFrom('a', 'b', 'A', 'é', '中', ' ', ':', '|', '%', '=', '_', '-', '.', '~'),
    minLength: 1,
    maxLength: 6,
  })
  .filter(isSafeId);

const scopeArbitrary: fc.Arbitrary<Scope> = fc
  .record({
    userId: fc.option(awkwardId, { nil: undefined }),
    agentId: fc.option(awkwardId, { nil: undefined }),
    sessionId: fc.option(awkwardId, { nil: undefined }),
  })
  .map((scope) =>
    Object.fromEntries(Object.entries(scope).filter(([, value]) => value !== undefined)),
  );

/**
 * Scopes whose long-term memories are separate: by default the sessions of one user share their
 * memories (`defaultMemoryScope`), which the targeted test below covers.
 */
const scopesArbitrary = fc.uniqueArray(scopeArbitrary, {
  minLength: 2,
  maxLength: 4,
  selector: (scope) => scopeKey(defaultMemoryScope(scope)),
});

const markerOf = (position: number) => `scopemark${position}q`;
const SHARED = 'postgres database deploy friday';

interface Stores {
  history: HistoryStore;
  memory: MemoryStore;
  offload: OffloadStore;
}

/**
 * Fills every scope with its own marked history, offloaded payloads and cards, then checks every
 * way data comes back out against every scope.
 */
async function checkIsolation(scopes: readonly Scope[], stores: Stores): Promise<void> {
  const search = createMemorySearch({ store: stores.memory });
  const manager = createContextManager({
    contextWindow: 2_500,
    counter,
    historyStore: stores.history,
    offloadStore: stores.offload,
    memory: { store: stores.memory, search, minScore: 0 },
  });
  const tools = createMemoryTools({ search, history: stores.history, offload: stores.offload });
  const markers = scopes.map((_, position) => markerOf(position));
  const offloadIds = new Map<string, number>();

  for (const [position, scope] of scopes.entries()) {
    const marker = markers[position]!;
    await stores.memory.add(defaultMemoryScope(scope), [
      { content: `Project ${marker} stores its data in a ${SHARED} setup.`, type: 'fact' },
      { content: `The ${marker} team prefers short answers.`, type: 'preference' },
    ]);
    const history = markedConversation(marker, 6);
    // A payload large enough to be offloaded, so that reload ids exist: in the newest round, whose
    // offload preview stays in the prompt (an older round's may be summarized away, its original
    // still one recall_conversation away).
    history.splice(history.length - 3, 1, {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call_${marker}_6`,
          toolName: 'search',
          output: { type: 'text', value: `${marker} payload `.repeat(800) },
        },
      ],
    });
    history[history.length - 1] = {
      role: 'user',
      content: `${marker} question about the ${SHARED}?`,
    };
    const prepared = await manager.prepare(history, { scope });
    for (const message of prepared.messages) {
      for (const id of message.ctxmem?.offloadIds ?? []) offloadIds.set(id, position);
    }
    expect(prepared.injected).toBeGreaterThan(0);
  }
  expect(offloadIds.size).toBeGreaterThan(0);

  for (const [position, scope] of scopes.entries()) {
    const own = markers[position]!;
    const others = markers.filter((marker) => marker !== own);
    const expectOnlyOwn = (value: unknown) => {
      const text = textOf(value);
      for (const marker of others) expect(text).not.toContain(marker);
    };

    const memoryScope = defaultMemoryScope(scope);
    const cards = await stores.memory.list(memoryScope);
    expect(cards).toHaveLength(2);
    expectOnlyOwn(cards);

    // Every marker in the query, plus words all scopes share.
    const query = `${markers.join(' ')} ${SHARED}`;
    const hits = await search.search(memoryScope, query, { topK: 20 });
    expect(hits.length).toBeGreaterThan(0);
    expectOnlyOwn(hits);
    for (const searched of [scope, memoryScope]) {
      expectOnlyOwn(
        await tools.search_memory!.execute(
          tools.search_memory!.parseInput({ query, top_k: 20 }) as never,
          { scope: searched },
        ),
      );
    }

    // The next turn's prompt: compacted history, summary and injected memories.
    const history = markedConversation(own, 6);
    history[history.length - 1] = { role: 'user', content: `${markers.join(' ')} ${SHARED}?` };
    const prepared = await manager.prepare(history, { scope: { ...scope } });
    expect(prepared.injected).toBeGreaterThan(0);
    expectOnlyOwn(prepared.messages.slice(0, -1));

    const recalled = await tools.recall_conversation!.execute(
      tools.recall_conversation!.parseInput({ turn_numbers: [1, 2, 3, 4, 5, 6, 7] }) as never,
      { scope },
    );
    expect(textOf(recalled)).toContain(own);
    expectOnlyOwn(recalled);

    for (const [id, owner] of offloadIds) {
      const reload = tools.reload_context!.execute(
        tools.reload_context!.parseInput({ id }) as never,
        { scope },
      );
      if (owner === position) expect(textOf(await reload)).toContain(own);
      else await expect(reload).rejects.toSatisfy(NotFoundError.isInstance);
    }
  }
}

describe('scope isolation, property-based', () => {
  // Protection: the scope key in every store and index key (in-memory stores), and exact-scope
  // filtering in search, injection and tools. Drop the scope from any key and another scope's
  // marker shows up in a result.
  it('never returns another scope’s data from in-memory stores', async () => {
    await fc.assert(
      fc.asyncProperty(scopesArbitrary, (scopes) =>
        checkIsolation(scopes, {
          history: createInMemoryHistoryStore(),
          memory: createInMemoryMemoryStore(),
          offload: createInMemoryOffloadStore(),
        }),
      ),
      { numRuns: 25 },
    );
  });

  // Protection: the per-scope folders of the file stores (slug plus hash of the exact id, so ids
  // that differ only in case or in dropped characters never share a folder).
  it('never returns another scope’s data from file stores', async () => {
    await fc.assert(
      fc.asyncProperty(scopesArbitrary, async (scopes) => {
        const root = nextRoot();
        await checkIsolation(scopes, {
          history: createFileHistoryStore({ root }),
          memory: createFileMemoryStore({ root }),
          offload: createFileOffloadStore({ root }),
        });
      }),
      { numRuns: 12 },
    );
  });

  // Protection: folder names hash the exact id; a case-insensitive file system or a slug that
  // drops characters would otherwise merge these scopes.
  it('keeps ids that differ only in case or punctuation apart on disk', async () => {
    const root = nextRoot();
    const memory = createFileMemoryStore({ root });
    const scopes: Scope[] = [
      { userId: 'Alice' },
      { userId: 'alice' },
      { userId: 'al ice' },
      { userId: 'al_ice' },
      { userId: 'al:ice' },
      { userId: 'alice', sessionId: 'x' },
      { userId: 'alice|session:x' },
    ];
    for (const [position, scope] of scopes.entries()) {
      await memory.add(scope, [{ content: `Card of ${markerOf(position)}.` }]);
    }
    for (const [position, scope] of scopes.entries()) {
      expect((await memory.list(scope)).map((card) => card.content)).toEqual([
        `Card of ${markerOf(position)}.`,
      ]);
    }
  });

  // Protection: a multi-user store refuses a scope without the required field instead of
  // answering with everybody's data.
  it('refuses a missing userId in a multi-user store instead of reading everyone', async () => {
    const memory = createInMemoryMemoryStore({ requiredScope: ['userId'] });
    await memory.add({ userId: 'alice' }, [{ content: 'Alice card.' }]);
    await expect(memory.list({})).rejects.toThrow(/require userId/);
    await expect(memory.list({ sessionId: 'alice' })).rejects.toThrow(/require userId/);
  });
});

// ---------------------------------------------------------------------------------------------
// The storage root as a boundary

const hostileIds = [
  '../escape',
  '../../../../tmp/ctxmem-escape',
  '..',
  '.',
  '/etc/passwd',
  '/tmp/absolute',
  'C:\\Windows\\system32',
  'C:relative',
  'back\\slash',
  'nul\u0000byte',
  'new\nline',
  'x'.repeat(201),
  '',
  'line\u2028separator',
];

describe('ids never escape the storage root', () => {
  // Protection: assertSafeId on every id that reaches a path, and the last-resort check in
  // scopeFolder. Without them `../` ids write next to (or far from) the root.
  it('rejects hostile ids in every store operation and leaves the file system outside the root untouched', async () => {
    const parent = nextRoot();
    const root = join(parent, 'store');
    const history = createFileHistoryStore({ root });
    const memory = createFileMemoryStore({ root });
    const offload = createFileOffloadStore({ root });
    const manager = createContextManager({
      contextWindow: 4_000,
      historyStore: history,
      offloadStore: offload,
    });
    // A legitimate write, so that the root exists and has a known shape.
    await history.append({ userId: 'ok' }, [{ role: 'user', content: 'hello' }]);
    await writeFile(join(parent, 'sentinel.txt'), 'outside the root');
    const before = await listTree(parent);
    const message: Message = { role: 'user', content: 'payload' };

    for (const id of hostileIds) {
      for (const field of ['userId', 'agentId', 'sessionId'] as const) {
        const scope: Scope = { [field]: id };
        const attempts: Array<() => Promise<unknown>> = [
          () => history.append(scope, [message]),
          () => history.read(scope),
          () => history.readTurns(scope, [1]),
          () => history.count(scope),
          () => history.getState(scope),
          () => history.setState(scope, { messages: [], summarizedCount: 0, cycle: 0 }, 0),
          () => history.clear(scope),
          () => memory.add(scope, [{ content: 'A card.' }]),
          () => memory.list(scope),
          () => memory.get(scope, 'card'),
          () => memory.remove(scope, ['card']),
          () => offload.put(scope, message),
          () => manager.prepare([message], { scope }),
        ];
        for (const attempt of attempts) {
          await expect(attempt()).rejects.toSatisfy(InvalidIdError.isInstance);
        }
      }
      // Ids inside a valid scope: card ids and offload ids.
      await expect(memory.get({ userId: 'ok' }, id)).rejects.toSatisfy(InvalidIdError.isInstance);
      await expect(memory.remove({ userId: 'ok' }, [id])).rejects.toSatisfy(
        InvalidIdError.isInstance,
      );
      await expect(offload.get({ userId: 'ok' }, id)).rejects.toSatisfy(InvalidIdError.isInstance);
      await expect(offload.delete({ userId: 'ok' }, id)).rejects.toSatisfy(
        InvalidIdError.isInstance,
      );
    }
    expect(await listTree(parent)).toEqual(before);
  });

  // Protection: prepare validates the scope inside its promise. A synchronous throw would skip
  // `manager.prepare(...).catch(handler)` entirely.
  it('rejects a hostile scope through the returned promise, not a synchronous throw', async () => {
    const manager = createContextManager({ contextWindow: 4_000 });
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = manager.prepare([{ role: 'user', content: 'hi' }], { scope: { userId: '../x' } });
    }).not.toThrow();
    await expect(promise).rejects.toSatisfy(InvalidIdError.isInstance);
  });

  // Protection: the reload tool's input schema (offload ids only) before the store's own check.
  it('rejects hostile ids at the tool boundary', () => {
    const tools = createMemoryTools({ offload: createInMemoryOffloadStore() });
    for (const id of hostileIds) {
      expect(() => tools.reload_context!.parseInput({ id })).toThrow(InvalidArgumentError);
    }
  });

  // Protection: whatever random id is accepted lands inside the root; everything else is an
  // InvalidIdError (never another error, never a write elsewhere).
  it('keeps every accepted random id inside the root', async () => {
    const parent = nextRoot();
    const root = join(parent, 'store');
    const memory = createFileMemoryStore({ root });
    await mkdir(parent, { recursive: true });
    await writeFile(join(parent, 'sentinel.txt'), 'outside the root');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.string({
            unit: fc.constantFrom('.', '/', '\\', 'a', ':', '\u0000', '~'),
            maxLength: 8,
          }),
          fc.string({ unit: 'binary', maxLength: 8 }),
        ),
        async (id) => {
          const scope: Scope = { userId: id };
          try {
            await memory.add(scope, [{ content: 'Random id card.' }]);
          } catch (error) {
            expect(InvalidIdError.isInstance(error)).toBe(true);
            expect(isSafeId(id)).toBe(false);
          }
        },
      ),
      { numRuns: 30 },
    );
    const entries = await listTree(parent);
    expect(entries.filter((entry) => !entry.startsWith('store'))).toEqual(['sentinel.txt']);
    for (const entry of entries) expect(isInside(parent, join(parent, entry))).toBe(true);
  });
});

describe('memories shared across one user’s sessions, by design', () => {
  // Protection: defaultMemoryScope drops only the session: a user's memories follow them from
  // chat to chat, while history, offloads and other users stay apart.
  it('shares memories between the sessions of one user and with nobody else', async () => {
    const memory = createInMemoryMemoryStore();
    const search = createMemorySearch({ store: memory });
    const history = createInMemoryHistoryStore();
    const manager = createContextManager({
      contextWindow: 4_000,
      counter,
      historyStore: history,
      memory: { store: memory, search, minScore: 0 },
    });
    await memory.add(defaultMemoryScope({ userId: 'alice', sessionId: 'one' }), [
      { content: `Alice keeps her ${SHARED} notes in scopemark0q.` },
    ]);
    await memory.add(defaultMemoryScope({ userId: 'bob', sessionId: 'one' }), [
      { content: `Bob keeps his ${SHARED} notes in scopemark1q.` },
    ]);
    const question: Message[] = [{ role: 'user', content: `Where are the ${SHARED} notes?` }];
    const aliceTwo = await manager.prepare(question, {
      scope: { userId: 'alice', sessionId: 'two' },
    });
    expect(textOf(aliceTwo.messages)).toContain('scopemark0q');
    expect(textOf(aliceTwo.messages)).not.toContain('scopemark1q');
    // An anonymous session keeps its memories to itself.
    const anonymous = await manager.prepare(question, { scope: { sessionId: 'one' } });
    expect(anonymous.injected).toBe(0);
    // The history is per session, whatever the memory scope.
    expect(await history.count({ userId: 'alice', sessionId: 'one' })).toBe(0);
    expect(await history.count({ userId: 'alice', sessionId: 'two' })).toBe(1);
  });
});
