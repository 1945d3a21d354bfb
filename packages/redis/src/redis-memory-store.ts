import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MemoryCard, type MemoryStore, type Scope, StorageError } from '@ctxmem/core';
import {
  assertCardIds,
  assertSafeId,
  cardNotFound,
  createKeyedQueue,
  createSyncedCardCache,
  decodeCard,
  encodeCard,
  isoNow,
  mergeSynced,
  rollBack,
  type SyncedCards,
  validateDrafts,
} from '@ctxmem/core/driver-kit';
import { luaScript, type RedisCommandClient, runScript, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/**
 * Lua shared by the scripts below: `changes(since_generation, since, first_asked, step)` returns
 * generation, revision, whether the cards are all of them (the caller's generation differs or is
 * older than the last removal), the number of changed cards, then id, card, position for each
 * changed card (written after `since`, or all) and for every `step`th ARGV from `first_asked`
 * on, taken as an id (card and position false when absent).
 */
const CHANGES_LUA = `
local function changes(since_generation, since, first_asked, step)
  local meta = redis.call('HMGET', KEYS[2], 'generation', 'revision', 'reset')
  local generation = meta[1] or ''
  local revision = tonumber(meta[2] or '0')
  local complete = 0
  if generation ~= since_generation or tonumber(meta[3] or '0') > since or revision < since then
    complete = 1
  end
  local ids
  if complete == 1 then
    ids = redis.call('ZRANGE', KEYS[3], 0, -1)
  else
    ids = redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. since, '+inf')
  end
  local result = {generation, revision, complete, #ids}
  local function push(id)
    result[#result + 1] = id
    result[#result + 1] = redis.call('HGET', KEYS[1], id)
    result[#result + 1] = redis.call('ZSCORE', KEYS[3], id)
  end
  for _, id in ipairs(ids) do push(id) end
  for i = first_asked, #ARGV, step do push(ARGV[i]) end
  return result
end
`;

/**
 * KEYS: cards, meta, order, changes. ARGV: the generation and revision the caller has, then ids
 * whose stored form it also wants. Returns what `changes` returns.
 */
const READ_CHANGES = luaScript(`${CHANGES_LUA}
return changes(ARGV[1], tonumber(ARGV[2]), 3, 1)
`);

/**
 * KEYS: cards, meta, order, changes. ARGV: expected generation, expected revision, the generation
 * to give a scope stored for the first time, ttl, then id, card pairs. Writes the cards only if
 * the scope is still at the expected generation and revision (compare-and-set), stamping them with
 * the next revision and giving new ones the next positions; returns {1, generation, revision}
 * when written, or {0, changes} when the caller must catch up and merge again: what changed since
 * the expected revision and the stored form of the cards it tried to write, so a conflict costs
 * no second round trip.
 */
const COMMIT = luaScript(`${CHANGES_LUA}
local meta = redis.call('HMGET', KEYS[2], 'generation', 'revision', 'next')
local generation = meta[1] or ''
if generation ~= ARGV[1] or tonumber(meta[2] or '0') ~= tonumber(ARGV[2]) then
  return {0, changes(ARGV[1], tonumber(ARGV[2]), 5, 2)}
end
if generation == '' then generation = ARGV[3] end
local revision = tonumber(ARGV[2]) + 1
local next = tonumber(meta[3] or '0')
for i = 5, #ARGV, 2 do
  local id = ARGV[i]
  redis.call('HSET', KEYS[1], id, ARGV[i + 1])
  if not redis.call('ZSCORE', KEYS[3], id) then
    redis.call('ZADD', KEYS[3], next, id)
    next = next + 1
  end
  redis.call('ZADD', KEYS[4], revision, id)
end
redis.call('HSET', KEYS[2], 'generation', generation, 'revision', revision, 'next', next)
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ttl) end
end
return {1, generation, revision}
`);

/**
 * KEYS: cards, meta, order, changes. ARGV: ids. Removes them and moves the revision and the reset
 * revision (other processes read the scope again); returns {generation, revision}.
 */
const REMOVE = luaScript(`
local meta = redis.call('HMGET', KEYS[2], 'generation', 'revision')
if not meta[1] then return {'', 0} end
local revision = tonumber(meta[2] or '0') + 1
for i = 1, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[3], ARGV[i])
  redis.call('ZREM', KEYS[4], ARGV[i])
end
redis.call('HSET', KEYS[2], 'revision', revision, 'reset', revision)
return {meta[1], revision}
`);

/** Longest pause after a lost commit, ms. */
const CONFLICT_PAUSE_MS = 20;

/** Attempts of one `add` before it gives up under contention from other processes. */
const MAX_ATTEMPTS = 100;

interface ReadChanges {
  generation: string;
  revision: number;
  complete: boolean;
  /** Written after the revision asked about (or all), in stored order. */
  changed: MemoryCard[];
  /** The stored form of the ids asked for; absent ones left out. */
  asked: MemoryCard[];
}

/**
 * Memory cards in Redis: per scope, a hash of cards (id → card), a sorted set of their positions
 * (insertion order), a sorted set of the revision that last wrote each card, and a meta hash
 * (generation, revision, reset revision, next position).
 *
 * Each store keeps the scopes it uses indexed in memory (core's card index, see
 * `@ctxmem/core/driver-kit`'s synced cards) and catches up by reading only the cards written after
 * the revision it has. `add` merges the drafts into that index with core's rules and commits with
 * a script that writes only if the scope is still at that revision; when another process got there
 * first, the same kind of script returns what changed and the stored form of what the merge
 * touched, the merge is undone and run again. So an add neither reads nor compares against the
 * whole scope, and two writers never lose a card. Within one process, calls on one scope queue
 * behind each other, so conflicts only happen between processes. The generation is a random token
 * given when a scope is first stored: a scope that expired or was deleted and stored again is
 * never mistaken for the one a cache holds.
 */
export function createRedisMemoryStore(
  context: StoreContext,
  generateId: () => string,
): MemoryStore {
  const keys = (base: string) => [
    `${base}:cards`,
    `${base}:cards-meta`,
    `${base}:cards-order`,
    `${base}:cards-changes`,
  ];
  const queued = createKeyedQueue();
  const cache = createSyncedCardCache();

  const parse = (value: string, scope: Scope, where: string): MemoryCard =>
    decodeCard(value, scope, where);

  async function readChanges(
    client: RedisCommandClient,
    base: string,
    key: string,
    scope: Scope,
    cached: SyncedCards | undefined,
  ): Promise<ReadChanges> {
    const reply = (await runScript(client, READ_CHANGES, keys(base), [
      cached?.generation ?? '',
      cached ? cached.revision : -1,
    ])) as unknown[];
    return parseChanges(reply, key, scope);
  }

  /** Reads what the `changes` Lua function returned. */
  function parseChanges(reply: unknown[], key: string, scope: Scope): ReadChanges {
    const changedCount = Number(reply[3]);
    const entries: Array<{ card: MemoryCard; position: number }> = [];
    const asked: MemoryCard[] = [];
    for (let offset = 4, entry = 0; offset < reply.length; offset += 3, entry++) {
      const id = String(reply[offset]);
      const value = reply[offset + 1];
      if (value === null || value === undefined || value === false) continue;
      const card = parse(String(value), scope, `memory card ${id} of ${key}`);
      if (entry < changedCount) entries.push({ card, position: Number(reply[offset + 2]) });
      else asked.push(card);
    }
    entries.sort((left, right) => left.position - right.position);
    return {
      generation: String(reply[0] ?? ''),
      revision: Number(reply[1]),
      complete: Number(reply[2]) === 1,
      changed: entries.map((entry) => entry.card),
      asked,
    };
  }

  async function synced(
    client: RedisCommandClient,
    base: string,
    key: string,
    scope: Scope,
  ): Promise<SyncedCards> {
    const read = await readChanges(client, base, key, scope, cache.get(key));
    return cache.update(key, { ...read, cards: read.changed });
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
          let cards = cache.get(key) ?? (await synced(client, base, key, resolved.scope));
          for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            const merge = mergeSynced(cards.index, drafts, {
              scope: resolved.scope,
              now: isoNow(context.clock),
              generateId,
            });
            if (merge.writes.length === 0) return merge.results.map(copy);
            let reply: unknown[];
            try {
              reply = (await runScript(client, COMMIT, keys(base), [
                cards.generation,
                cards.revision,
                randomUUID(),
                context.ttl.memory,
                ...merge.writes.flatMap((card) => [card.id, encodeCard(card)]),
              ])) as unknown[];
            } catch (error) {
              // Whether the script ran is unknown (the connection may have dropped after it):
              // forget the scope, so the next call reads it as stored.
              cache.delete(key);
              throw error;
            }
            if (Number(reply[0]) === 1) {
              cards.generation = String(reply[1]);
              cards.revision = Number(reply[2]);
              return merge.results.map(copy);
            }
            // Another process wrote this scope first: undo the merge, catch up, merge again.
            const read = parseChanges(reply[1] as unknown[], key, resolved.scope);
            rollBack(cards.index, merge.writes, read.asked);
            cards = cache.update(key, { ...read, cards: read.changed });
            // Writers that lost together would otherwise all try again together: a short random
            // pause, longer after each loss, lets one of them through at a time.
            await sleep(Math.random() * Math.min(CONFLICT_PAUSE_MS, attempt));
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
      // Queued behind this process's adds: the cached cards hold an add's merge until it commits.
      const index = await queued(resolved.key, () =>
        withStorageErrors(`list memory cards of ${resolved.key}`, async () => {
          const client = await context.client();
          return (await synced(client, resolved.base, resolved.key, resolved.scope)).index;
        }),
      );
      return index
        .cards()
        .filter((card) => options?.includeSuperseded === true || card.supersededBy === undefined)
        .map(copy);
    },

    async get(scope, id) {
      const resolved = resolveScope(context, scope);
      assertSafeId(id, 'card id');
      const value = await withStorageErrors(
        `read memory card ${id} of ${resolved.key}`,
        async () => {
          const client = await context.client();
          return (await client.sendCommand(['HGET', keys(resolved.base)[0]!, id])) as string | null;
        },
      );
      if (value === null || value === undefined) throw cardNotFound(id);
      return parse(value, resolved.scope, `memory card ${id} of ${resolved.key}`);
    },

    async remove(scope, ids) {
      const { base, key } = resolveScope(context, scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      await queued(key, () =>
        withStorageErrors(`remove memory cards of ${key}`, async () => {
          const client = await context.client();
          const reply = (await runScript(client, REMOVE, keys(base), [
            ...new Set(ids),
          ])) as unknown[];
          const generation = String(reply[0] ?? '');
          const revision = Number(reply[1]);
          const cached = cache.get(key);
          if (cached && cached.generation === generation && cached.revision === revision - 1) {
            cached.index.remove(ids);
            cached.revision = revision;
          } else {
            cache.delete(key);
          }
        }),
      );
    },
  };
}
