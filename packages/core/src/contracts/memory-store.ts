import type { MemoryCard, MemoryCardDraft } from './memory-card.js';
import type { Scope } from './scope.js';

export interface MemoryListOptions {
  /** @default false */
  includeSuperseded?: boolean;
}

/**
 * Long-term memory cards. Required: add, list, get, remove. Every method is scoped: a card is only
 * visible in the exact scope it was added in. A store configured as multi-user throws
 * `ScopeRequiredError` when the scope lacks the required fields.
 */
export interface MemoryStore {
  /** Adds cards, de-duplicating and superseding; returns the cards as stored (existing ones for duplicates). */
  add(scope: Scope, drafts: readonly MemoryCardDraft[]): Promise<MemoryCard[]>;
  list(scope: Scope, options?: MemoryListOptions): Promise<MemoryCard[]>;
  /** Throws `NotFoundError` when missing. */
  get(scope: Scope, id: string): Promise<MemoryCard>;
  remove(scope: Scope, ids: readonly string[]): Promise<void>;
}
