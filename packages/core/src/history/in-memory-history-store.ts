import type { CompleteHistoryStore, Scope, WorkingState } from '../contracts/index.js';
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
  stateVersionConflict,
} from './history-records.js';
import { assertAppendPosition, splitPositionalAppend } from './positional-append.js';

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
}: HistoryStoreOptions = {}): CompleteHistoryStore {
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
    async append(scope, messages, { at } = {}) {
      const key = keyOf(scope);
      const encoded = encodeMessages(messages);
      if (at !== undefined) assertAppendPosition(at);
      if (encoded.length === 0 && at === undefined) return [];
      // Everything below runs in one synchronous step: no other call interleaves.
      const data = scopes.get(key) ?? { records: [] };
      const last = data.records.at(-1);
      const end = last ? endAfter(last) : EMPTY_HISTORY_END;
      const { skipped, fresh } =
        at === undefined
          ? { skipped: [], fresh: encoded }
          : splitPositionalAppend(
              at,
              end.nextIndex,
              data.records.slice(at, at + encoded.length),
              encoded,
            );
      if (fresh.length > 0) {
        const records = numberMessages(end, fresh, isoNow(clock), generateId);
        dataOf(key).records.push(...records);
        return [...skipped, ...records].map(decodeStoredRecord);
      }
      return skipped.map(decodeStoredRecord);
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
        throw stateVersionConflict(expectedVersion, actualVersion);
      }
      data.state = { version: actualVersion + 1, state: encoded };
      return actualVersion + 1;
    },

    async clear(scope) {
      scopes.delete(keyOf(scope));
    },
  };
}
