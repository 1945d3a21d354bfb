/**
 * What every shared-store driver's factory (`createPostgresStores`, `createRedisStores`) takes and
 * returns besides its connection: the options are documented and resolved once here.
 */
import type {
  CompleteHistoryStore,
  LeaseStore,
  MemoryStore,
  OffloadStore,
} from '../contracts/index.js';
import {
  type Clock,
  type ScopeField,
  systemClock,
  validateRequiredScope,
} from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import { generateCardId, generateMessageId, safeIdGenerator } from './records.js';

export interface DriverStoresOptions {
  /**
   * Scope fields every call must carry (multi-user mode): a scope without one of them is rejected
   * with `ScopeRequiredError` instead of reaching shared data.
   * @default []
   */
  requiredScope?: ScopeField[];
  /**
   * Source of `createdAt` / `updatedAt` timestamps.
   * @default the system clock
   */
  clock?: Clock;
  /**
   * Creates the id of a message appended without one.
   * @default `msg_` followed by a random UUID
   */
  generateMessageId?: () => string;
  /**
   * Creates the id of a new memory card.
   * @default a random UUID
   */
  generateCardId?: () => string;
}

/** The stores a driver's factory returns, shared by every instance of an application. */
export interface DriverStores<Memory extends MemoryStore = MemoryStore> {
  history: CompleteHistoryStore;
  offload: OffloadStore;
  memory: Memory;
  /**
   * Expiring claims on a job of a scope, shared by every instance (see driver-kit's `LeaseStore`):
   * e.g. `tryAcquire(scope, 'compaction', 60_000)` before summarizing, so two instances
   * compacting one session do not both call the summarizer.
   */
  leases: LeaseStore;
}

/** `DriverStoresOptions` checked, with defaults and id generators that check what they create. */
export interface ResolvedDriverOptions {
  required: readonly ScopeField[];
  clock: Clock;
  messageIds: () => string;
  cardIds: () => string;
}

export function resolveDriverOptions(options: DriverStoresOptions): ResolvedDriverOptions {
  const {
    requiredScope = [],
    clock = systemClock,
    generateMessageId: messageIds = generateMessageId,
    generateCardId: cardIds = generateCardId,
  } = requireOptions(options, 'resolveDriverOptions');
  return {
    required: validateRequiredScope(requiredScope),
    clock,
    messageIds: safeIdGenerator(messageIds, 'generated message id'),
    cardIds: safeIdGenerator(cardIds, 'generated card id'),
  };
}
