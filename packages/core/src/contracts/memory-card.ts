import type { Scope } from './scope.js';

/**
 * What a card holds. `episode` is a verbatim record of what happened, in the order it happened
 * (one card per turn of a conversation, per event of a log): memory search lets such a card score
 * through the records before and after it (`sequenceContext`), and a newer card never supersedes
 * it. The other types are self-contained statements.
 */
export type MemoryCardType =
  | 'goal'
  | 'decision'
  | 'constraint'
  | 'todo'
  | 'code'
  | 'fact'
  | 'preference'
  | 'episode';

export const MEMORY_CARD_TYPES: readonly MemoryCardType[] = [
  'goal',
  'decision',
  'constraint',
  'todo',
  'code',
  'fact',
  'preference',
  'episode',
];

/** A memory before it is stored: what summarizers extract and users add. */
export interface MemoryCardDraft {
  /** One self-contained sentence; for an `episode`, the record itself (such as one turn). */
  content: string;
  /**
   * `episode` for a verbatim record of what happened (a conversation turn, an event), which
   * search reads in the order of `occurredAt`; the other types are self-contained statements.
   * @default 'fact'
   */
  type?: MemoryCardType;
  tags?: string[];
  /** Where it came from, for example a message id, a turn or `MEMORY.md`. */
  source?: string;
  /**
   * When the thing it records happened or was said (ISO 8601 with a time zone, or a date such
   * as `2023-05-08`): the new card's `createdAt`, so a transcript imported later keeps its
   * dates and its order. A duplicate of an existing card keeps that card's dates.
   * @default the time it is added
   */
  occurredAt?: string;
}

export interface MemoryCard {
  id: string;
  content: string;
  type: MemoryCardType;
  tags: string[];
  /** ISO 8601: when the card was added, or the draft's `occurredAt`. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
  source?: string;
  scope: Scope;
  /** Id of the newer card that replaced this one. Superseded cards are kept but not returned as current. */
  supersededBy?: string;
}
