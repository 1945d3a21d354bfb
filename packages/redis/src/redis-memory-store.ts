import { randomUUID } from 'node:crypto';
import type { MemoryCard, MemoryStore, Scope } from '@ctxmem/core';
import {
  addSynced,
  applyRemoval,
  assertCardIds,
  createScopeQueue,
  createSyncedCardCache,
  decodeCard,
  encodeCard,
  getStoredCard,
  isoNow,
  listedCards,
  type SyncedCards,
  validateDrafts,
} from '@ctxmem/core/driver-kit';
import { luaScript, type RedisCommandClient, runScript, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/**
 * Lua shared by the scripts below: `changes(since_generation, since, asked)` returns generation,
 * revision, whether the cards are all of them (the caller's generation differs or is older than the
 * last removal), the number of changed cards, then id, card, position for each changed card
 * (written after `since`, or all) and for each id in the table `asked` (card and position false
 * when absent).
 */
const CHANGES_LUA = `
local function push(result, id)
  result[#result + 1] = id
  result[#result + 1] = redis.call('HGET', KEYS[1], id)
  result[#result + 1] = redis.call('ZSCORE', KEYS[3], id)
end
local function changes(since_generation, since, asked)
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
  for _, id in ipairs(ids) do push(result, id) end
  for _, id in ipairs(asked) do push(result, id) end
  return result
end
`;

/**
 * KEYS: cards, meta, order, changes. ARGV: the generation and revision the caller has, then ids
 * whose stored form it also wants. Returns what `changes` returns.
 */
const READ_CHANGES = luaScript(`${CHANGES_LUA}
local asked = {}
for i = 3, #ARGV do asked[#asked + 1] = ARGV[i] end
return changes(ARGV[1], tonumber(ARGV[2]), asked)
`);

/**
 * KEYS: cards, meta, order, changes, conflict keys. ARGV: the generation and revision the merge saw,
 * the generation to give a scope stored for the first time, ttl, the number of keys the merge looked
 * up and those keys (driver-kit's `draftConflictKeys`), the number of keys of the written cards and
 * those keys (`cardConflictKeys`), then id, card pairs.
 *
 * Commits when nothing written since the merge's revision could change it: same generation, no
 * removal since, no card written since that carries a key the merge looked up, none of the cards
 * it writes changed since (the conflict keys hash holds the last revision that wrote each key).
 * Writes the cards at the next revision, giving new ones the next positions, and returns
 * {1, generation, revision}: not the cards other writers committed meanwhile, which the caller
 * reads only when a key collides or it lists the scope. With no card to write it only checks,
 * returning {1, generation, revision} unchanged. Otherwise writes nothing and returns {0, changes}: what changed since and the stored form of the
 * cards it tried to write, so a conflict costs no second round trip. Revisions written by a script
 * that kept no keys (an older version of this package) make a caller older than them compare
 * revisions exactly (`keys-from`).
 */
const COMMIT = luaScript(`${CHANGES_LUA}
local meta = redis.call('HMGET', KEYS[2], 'generation', 'revision', 'next', 'reset', 'keyed', 'keys-from')
local generation = meta[1] or ''
local revision = tonumber(meta[2] or '0')
local since = tonumber(ARGV[2])
local keys_from = tonumber(meta[6] or '0')
if tonumber(meta[5] or '-1') ~= revision then keys_from = revision end
local probes = tonumber(ARGV[5])
local written_keys = tonumber(ARGV[6 + probes])
local first_card = 7 + probes + written_keys
local ids = {}
for i = first_card, #ARGV, 2 do ids[#ids + 1] = ARGV[i] end
local conflict = generation ~= ARGV[1] or tonumber(meta[4] or '0') > since or revision < since
if not conflict and since ~= revision then
  if since < keys_from then conflict = true end
  for i = 6, 5 + probes do
    if conflict then break end
    local stamped = redis.call('HGET', KEYS[5], ARGV[i])
    if stamped and tonumber(stamped) > since then conflict = true end
  end
  for _, id in ipairs(ids) do
    if conflict then break end
    local stamped = redis.call('ZSCORE', KEYS[4], id)
    if stamped and tonumber(stamped) > since then conflict = true end
  end
end
if conflict then return {0, changes(ARGV[1], since, ids)} end
if #ids == 0 then return {1, generation, revision} end
if generation == '' then generation = ARGV[3] end
local next_revision = revision + 1
local next = tonumber(meta[3] or '0')
for i = first_card, #ARGV, 2 do
  local id = ARGV[i]
  redis.call('HSET', KEYS[1], id, ARGV[i + 1])
  if not redis.call('ZSCORE', KEYS[3], id) then
    redis.call('ZADD', KEYS[3], next, id)
    next = next + 1
  end
  redis.call('ZADD', KEYS[4], next_revision, id)
end
for i = 7 + probes, 6 + probes + written_keys do
  redis.call('HSET', KEYS[5], ARGV[i], next_revision)
end
redis.call('HSET', KEYS[2], 'generation', generation, 'revision', next_revision, 'next', next,
  'keyed', next_revision, 'keys-from', keys_from)
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ttl) end
end
return {1, generation, next_revision}
`);

/**
 * KEYS: cards, meta, order, changes, conflict keys. ARGV: ids. Removes them, moves the revision and
 * the reset revision (other processes read the scope again) and drops the scope's conflict keys,
 * which no later commit needs (see driver-kit's `conflict-keys.ts`); returns {generation, revision}.
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
redis.call('DEL', KEYS[5])
redis.call('HSET', KEYS[2], 'revision', revision, 'reset', revision)
return {meta[1], revision}
`);

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
 * (insertion order), a sorted set of the revision that last wrote each card, a hash of conflict
 * keys (key → revision that last wrote it) and a meta hash (generation, revision, reset revision,
 * next position, keyed revisions).
 *
 * Each store keeps the scopes it uses indexed in memory (core's card index, see
 * `@ctxmem/core/driver-kit`'s synced cards) and catches up by reading only the cards written after
 * the revision it has, lazily. `add` merges the drafts into that index with core's rules and
 * commits with one script, which writes unless a card written since the merge's revision carries a
 * key the merge looked up (driver-kit's conflict keys); otherwise it returns what changed and the
 * stored form of what the merge touched, and the add merges again. A commit does not bring back
 * other processes' cards: they are read when a key collides or the scope is listed. So an add
 * neither reads nor compares against the whole scope, writers adding unrelated cards to one scope
 * neither merge again nor index each other's cards, and two writers never lose a card. `remove`
 * drops the scope's conflict keys with the cards. Within one process, calls on one scope queue
 * behind each other, and adds queued next to each other commit as one (driver-kit's
 * `createScopeQueue`). The generation is a random token given when a scope is first stored: a
 * scope that expired or was deleted and stored again is never mistaken for the one a cache holds.
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
    `${base}:cards-keys`,
  ];
  const queue = createScopeQueue();
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

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(context, scope);
      const valid = validateDrafts(drafts);
      if (valid.length === 0) return [];
      const { base, key } = resolved;
      return queue.add(key, valid, (joined) =>
        withStorageErrors(`add memory cards to ${key}`, async () => {
          const client = await context.client();
          return addSynced({
            cache,
            key,
            drafts: joined,
            mergeOptions: () => ({ scope: resolved.scope, now: isoNow(context.clock), generateId }),
            load: () => synced(client, base, key, resolved.scope),
            async commit({ generation, revision, writes, lookedUp, writtenKeys }) {
              const reply = (await runScript(client, COMMIT, keys(base), [
                generation,
                revision,
                randomUUID(),
                context.ttl.memory,
                lookedUp.length,
                ...lookedUp,
                writtenKeys.length,
                ...writtenKeys,
                ...writes.flatMap((card) => [card.id, encodeCard(card)]),
              ])) as unknown[];
              if (Number(reply[0]) === 1) {
                return {
                  committed: true,
                  generation: String(reply[1]),
                  revision: Number(reply[2]),
                };
              }
              const changes = parseChanges(reply[1] as unknown[], key, resolved.scope);
              return {
                committed: false,
                changes: { ...changes, cards: changes.changed },
                stored: changes.asked,
              };
            },
          });
        }),
      );
    },

    async list(scope, options) {
      const resolved = resolveScope(context, scope);
      // Queued behind this process's adds: the cached cards hold an add's merge until it commits.
      const cards = await queue.run(resolved.key, () =>
        withStorageErrors(`list memory cards of ${resolved.key}`, async () =>
          synced(await context.client(), resolved.base, resolved.key, resolved.scope),
        ),
      );
      return listedCards(cards, options?.includeSuperseded);
    },

    async get(scope, id) {
      const { key, base, scope: normalized } = resolveScope(context, scope);
      return getStoredCard({ id, scope: normalized, key }, () =>
        withStorageErrors(`read memory card ${id} of ${key}`, async () => {
          const client = await context.client();
          return (await client.sendCommand(['HGET', keys(base)[0]!, id])) as string | null;
        }),
      );
    },

    async remove(scope, ids) {
      const { base, key } = resolveScope(context, scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      await queue.run(key, () =>
        withStorageErrors(`remove memory cards of ${key}`, async () => {
          const client = await context.client();
          const reply = (await runScript(client, REMOVE, keys(base), [
            ...new Set(ids),
          ])) as unknown[];
          applyRemoval(cache, key, ids, {
            generation: String(reply[0] ?? ''),
            revision: Number(reply[1]),
          });
        }),
      );
    },
  };
}
