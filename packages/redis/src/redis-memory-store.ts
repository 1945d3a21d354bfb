import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type MemoryCard,
  type MemoryStore,
  mergeCards,
  type Scope,
  StorageError,
} from '@ctxmem/core';
import {
  assertCardIds,
  assertSafeId,
  cardFromValue,
  cardNotFound,
  corrupt,
  encodeCard,
  isoNow,
  validateDrafts,
} from '@ctxmem/core/driver-kit';
import { luaScript, type RedisCommandClient, runScript, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/**
 * KEYS: cards hash, meta hash. ARGV: the revision the caller has cached ('' for none). Returns
 * revision, next position, then id, value, id, value, ... — without the cards when the revision
 * is the cached one.
 */
const READ_ALL = luaScript(`
local meta = redis.call('HMGET', KEYS[2], 'revision', 'next')
local result = {meta[1] or '0', meta[2] or '0'}
if result[1] == ARGV[1] then return result end
local cards = redis.call('HGETALL', KEYS[1])
for _, value in ipairs(cards) do result[#result + 1] = value end
return result
`);

/**
 * KEYS: cards hash, meta hash. ARGV: expected revision, new revision, next position, ttl, then
 * id, value pairs. Writes the cards only if nobody wrote the scope since it was read
 * (compare-and-set on the revision); returns 1 when written, 0 when the caller must read again
 * and retry. Revisions are random tokens, not counters, so a scope that expired or was deleted and
 * written again can never match a revision cached before.
 */
const COMMIT = luaScript(`
if (redis.call('HGET', KEYS[2], 'revision') or '0') ~= ARGV[1] then return 0 end
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[2], 'revision', ARGV[2], 'next', ARGV[3])
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return 1
`);

/** KEYS: cards hash, meta hash. ARGV: new revision, ids. Removes them; returns the old revision. */
const REMOVE = luaScript(`
local previous = redis.call('HGET', KEYS[2], 'revision') or '0'
for i = 2, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
redis.call('HSET', KEYS[2], 'revision', ARGV[1])
return previous
`);

/** Scopes whose parsed cards a store keeps in memory. */
const CACHED_SCOPES = 1_000;

/** Attempts of one `add` before it gives up under contention from other processes. */
const MAX_ATTEMPTS = 100;

interface StoredCard {
  position: number;
  card: MemoryCard;
}

/**
 * Memory cards in Redis: a hash per scope (card id → card and its insertion position) and a small
 * meta hash (revision, next position). `add` is optimistic: it reads the cards and the revision,
 * merges the drafts with core's `mergeCards`, and commits with a script that writes only if the
 * revision is unchanged, reading again and retrying otherwise, so two writers never lose a card.
 * Within one process, adds to one scope also queue behind each other, so retries only happen
 * between processes. Parsed cards are cached per scope with their revision: a read sends the
 * cached revision and gets the cards back only when another writer changed them.
 */
export function createRedisMemoryStore(
  context: StoreContext,
  generateId: () => string,
): MemoryStore {
  const keys = (base: string) => ({ cards: `${base}:cards`, meta: `${base}:cards-meta` });
  const queues = new Map<string, Promise<unknown>>();
  const cache = new Map<string, { revision: string; next: number; cards: readonly StoredCard[] }>();

  function remember(key: string, revision: string, next: number, cards: readonly StoredCard[]) {
    cache.delete(key);
    if (cache.size >= CACHED_SCOPES) cache.delete(cache.keys().next().value!);
    cache.set(key, { revision, next, cards });
  }

  /** Runs `work` after every earlier `add`/`remove` of the same scope in this process. */
  function queued<Result>(key: string, work: () => Promise<Result>): Promise<Result> {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    queues.set(key, settled);
    settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return next;
  }

  function parse(value: string, scope: Scope, where: string): StoredCard {
    let parsed: { position?: unknown; card?: unknown };
    try {
      parsed = JSON.parse(value) as typeof parsed;
    } catch (error) {
      throw corrupt(where, error);
    }
    if (typeof parsed?.position !== 'number') throw corrupt(where);
    return { position: parsed.position, card: cardFromValue(parsed.card, scope, where) };
  }

  async function readAll(
    client: RedisCommandClient,
    base: string,
    key: string,
    scope: Scope,
  ): Promise<{ revision: string; next: number; cards: readonly StoredCard[] }> {
    const { cards, meta } = keys(base);
    const cached = cache.get(key);
    const reply = (await runScript(
      client,
      READ_ALL,
      [cards, meta],
      [cached?.revision ?? ''],
    )) as string[];
    const revision = String(reply[0]);
    if (cached && cached.revision === revision) return cached;
    const stored: StoredCard[] = [];
    for (let position = 2; position < reply.length; position += 2) {
      stored.push(
        parse(String(reply[position + 1]), scope, `memory card ${reply[position]} of ${key}`),
      );
    }
    stored.sort((left, right) => left.position - right.position);
    const read = { revision, next: Number(reply[1]), cards: stored };
    remember(key, read.revision, read.next, read.cards);
    return read;
  }

  const copy = (card: MemoryCard): MemoryCard => ({
    ...card,
    tags: [...card.tags],
    scope: { ...card.scope },
  });

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(context, scope);
      if (validateDrafts(drafts).length === 0) return [];
      const { base, key } = resolved;
      return queued(key, () =>
        withStorageErrors(`add memory cards to ${key}`, async () => {
          const client = await context.client();
          for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            const read = await readAll(client, base, key, resolved.scope);
            const existing = read.cards.map((stored) => stored.card);
            const result = mergeCards(existing, drafts, {
              scope: resolved.scope,
              now: isoNow(context.clock),
              generateId,
            });
            if (!result.changed) return result.results.map(copy);
            const writes: string[] = [];
            const storedCards: StoredCard[] = [];
            result.cards.forEach((card, position) => {
              const storedPosition =
                position < existing.length
                  ? read.cards[position]!.position
                  : read.next + position - existing.length;
              storedCards.push({ position: storedPosition, card });
              if (position < existing.length && card === existing[position]) return;
              writes.push(card.id, `{"position":${storedPosition},"card":${encodeCard(card)}}`);
            });
            const next = read.next + result.cards.length - existing.length;
            const { cards, meta } = keys(base);
            const revision = randomUUID();
            const committed = await runScript(
              client,
              COMMIT,
              [cards, meta],
              [read.revision, revision, next, context.ttl.memory, ...writes],
            );
            if (Number(committed) === 1) {
              remember(key, revision, next, storedCards);
              return result.results.map(copy);
            }
            // Another process wrote this scope since the read: back off briefly and merge again.
            await sleep(Math.random() * Math.min(50, 2 * attempt));
          }
          throw new StorageError({
            message: `Gave up adding memory cards to ${key} after ${MAX_ATTEMPTS} attempts: other writers kept changing the scope.`,
            path: key,
          });
        }),
      );
    },

    async list(scope, options) {
      const resolved = resolveScope(context, scope);
      return withStorageErrors(`list memory cards of ${resolved.key}`, async () => {
        const client = await context.client();
        const { cards } = await readAll(client, resolved.base, resolved.key, resolved.scope);
        return cards
          .map((stored) => stored.card)
          .filter((card) => options?.includeSuperseded === true || card.supersededBy === undefined)
          .map(copy);
      });
    },

    async get(scope, id) {
      const resolved = resolveScope(context, scope);
      assertSafeId(id, 'card id');
      const value = await withStorageErrors(
        `read memory card ${id} of ${resolved.key}`,
        async () => {
          const client = await context.client();
          return (await client.sendCommand(['HGET', keys(resolved.base).cards, id])) as
            | string
            | null;
        },
      );
      if (value === null || value === undefined) throw cardNotFound(id);
      return parse(value, resolved.scope, `memory card ${id} of ${resolved.key}`).card;
    },

    async remove(scope, ids) {
      const { base, key } = resolveScope(context, scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      const { cards, meta } = keys(base);
      await queued(key, () =>
        withStorageErrors(`remove memory cards of ${key}`, async () => {
          const client = await context.client();
          const revision = randomUUID();
          const previous = String(
            await runScript(client, REMOVE, [cards, meta], [revision, ...new Set(ids)]),
          );
          const cached = cache.get(key);
          if (cached?.revision === previous) {
            const removed = new Set(ids);
            remember(
              key,
              revision,
              cached.next,
              cached.cards.filter((stored) => !removed.has(stored.card.id)),
            );
          } else {
            cache.delete(key);
          }
        }),
      );
    },
  };
}
