import type { Message, OffloadRecord, OffloadStore, Scope } from '../contracts/index.js';
import { NotFoundError } from '../errors/index.js';
import {
  assertRequiredScope,
  type Clock,
  decodeStorable,
  encodeMessage,
  isoNow,
  type ScopeField,
  type StorableJson,
  scopeKey,
  systemClock,
  validateRequiredScope,
} from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import { assertOffloadId, markContentAddressed, offloadId } from './offload-id.js';

export interface OffloadStoreOptions {
  /**
   * Scope fields every call must carry (multi-user mode): a scope without one of them is rejected
   * with `ScopeRequiredError`.
   * @default []
   */
  requiredScope?: ScopeField[];
  /**
   * Source of `createdAt` timestamps.
   * @default the system clock
   */
  clock?: Clock;
}

export function notFound(id: string): NotFoundError {
  return new NotFoundError({ message: `No offloaded content ${id} in this scope.`, id });
}

/** An offload store that lives in this process (lost on exit). Values are stored as copies. */
export function createInMemoryOffloadStore(options: OffloadStoreOptions = {}): OffloadStore {
  const { requiredScope = [], clock = systemClock } = requireOptions(
    options,
    'createInMemoryOffloadStore',
  );
  const required = validateRequiredScope(requiredScope);
  const scopes = new Map<string, Map<string, { createdAt: string; message: StorableJson }>>();

  const keyOf = (scope: Scope): string => {
    assertRequiredScope(scope, required);
    return scopeKey(scope);
  };

  const recordsOf = (scope: Scope) => {
    const key = keyOf(scope);
    let records = scopes.get(key);
    if (!records) {
      records = new Map();
      scopes.set(key, records);
    }
    return records;
  };

  const store: OffloadStore = {
    async put(scope, message) {
      const records = recordsOf(scope);
      const encoded = encodeMessage(message, 'message');
      const id = offloadId(message);
      if (!records.has(id)) records.set(id, { createdAt: isoNow(clock), message: encoded });
      return id;
    },

    async get(scope, id): Promise<OffloadRecord> {
      const key = keyOf(scope);
      assertOffloadId(id);
      const record = scopes.get(key)?.get(id);
      if (!record) throw notFound(id);
      return {
        id,
        createdAt: record.createdAt,
        message: decodeStorable(record.message) as Message,
      };
    },

    async delete(scope, id) {
      const key = keyOf(scope);
      assertOffloadId(id);
      scopes.get(key)?.delete(id);
    },
  };
  return markContentAddressed(store, async (scope, entries) => {
    const records = recordsOf(scope);
    for (const { id, message } of entries) {
      if (records.has(id)) continue;
      records.set(id, { createdAt: isoNow(clock), message: encodeMessage(message, 'message') });
    }
  });
}
