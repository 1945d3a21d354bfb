import { setTimeout as sleep } from 'node:timers/promises';
import {
  assertSafeId,
  isoNow,
  type MemoryCard,
  type MemoryStore,
  mergeCards,
  type Scope,
  StorageError,
  validateDrafts,
} from '@ctxmem/core';
import { luaScript, type RedisCommandClient, runScript, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';
import { assertCardIds, cardFromValue, cardNotFound, corrupt, encodeCard } from './records.js';

/** KEYS: cards hash, meta hash. Returns revision, next position, then id, value, id, value, ... */
const READ_ALL = luaScript(`
local meta = redis.call('HMGET', KEYS[2], 'revision', 'next')
local result = {meta[1] or '0', meta[2] or '0'}
local cards = redis.call('HGETALL', KEYS[1])
for _, value in ipairs(cards) do result[#result + 1] = value end
return result
`);

/**
 * KEYS: cards hash, meta hash. ARGV: expected revision, next position, ttl, then id, value pairs.
 * Writes the cards only if nobody wrote the scope since it was read (compare-and-set on the
 * revision); returns 1 when written, 0 when the caller must read again and retry.
 */
const COMMIT = luaScript(`
if (redis.call('HGET', KEYS[2], 'revision') or '0') ~= ARGV[1] then return 0 end
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HINCRBY', KEYS[2], 'revision', 1)
redis.call('HSET', KEYS[2], 'next', ARGV[2])
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return 1
`);

/** KEYS: cards hash, meta hash. ARGV: ids. Removes them and moves the revision. */
const REMOVE = luaScript(`
redis.call('HDEL', KEYS[1], unpack(ARGV))
redis.call('HINCRBY', KEYS[2], 'revision', 1)
return 1
`);

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
 * between processes.
 */
export function createRedisMemoryStore(
  context: StoreContext,
  generateId: () => string,
): MemoryStore {
  const keys = (base: string) => ({ cards: `${base}:cards`, meta: `${base}:cards-meta` });
  const queues = new Map<string, Promise<unknown>>();

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
  ): Promise<{ revision: string; next: number; cards: StoredCard[] }> {
    const { cards, meta } = keys(base);
    const reply = (await runScript(client, READ_ALL, [cards, meta], [])) as string[];
    const stored: StoredCard[] = [];
    for (let position = 2; position < reply.length; position += 2) {
      stored.push(
        parse(String(reply[position + 1]), scope, `memory card ${reply[position]} of ${key}`),
      );
    }
    stored.sort((left, right) => left.position - right.position);
    return { revision: String(reply[0]), next: Number(reply[1]), cards: stored };
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
            result.cards.forEach((card, position) => {
              if (position < existing.length && card === existing[position]) return;
              const storedPosition =
                position < existing.length
                  ? read.cards[position]!.position
                  : read.next + position - existing.length;
              writes.push(card.id, `{"position":${storedPosition},"card":${encodeCard(card)}}`);
            });
            const next = read.next + result.cards.length - existing.length;
            const { cards, meta } = keys(base);
            const committed = await runScript(
              client,
              COMMIT,
              [cards, meta],
              [read.revision, next, context.ttl.memory, ...writes],
            );
            if (Number(committed) === 1) return result.results.map(copy);
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
          .filter((card) => options?.includeSuperseded === true || card.supersededBy === undefined);
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
          await runScript(client, REMOVE, [cards, meta], [...new Set(ids)]);
        }),
      );
    },
  };
}
