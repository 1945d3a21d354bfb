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
import { requireOptions } from '../validation/index.js';
import {
  assertExpectedVersion,
  decodeState,
  EMPTY_HISTORY_END,
  type EncodedStoredMessage,
  type EncodedWorkingState,
  encodeMessages,
  encodeState,
  endAfter,
  generateMessageId,
  nextStateVersion,
  normalizeRange,
  normalizeTurns,
  recordsInRange,
  recordsOfTurns,
} from './history-records.js';
import { assertAppendPosition, planAppend } from './positional-append.js';

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
export function createInMemoryHistoryStore(
  options: HistoryStoreOptions = {},
): CompleteHistoryStore {
  const {
    requiredScope = [],
    clock = systemClock,
    generateId = generateMessageId,
  } = requireOptions(options, 'createInMemoryHistoryStore');
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
      const held = scopes.get(key)?.records ?? [];
      const last = held.at(-1);
      const { records, appended } = planAppend({
        at,
        end: last ? endAfter(last) : EMPTY_HISTORY_END,
        stored: at === undefined ? [] : held.slice(at, at + encoded.length),
        encoded,
        createdAt: () => isoNow(clock),
        generateId,
      });
      if (records.length > 0) dataOf(key).records.push(...records);
      return appended;
    },

    async read(scope, range) {
      const key = keyOf(scope);
      const wanted = normalizeRange(range);
      return recordsInRange(scopes.get(key)?.records ?? [], wanted);
    },

    async readTurns(scope, turns) {
      const key = keyOf(scope);
      const wanted = normalizeTurns(turns);
      return recordsOfTurns(scopes.get(key)?.records ?? [], wanted);
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
      const version = nextStateVersion(expectedVersion, data.state?.version ?? 0);
      data.state = { version, state: encoded };
      return version;
    },

    async clear(scope) {
      scopes.delete(keyOf(scope));
    },
  };
}
