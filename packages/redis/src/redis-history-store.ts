import {
  ConflictError,
  decodeStorable,
  type HistoryStore,
  isoNow,
  type Message,
  type StorableJson,
  type StoredMessage,
  type WorkingState,
} from '@ctxmem/core';
import {
  assertExpectedVersion,
  corrupt,
  decodeState,
  encodeState,
  normalizeRange,
  normalizeTurns,
  numberPrepared,
  prepareMessages,
} from '@ctxmem/core/driver-kit';
import { luaScript, runScript, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/**
 * KEYS: history list, turns hash. ARGV: createdAt (as JSON), ttl, then a starts-turn flag and the
 * message JSON per message. Numbers the messages after the list's end and pushes them in one
 * piece; the turns hash keeps where each turn starts (`t<turn>`) and the last turn (`last`).
 */
const APPEND = luaScript(`
local start = redis.call('LLEN', KEYS[1])
local turn = tonumber(redis.call('HGET', KEYS[2], 'last') or '0')
local startTurn = turn
local records = {}
for i = 3, #ARGV, 2 do
  if ARGV[i] == '1' then
    turn = turn + 1
    redis.call('HSET', KEYS[2], 't' .. turn, start + (i - 3) / 2)
  end
  records[#records + 1] = '{"turn":' .. turn .. ',"createdAt":' .. ARGV[1] .. ',"message":' .. ARGV[i + 1] .. '}'
  if #records == 500 then
    redis.call('RPUSH', KEYS[1], unpack(records))
    records = {}
  end
end
if #records > 0 then redis.call('RPUSH', KEYS[1], unpack(records)) end
redis.call('HSET', KEYS[2], 'last', turn)
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return {start, startTurn}
`);

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

/** KEYS: state hash. ARGV: expected version, state JSON, ttl. Compare-and-set on the version. */
const SET_STATE = luaScript(`
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return {0, current} end
redis.call('HSET', KEYS[1], 'version', current + 1, 'state', ARGV[2])
local ttl = tonumber(ARGV[3])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return {1, current + 1}
`);

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
 */
export function createRedisHistoryStore(
  context: StoreContext,
  generateId: () => string,
): HistoryStore {
  const keys = (base: string) => ({
    history: `${base}:history`,
    turns: `${base}:turns`,
    state: `${base}:state`,
  });

  return {
    async append(scope, messages) {
      const { base, key } = resolveScope(context, scope);
      const prepared = prepareMessages(messages, generateId);
      if (prepared.length === 0) return [];
      const createdAt = isoNow(context.clock);
      const { history, turns } = keys(base);
      return withStorageErrors(`append to the history of ${key}`, async () => {
        const client = await context.client();
        const reply = (await runScript(
          client,
          APPEND,
          [history, turns],
          [
            JSON.stringify(createdAt),
            context.ttl.history,
            ...prepared.flatMap((entry) => [entry.startsTurn ? '1' : '0', entry.json]),
          ],
        )) as [number, number];
        return numberPrepared(
          prepared,
          { nextIndex: Number(reply[0]), turn: Number(reply[1]) },
          createdAt,
        );
      });
    },

    async read(scope, range) {
      const { base, key } = resolveScope(context, scope);
      const { from, to } = normalizeRange(range);
      if (to !== undefined && to <= from) return [];
      return withStorageErrors(`read the history of ${key}`, async () => {
        const client = await context.client();
        const records = (await client.sendCommand([
          'LRANGE',
          keys(base).history,
          String(from),
          String(to === undefined ? -1 : to - 1),
        ])) as string[];
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
        const reply = (await runScript(client, READ_TURNS, [history, turnIndex], wanted)) as Array<
          number | string
        >;
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
        return Number(await client.sendCommand(['LLEN', keys(base).history]));
      });
    },

    async getState(scope): Promise<WorkingState | undefined> {
      const { base, key } = resolveScope(context, scope);
      return withStorageErrors(`read the working state of ${key}`, async () => {
        const client = await context.client();
        const [version, state] = (await client.sendCommand([
          'HMGET',
          keys(base).state,
          'version',
          'state',
        ])) as [string | null, string | null];
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
          return (await runScript(
            client,
            SET_STATE,
            [keys(base).state],
            [expectedVersion, encoded, context.ttl.history],
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
