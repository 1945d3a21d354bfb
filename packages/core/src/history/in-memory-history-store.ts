import type { HistoryStore, Scope, WorkingState } from '../contracts/index.js';
import { ConflictError } from '../errors/index.js';
import {
  assertRequiredScope,
  type Clock,
  isoNow,
  type ScopeField,
  scopeKey,
  systemClock,
  validateRequiredScope,
} from '../storage/index.js';
import {
  assertExpectedVersion,
  decodeState,
  decodeStoredRecord,
  EMPTY_HISTORY_END,
  type EncodedStoredMessage,
  type EncodedWorkingState,
  encodeMessages,
  encodeState,
  endAfter,
  generateMessageId,
  normalizeRange,
  normalizeTurns,
  numberMessages,
} from './history-records.js';

export interface HistoryStoreOptions {
  /**
   * Scope fields every call must carry (multi-user mode): a scope without one of them is rejected
   * with `ScopeRequiredError` instead of reaching shared data.
   * @default []
   */
  requiredScope?: ScopeField[];
  /**
   * Source of `createdAt` timestamps.
   * @default the system clock
   */
  clock?: Clock;
  /**
   * Creates the id of a message appended without one.
   * @default `msg_` followed by a random UUID
   */
  generateId?: () => string;
}

interface ScopeData {
  records: EncodedStoredMessage[];
  state?: EncodedWorkingState;
}

/**
 * A history store that lives in this process (lost on exit). Stored values are copies: later
 * changes to the objects passed in or returned never reach the store.
 */
export function createInMemoryHistoryStore({
  requiredScope = [],
  clock = systemClock,
  generateId = generateMessageId,
}: HistoryStoreOptions = {}): HistoryStore {
  const required = validateRequiredScope(requiredScope);
  const scopes = new Map<string, ScopeData>();

  const keyOf = (scope: Scope): string => {
    assertRequiredScope(scope, required);
    return scopeKey(scope);
  };
  const dataOf = (key: string): ScopeData => {
    let data = scopes.get(key);
    if (!data) {
      data = { records: [] };
      scopes.set(key, data);
    }
    return data;
  };

  return {
    async append(scope, messages) {
      const key = keyOf(scope);
      const encoded = encodeMessages(messages);
      if (encoded.length === 0) return [];
      const data = dataOf(key);
      const last = data.records.at(-1);
      const records = numberMessages(
        last ? endAfter(last) : EMPTY_HISTORY_END,
        encoded,
        isoNow(clock),
        generateId,
      );
      data.records.push(...records);
      return records.map(decodeStoredRecord);
    },

    async read(scope, range) {
      const key = keyOf(scope);
      const { from, to } = normalizeRange(range);
      const records = scopes.get(key)?.records ?? [];
      return records
        .filter((record) => record.index >= from && record.index < to)
        .map(decodeStoredRecord);
    },

    async readTurns(scope, turns) {
      const key = keyOf(scope);
      const wanted = normalizeTurns(turns);
      const records = scopes.get(key)?.records ?? [];
      return records.filter((record) => wanted.has(record.turn)).map(decodeStoredRecord);
    },

    async count(scope) {
      const last = scopes.get(keyOf(scope))?.records.at(-1);
      return last ? last.index + 1 : 0;
    },

    async getState(scope): Promise<WorkingState | undefined> {
      const state = scopes.get(keyOf(scope))?.state;
      return state ? decodeState(state) : undefined;
    },

    async setState(scope, state, expectedVersion) {
      const key = keyOf(scope);
      assertExpectedVersion(expectedVersion);
      const encoded = encodeState(state);
      const data = dataOf(key);
      const actualVersion = data.state?.version ?? 0;
      if (actualVersion !== expectedVersion) {
        throw new ConflictError({
          message: `The working state changed: expected version ${expectedVersion}, found ${actualVersion}.`,
          expectedVersion,
          actualVersion,
        });
      }
      data.state = { version: actualVersion + 1, state: encoded };
      return actualVersion + 1;
    },

    async clear(scope) {
      scopes.delete(keyOf(scope));
    },
  };
}
