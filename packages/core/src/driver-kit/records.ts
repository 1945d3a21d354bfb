/**
 * `@ctxmem/core/driver-kit`: validation and encoding for database drivers (PostgreSQL, Redis, …),
 * so that every database store rejects exactly what the file store rejects and stores records in
 * one format. For driver authors; applications do not need it.
 */
import { randomUUID } from 'node:crypto';
import {
  MEMORY_CARD_TYPES,
  type MemoryCard,
  type Message,
  type Scope,
  type StoredMessage,
  type WorkingState,
} from '../contracts/index.js';
import { CorruptDataError, InvalidArgumentError, NotFoundError } from '../errors/index.js';
import {
  encodeState as encodeHistoryState,
  normalizeRange as normalizeHistoryRange,
  normalizeTurns as normalizeHistoryTurns,
} from '../history/history-records.js';
import { startsTurn } from '../history/index.js';
import {
  assertSafeId,
  decodeStorable,
  encodeMessage,
  isSafeId,
  SCOPE_FIELDS,
  type StorableJson,
} from '../storage/index.js';

/** Default id of a message stored without one (the same form core's stores use). */
export function generateMessageId(): string {
  return `msg_${randomUUID()}`;
}

/** Default id of a new memory card. */
export function generateCardId(): string {
  return randomUUID();
}

/** A checked id generator: generated ids end up in keys and must be safe. */
export function safeIdGenerator(generateId: () => string, label: string): () => string {
  return () => {
    const id = generateId();
    assertSafeId(id, label);
    return id;
  };
}

/** A message ready to be written: encoded, with its id, and whether it starts a turn. */
export interface PreparedMessage {
  /** The encoded message as JSON text. */
  json: string;
  /** The message as it will be read back (with a generated id when it had none). */
  message: Message;
  startsTurn: boolean;
}

/** Validates and encodes messages before any storage is touched; fills in missing ids. */
export function prepareMessages(
  messages: readonly Message[],
  generateId: () => string,
): PreparedMessage[] {
  if (!Array.isArray(messages)) {
    throw new InvalidArgumentError({
      message: `append expects an array of messages; got ${typeof messages}.`,
      argument: 'messages',
    });
  }
  const encoded = messages.map((message, index) => encodeMessage(message, `messages[${index}]`));
  return encoded.map((value) => {
    const decoded = decodeStorable(value) as Message;
    const withId =
      decoded.id === undefined
        ? { ...(value as { [key: string]: StorableJson }), id: generateId() }
        : value;
    return {
      json: JSON.stringify(withId),
      message: decodeStorable(withId) as Message,
      startsTurn: startsTurn(decoded),
    };
  });
}

/** Numbers prepared messages after a history that ended at `nextIndex` in turn `turn`. */
export function numberPrepared(
  prepared: readonly PreparedMessage[],
  start: { nextIndex: number; turn: number },
  createdAt: string,
): StoredMessage[] {
  let turn = start.turn;
  return prepared.map((entry, offset) => {
    if (entry.startsTurn) turn++;
    return { index: start.nextIndex + offset, turn, createdAt, message: entry.message };
  });
}

/** Parses a stored message's JSON; throws `CorruptDataError` naming `where` when unreadable. */
export function parseMessage(json: string, where: string): Message {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw corrupt(where, error);
  }
  return decodeStorable(value as StorableJson) as Message;
}

export function corrupt(where: string, cause?: unknown): CorruptDataError {
  return new CorruptDataError({
    message: `Stored data at ${where} is unreadable.`,
    path: where,
    recoveredRecords: 0,
    cause,
  });
}

/** Validates a `read` range and returns it with defaults applied (`to` is undefined for "to the end"). */
export function normalizeRange(range: { from?: number; to?: number } | undefined): {
  from: number;
  to: number | undefined;
} {
  const { from, to } = normalizeHistoryRange(range);
  return { from, to: to === Number.POSITIVE_INFINITY ? undefined : to };
}

/** Validates turn numbers for `readTurns` and returns them sorted and distinct. */
export function normalizeTurns(turns: readonly number[]): number[] {
  return [...normalizeHistoryTurns(turns)].sort((left, right) => left - right);
}

export { assertExpectedVersion } from '../history/history-records.js';

/** Validates a working state and encodes it as JSON text (the file store's rules and format). */
export function encodeState(state: Omit<WorkingState, 'version'>): string {
  return JSON.stringify(encodeHistoryState(state));
}

/** Decodes a stored working state. */
export function decodeState(json: string, version: number, where: string): WorkingState {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw corrupt(where, error);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw corrupt(where);
  return { ...(decodeStorable(value as StorableJson) as Omit<WorkingState, 'version'>), version };
}

export function offloadNotFound(id: string): NotFoundError {
  return new NotFoundError({ message: `No offloaded content ${id} in this scope.`, id });
}

// One definition, shared with the stores of this package.
export { assertCardIds, cardNotFound } from '../memory/card-records.js';

/** The text a card is found by in keyword search: its content and tags, without NUL characters. */
export function cardSearchText(card: MemoryCard): string {
  return [card.content, ...card.tags].join(' ').replaceAll('\u0000', ' ');
}

/** JSON of a card as stored (the scope is implied by the key and restored on read). */
export function encodeCard(card: MemoryCard): string {
  const { scope: _scope, ...rest } = card;
  return JSON.stringify(rest);
}

/** Parses a stored card and gives it `scope` (normalized); throws `CorruptDataError` when damaged. */
export function decodeCard(json: string, scope: Scope, where: string): MemoryCard {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw corrupt(where, error);
  }
  return cardFromValue(value, scope, where);
}

/** Checks a parsed stored card and gives it `scope`; throws `CorruptDataError` when damaged. */
export function cardFromValue(value: unknown, scope: Scope, where: string): MemoryCard {
  const card = value as Partial<MemoryCard> | null;
  if (
    card === null ||
    typeof card !== 'object' ||
    !isSafeId(card.id) ||
    typeof card.content !== 'string' ||
    card.type === undefined ||
    !MEMORY_CARD_TYPES.includes(card.type) ||
    !Array.isArray(card.tags) ||
    typeof card.createdAt !== 'string' ||
    typeof card.updatedAt !== 'string'
  ) {
    throw corrupt(where);
  }
  const copy: MemoryCard = {
    id: card.id,
    content: card.content,
    type: card.type,
    tags: card.tags.filter((tag): tag is string => typeof tag === 'string'),
    createdAt: card.createdAt,
    updatedAt: card.updatedAt,
    scope: {},
  };
  if (typeof card.source === 'string') copy.source = card.source;
  if (typeof card.supersededBy === 'string') copy.supersededBy = card.supersededBy;
  for (const field of SCOPE_FIELDS) {
    if (scope[field] !== undefined) copy.scope[field] = scope[field];
  }
  return copy;
}
