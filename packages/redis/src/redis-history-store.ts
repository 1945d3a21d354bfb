import {
  type CompleteHistoryStore,
  ConflictError,
  type Message,
  type StorableJson,
  type StoredMessage,
  type WorkingState,
} from '@ctxmem/core';
import {
  assertAppendPosition,
  assertExpectedVersion,
  corrupt,
  decodeState,
  decodeStorable,
  encodeState,
  isoNow,
  normalizeRange,
  normalizeTurns,
  numberPrepared,
  type PreparedMessage,
  planPositionalAppend,
  prepareMessages,
} from '@ctxmem/core/driver-kit';
import { luaScript, type RedisCommandClient, runScript, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/**
 * The part of an append script that numbers and pushes messages after the list's end. Its ARGV
 * start at `first`: createdAt (as JSON), ttl, then a starts-turn flag and the message JSON per
 * message. The turns hash keeps where each turn starts (`t<turn>`) and the last turn (`last`). The
 * TTL is set again on all three keys: a session that is appended to keeps its working state,
 * which is written only when it is compacted.
 */
const pushMessages = (first: number) => `
local start = redis.call('LLEN', KEYS[1])
local turn = tonumber(redis.call('HGET', KEYS[2], 'last') or '0')
local startTurn = turn
local records = {}
for i = ${first + 2}, #ARGV, 2 do
  if ARGV[i] == '1' then
    turn = turn + 1
    redis.call('HSET', KEYS[2], 't' .. turn, start + (i - ${first + 2}) / 2)
  end
  records[#records + 1] = '{"turn":' .. turn .. ',"createdAt":' .. ARGV[${first}] .. ',"message":' .. ARGV[i + 1] .. '}'
  if #records == 500 then
    redis.call('RPUSH', KEYS[1], unpack(records))
    records = {}
  end
end
if #records > 0 then redis.call('RPUSH', KEYS[1], unpack(records)) end
if #ARGV >= ${first + 2} then redis.call('HSET', KEYS[2], 'last', turn) end
local ttl = tonumber(ARGV[${first + 1}])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
  redis.call('EXPIRE', KEYS[3], ttl)
end
return {1, start, startTurn}
`;

/** KEYS: history list, turns hash, state hash. ARGV: as `pushMessages(1)`. */
const APPEND = luaScript(pushMessages(1));

/**
 * KEYS: history list, turns hash, state hash. ARGV: the history length the caller expects, the
 * position `at` and message count of its append, then as `pushMessages(4)`. Appends only when the
 * list still has the expected length (compare-and-append); otherwise returns
 * `{0, length, records at [at, at + count)}` so that core compares them and the caller retries
 * with what is left, against the new length.
 */
const APPEND_AT = luaScript(`
local length = redis.call('LLEN', KEYS[1])
if length ~= tonumber(ARGV[1]) then
  local at = tonumber(ARGV[2])
  local last = math.min(length, at + tonumber(ARGV[3])) - 1
  local overlap = {}
  if last >= at then overlap = redis.call('LRANGE', KEYS[1], at, last) end
  local ttl = tonumber(ARGV[5])
  if ttl > 0 then
    for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ttl) end
  end
  return {0, length, overlap}
end
${pushMessages(4)}`);

/**
 * KEYS: history list, turns hash. ARGV: turn numbers, ascending. Returns index, record, index,
 * record, ... for the messages of those turns, read in one consistent step.
 */
const READ_TURNS = luaScript(`
local length = redis.call('LLEN', KEYS[1])
local last = tonumber(redis.call('HGET', KEYS[2], 'last') or '0')
local result = {}
for _, value in ipairs(ARGV) do
  local turn = tonumber(value)
  local first = nil
  if turn == 0 then first = 0 else first = tonumber(redis.call('HGET', KEYS[2], 't' .. turn)) end
  if first ~= nil and turn <= last then
    local after = length
    if turn < last then after = tonumber(redis.call('HGET', KEYS[2], 't' .. (turn + 1))) end
    if after > first then
      local records = redis.call('LRANGE', KEYS[1], first, after - 1)
      for offset, record in ipairs(records) do
        result[#result + 1] = first + offset - 1
        result[#result + 1] = record
      end
    end
  end
end
return result
`);

/**
 * KEYS: state hash, history list, turns hash. ARGV: expected version, state JSON, ttl.
 * Compare-and-set on the version. Every attempt, won or lost, sets the TTL again on the session's
 * keys: a writer that lost a conflict is still using the session, and re-reads then stores again.
 */
const SET_STATE = luaScript(`
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local written = 0
if current == tonumber(ARGV[1]) then
  current = current + 1
  written = 1
  redis.call('HSET', KEYS[1], 'version', current, 'state', ARGV[2])
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ttl) end
end
return {written, current}
`);

/**
 * KEYS: state hash, history list, turns hash. ARGV: ttl. Reads the working state and sets the TTL
 * again on the session's keys, in one step: reading a session's state is using it.
 */
const GET_STATE = luaScript(`
local reply = redis.call('HMGET', KEYS[1], 'version', 'state')
local ttl = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ttl) end
return reply
`);

/** Compare-and-append attempts of one positional append; each failed one means another writer appended. */
const MAX_APPEND_ATTEMPTS = 50;

interface HistoryRecord {
  turn: number;
  createdAt: string;
  message: StorableJson;
}

function parseRecord(text: string, index: number, where: string): StoredMessage {
  let record: HistoryRecord;
  try {
    record = JSON.parse(text) as HistoryRecord;
  } catch (error) {
    throw corrupt(where, error);
  }
  if (typeof record?.turn !== 'number' || typeof record.createdAt !== 'string')
    throw corrupt(where);
  return {
    index,
    turn: record.turn,
    createdAt: record.createdAt,
    message: decodeStorable(record.message) as Message,
  };
}

/**
 * The original history and working state in Redis: a list of messages per scope (append is one
 * script, so concurrent appends from any number of processes get contiguous indexes and each
 * batch stays in one piece), a hash of where each turn starts (so `readTurns` reads only those
 * turns), and a hash for the working state whose `version` field a script compares and sets.
 *
 * With a history TTL, every call on a scope (read or write) sets it again on all three keys, so
 * the keys of a session in use never expire, and expire together once it is left idle.
 */
export function createRedisHistoryStore(
  context: StoreContext,
  generateId: () => string,
): CompleteHistoryStore {
  const keys = (base: string) => ({
    history: `${base}:history`,
    turns: `${base}:turns`,
    state: `${base}:state`,
  });
  const ttl = context.ttl.history;

  /** Sets the TTL again on a scope's keys (keys that do not exist are left alone). */
  const touch = async (client: RedisCommandClient, base: string): Promise<void> => {
    if (ttl <= 0) return;
    const { history, turns, state } = keys(base);
    await Promise.all(
      [history, turns, state].map((key) => client.sendCommand(['EXPIRE', key, String(ttl)])),
    );
  };

  return {
    async append(scope, messages, { at } = {}) {
      const { base, key } = resolveScope(context, scope);
      const prepared = prepareMessages(messages, generateId);
      if (at !== undefined) assertAppendPosition(at);
      if (prepared.length === 0 && at === undefined) return [];
      const createdAt = isoNow(context.clock);
      const { history, turns, state } = keys(base);
      const pushArguments = (batch: readonly PreparedMessage[]) => [
        JSON.stringify(createdAt),
        ttl,
        ...batch.flatMap((entry) => [entry.startsTurn ? '1' : '0', entry.json]),
      ];
      return withStorageErrors(`append to the history of ${key}`, async () => {
        const client = await context.client();
        if (at === undefined) {
          const reply = (await runScript(
            client,
            APPEND,
            [history, turns, state],
            pushArguments(prepared),
          )) as [number, number, number];
          return numberPrepared(
            prepared,
            { nextIndex: Number(reply[1]), turn: Number(reply[2]) },
            createdAt,
          );
        }
        // Optimistic: expect the history to end at `at`; when it does not, the script returns
        // what is stored from `at` on, core compares it, and the rest is appended against the new
        // length. Each retry means another writer appended meanwhile, so this converges.
        let expected = at;
        let skipped: StoredMessage[] = [];
        for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
          const fresh = prepared.slice(skipped.length);
          const reply = (await runScript(
            client,
            APPEND_AT,
            [history, turns, state],
            [expected, at, prepared.length, ...pushArguments(fresh)],
          )) as [number, number, number | string[]];
          if (Number(reply[0]) === 1) {
            return [
              ...skipped,
              ...numberPrepared(
                fresh,
                { nextIndex: Number(reply[1]), turn: Number(reply[2]) },
                createdAt,
              ),
            ];
          }
          const length = Number(reply[1]);
          skipped = (reply[2] as string[]).map((record, offset) =>
            parseRecord(record, at + offset, `history message ${at + offset} of ${key}`),
          );
          const stored = planPositionalAppend(
            at,
            length,
            skipped.map((entry) => entry.message),
            prepared.map((entry) => entry.message),
          );
          if (stored === prepared.length) return skipped;
          expected = length;
        }
        throw new ConflictError({
          message: `The history of ${key} kept changing during ${MAX_APPEND_ATTEMPTS} attempts to append at position ${at}.`,
          expectedVersion: expected,
          actualVersion: expected,
          position: at,
        });
      });
    },

    async read(scope, range) {
      const { base, key } = resolveScope(context, scope);
      const { from, to } = normalizeRange(range);
      if (to !== undefined && to <= from) return [];
      return withStorageErrors(`read the history of ${key}`, async () => {
        const client = await context.client();
        const [records] = await Promise.all([
          client.sendCommand([
            'LRANGE',
            keys(base).history,
            String(from),
            String(to === undefined ? -1 : to - 1),
          ]) as Promise<string[]>,
          touch(client, base),
        ]);
        return records.map((record, offset) =>
          parseRecord(record, from + offset, `history message ${from + offset} of ${key}`),
        );
      });
    },

    async readTurns(scope, turns) {
      const { base, key } = resolveScope(context, scope);
      const wanted = normalizeTurns(turns);
      if (wanted.length === 0) return [];
      const { history, turns: turnIndex } = keys(base);
      return withStorageErrors(`read turns of ${key}`, async () => {
        const client = await context.client();
        const [reply] = await Promise.all([
          runScript(client, READ_TURNS, [history, turnIndex], wanted) as Promise<
            Array<number | string>
          >,
          touch(client, base),
        ]);
        const stored: StoredMessage[] = [];
        for (let position = 0; position < reply.length; position += 2) {
          const index = Number(reply[position]);
          stored.push(
            parseRecord(String(reply[position + 1]), index, `history message ${index} of ${key}`),
          );
        }
        return stored;
      });
    },

    async count(scope) {
      const { base, key } = resolveScope(context, scope);
      return withStorageErrors(`count the history of ${key}`, async () => {
        const client = await context.client();
        const [length] = await Promise.all([
          client.sendCommand(['LLEN', keys(base).history]),
          touch(client, base),
        ]);
        return Number(length);
      });
    },

    async getState(scope): Promise<WorkingState | undefined> {
      const { base, key } = resolveScope(context, scope);
      return withStorageErrors(`read the working state of ${key}`, async () => {
        const client = await context.client();
        const { history, turns, state: stateKey } = keys(base);
        const [version, state] = (
          ttl > 0
            ? await runScript(client, GET_STATE, [stateKey, history, turns], [ttl])
            : await client.sendCommand(['HMGET', stateKey, 'version', 'state'])
        ) as [string | null, string | null];
        if (version === null || state === null) return undefined;
        return decodeState(state, Number(version), `working state of ${key}`);
      });
    },

    async setState(scope, state, expectedVersion) {
      const { base, key } = resolveScope(context, scope);
      assertExpectedVersion(expectedVersion);
      const encoded = encodeState(state);
      const [written, version] = await withStorageErrors(
        `write the working state of ${key}`,
        async () => {
          const client = await context.client();
          const { history, turns, state: stateKey } = keys(base);
          return (await runScript(
            client,
            SET_STATE,
            [stateKey, history, turns],
            [expectedVersion, encoded, ttl],
          )) as [number, number];
        },
      );
      if (Number(written) === 1) return Number(version);
      const actualVersion = Number(version);
      throw new ConflictError({
        message: `The working state changed: expected version ${expectedVersion}, found ${actualVersion}.`,
        expectedVersion,
        actualVersion,
      });
    },

    async clear(scope) {
      const { base, key } = resolveScope(context, scope);
      const { history, turns, state } = keys(base);
      await withStorageErrors(`clear the history of ${key}`, async () => {
        const client = await context.client();
        await client.sendCommand(['DEL', history, turns, state]);
      });
    },
  };
}
