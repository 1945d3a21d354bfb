import { randomUUID } from 'node:crypto';
import type { MemoryCard, MemoryListOptions, Scope } from '../contracts/index.js';
import { MEMORY_CARD_TYPES } from '../contracts/index.js';
import { InvalidArgumentError, NotFoundError } from '../errors/index.js';
import {
  assertSafeId,
  type Clock,
  isSafeId,
  SCOPE_FIELDS,
  type ScopeField,
} from '../storage/index.js';

export interface MemoryStoreOptions {
  /**
   * Scope fields every call must carry (multi-user mode): a scope without one of them is rejected
   * with `ScopeRequiredError`, never treated as "every user".
   * @default []
   */
  requiredScope?: Array<ScopeField>;
  /**
   * Source of `createdAt` / `updatedAt`.
   * @default the system clock
   */
  clock?: Clock;
  /**
   * Creates the id of a new card.
   * @default a random UUID
   */
  generateId?: () => string;
}

export const generateCardId = (): string => randomUUID();

/** A checked card id generator: ids end up in keys and must be safe. */
export function safeIdGenerator(generateId: () => string): () => string {
  return () => {
    const id = generateId();
    assertSafeId(id, 'generated card id');
    return id;
  };
}

export function cardNotFound(id: string): NotFoundError {
  return new NotFoundError({ message: `No memory card ${id} in this scope.`, id });
}

/** Validates the ids passed to `remove`. */
export function assertCardIds(ids: readonly string[]): void {
  if (!Array.isArray(ids)) {
    throw new InvalidArgumentError({
      message: `remove expects an array of card ids; got ${typeof ids}.`,
      argument: 'ids',
    });
  }
  for (const id of ids) assertSafeId(id, 'card id');
}

/** Current cards only, unless superseded ones are asked for. */
export function visibleCards(
  cards: readonly MemoryCard[],
  options?: MemoryListOptions,
): MemoryCard[] {
  return options?.includeSuperseded
    ? [...cards]
    : cards.filter((card) => card.supersededBy === undefined);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * Checks a card read back from storage; `undefined` when it is damaged or belongs to another
 * scope than `scope` (a card is only ever returned in the scope it was added in). `scope` must be
 * normalized (see `normalizeScope`).
 */
export function validateStoredCard(value: unknown, scope: Scope): MemoryCard | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const card = value as Partial<MemoryCard>;
  if (!isSafeId(card.id) || typeof card.content !== 'string') return undefined;
  if (card.type === undefined || !MEMORY_CARD_TYPES.includes(card.type)) return undefined;
  if (!isStringArray(card.tags)) return undefined;
  if (typeof card.createdAt !== 'string' || typeof card.updatedAt !== 'string') return undefined;
  if (card.source !== undefined && typeof card.source !== 'string') return undefined;
  if (card.supersededBy !== undefined && typeof card.supersededBy !== 'string') return undefined;
  const cardScope = card.scope as Record<string, unknown> | undefined;
  if (cardScope === null || typeof cardScope !== 'object') return undefined;
  for (const field of SCOPE_FIELDS) {
    if (cardScope[field] !== scope[field]) return undefined;
  }
  return { ...(card as MemoryCard), scope: { ...scope } };
}

/**
 * The card a new draft becomes, in `scope`: created when it occurred (`occurredAt`, a checked
 * UTC ISO 8601 string) or else `now`, and updated `now`.
 */
export function newCard(
  draft: Pick<MemoryCard, 'content' | 'type' | 'tags' | 'source'> & { occurredAt?: string },
  { id, now, scope }: { id: string; now: string; scope: Scope },
): MemoryCard {
  return {
    id,
    content: draft.content,
    type: draft.type,
    tags: draft.tags,
    createdAt: draft.occurredAt ?? now,
    updatedAt: now,
    ...(draft.source === undefined ? {} : { source: draft.source }),
    scope: { ...scope },
  };
}

/** A deep copy of a card, so callers never hold the store's own objects. */
export function copyCard(card: MemoryCard): MemoryCard {
  return { ...card, tags: [...card.tags], scope: { ...card.scope } };
}
