import type { Message, OffloadRecord, OffloadStore, StorableJson } from '@ctxmem/core';
import {
  assertOffloadId,
  corrupt,
  decodeStorable,
  encodeMessage,
  isoNow,
  offloadId,
  offloadNotFound,
} from '@ctxmem/core/driver-kit';
import { withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/**
 * Offloaded payloads in Redis: one string key per scope and content id, written with `SET NX`
 * (and `EX` when an offload TTL is set). Ids come from the content, so a second `put` of the same
 * message keeps the first write and its `createdAt`. With an offload TTL, a second `put` and every
 * `get` set it again: a payload still in use does not expire.
 */
export function createRedisOffloadStore(context: StoreContext): OffloadStore {
  return {
    async put(scope, message) {
      const { base, key } = resolveScope(context, scope);
      const encoded = encodeMessage(message, 'message');
      const id = offloadId(message);
      const value = JSON.stringify({ createdAt: isoNow(context.clock), message: encoded });
      await withStorageErrors(`offload ${id} in ${key}`, async () => {
        const client = await context.client();
        const ttl = context.ttl.offload;
        const written = await client.sendCommand([
          'SET',
          `${base}:offload:${id}`,
          value,
          'NX',
          ...(ttl > 0 ? ['EX', String(ttl)] : []),
        ]);
        // Already there (put before, by this instance or another): the first write is kept, and
        // its expiry starts again.
        if (ttl > 0 && written === null) {
          await client.sendCommand(['EXPIRE', `${base}:offload:${id}`, String(ttl)]);
        }
      });
      return id;
    },

    async get(scope, id): Promise<OffloadRecord> {
      const { base, key } = resolveScope(context, scope);
      assertOffloadId(id);
      const text = await withStorageErrors(`read offload ${id} in ${key}`, async () => {
        const client = await context.client();
        const ttl = context.ttl.offload;
        const [value] = await Promise.all([
          client.sendCommand(['GET', `${base}:offload:${id}`]) as Promise<string | null>,
          ttl > 0 ? client.sendCommand(['EXPIRE', `${base}:offload:${id}`, String(ttl)]) : null,
        ]);
        return value;
      });
      if (text === null || text === undefined) throw offloadNotFound(id);
      const where = `offload ${id} of ${key}`;
      let record: { createdAt?: unknown; message?: unknown };
      try {
        record = JSON.parse(text) as typeof record;
      } catch (error) {
        throw corrupt(where, error);
      }
      if (typeof record?.createdAt !== 'string' || record.message === undefined) {
        throw corrupt(where);
      }
      return {
        id,
        createdAt: record.createdAt,
        message: decodeStorable(record.message as StorableJson) as Message,
      };
    },

    async delete(scope, id) {
      const { base, key } = resolveScope(context, scope);
      assertOffloadId(id);
      await withStorageErrors(`delete offload ${id} in ${key}`, async () => {
        const client = await context.client();
        await client.sendCommand(['DEL', `${base}:offload:${id}`]);
      });
    },
  };
}
