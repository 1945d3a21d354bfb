import type { Scope } from './scope.js';

export type MemoryCardType =
  | 'goal'
  | 'decision'
  | 'constraint'
  | 'todo'
  | 'code'
  | 'fact'
  | 'preference';

export const MEMORY_CARD_TYPES: readonly MemoryCardType[] = [
  'goal',
  'decision',
  'constraint',
  'todo',
  'code',
  'fact',
  'preference',
];

/** A memory before it is stored: what summarizers extract and users add. */
export interface MemoryCardDraft {
  /** One self-contained sentence. */
  content: string;
  /** @default 'fact' */
  type?: MemoryCardType;
  tags?: string[];
  /** Where it came from, for example a message id, a turn or `MEMORY.md`. */
  source?: string;
}

export interface MemoryCard {
  id: string;
  content: string;
  type: MemoryCardType;
  tags: string[];
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
  source?: string;
  scope: Scope;
  /** Id of the newer card that replaced this one. Superseded cards are kept but not returned as current. */
  supersededBy?: string;
}
