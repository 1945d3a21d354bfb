import { randomUUID } from 'node:crypto';
import type { Message, StoredMessage, WorkingState } from '../contracts/index.js';
import { ConflictError, InvalidArgumentError } from '../errors/index.js';
import { isCtxmemMessage } from '../messages/index.js';
import {
  decodeMessage,
  decodeStorable,
  encodeMessage,
  encodeStorable,
  type StorableJson,
} from '../storage/index.js';

/** A stored message as it is written: the message encoded for JSON. */
export interface EncodedStoredMessage {
  index: number;
  turn: number;
  createdAt: string;
  message: StorableJson;
}

/** The working state as it is written. */
export interface EncodedWorkingState {
  version: number;
  state: StorableJson;
}

/** Where the history ends: what the next appended message continues from. */
export interface HistoryEnd {
  /** Index of the next message. */
  nextIndex: number;
  /** Turn of the last message (0 before the first user message). */
  turn: number;
}

export const EMPTY_HISTORY_END: HistoryEnd = { nextIndex: 0, turn: 0 };

/** Default id of a message stored without one. */
export function generateMessageId(): string {
  return `msg_${randomUUID()}`;
}

/** Whether a message starts a new turn: user messages do, except ones ctxmem created. */
export function startsTurn(message: Message): boolean {
  return message.role === 'user' && !isCtxmemMessage(message);
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Validates and encodes messages before any storage is touched. */
export function encodeMessages(messages: readonly Message[]): StorableJson[] {
  if (!Array.isArray(messages)) {
    throw new InvalidArgumentError({
      message: `append expects an array of messages; got ${typeof messages}.`,
      argument: 'messages',
    });
  }
  return messages.map((message, index) => encodeMessage(message, `messages[${index}]`));
}

/**
 * Numbers encoded messages after `end`: consecutive indexes, a new turn at each user message, a
 * generated id for messages without one, and `createdAt`.
 */
export function numberMessages(
  end: HistoryEnd,
  encoded: readonly StorableJson[],
  createdAt: string,
  generateId: () => string,
): EncodedStoredMessage[] {
  let turn = end.turn;
  return encoded.map((message, offset) => {
    const decoded = decodeStorable(message) as Message;
    if (startsTurn(decoded)) turn++;
    const withId =
      decoded.id === undefined
        ? { ...(message as { [key: string]: StorableJson }), id: generateId() }
        : message;
    return { index: end.nextIndex + offset, turn, createdAt, message: withId };
  });
}

/** The end after a stored record. */
export function endAfter(record: EncodedStoredMessage): HistoryEnd {
  return { nextIndex: record.index + 1, turn: record.turn };
}

/** Checks a record read back from storage; `undefined` when it is damaged. */
export function validateStoredRecord(value: unknown): EncodedStoredMessage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Partial<EncodedStoredMessage>;
  if (!isNonNegativeInteger(record.index) || !isNonNegativeInteger(record.turn)) return undefined;
  if (typeof record.createdAt !== 'string' || record.message === undefined) return undefined;
  if (decodeMessage(record.message) === undefined) return undefined;
  return record as EncodedStoredMessage;
}

export function decodeStoredRecord(record: EncodedStoredMessage): StoredMessage {
  return {
    index: record.index,
    turn: record.turn,
    createdAt: record.createdAt,
    message: decodeStorable(record.message) as Message,
  };
}

/** Validates a `read` range and returns it with defaults applied. */
export function normalizeRange(range: { from?: number; to?: number } | undefined): {
  from: number;
  to: number;
} {
  const from = range?.from ?? 0;
  const to = range?.to ?? Number.POSITIVE_INFINITY;
  if (!isNonNegativeInteger(from)) {
    throw new InvalidArgumentError({
      message: `range.from must be a non-negative integer; got ${from}.`,
      argument: 'range.from',
    });
  }
  if (to !== Number.POSITIVE_INFINITY && !isNonNegativeInteger(to)) {
    throw new InvalidArgumentError({
      message: `range.to must be a non-negative integer; got ${to}.`,
      argument: 'range.to',
    });
  }
  return { from, to };
}

/** Validates turn numbers for `readTurns`. */
export function normalizeTurns(turns: readonly number[]): Set<number> {
  if (!Array.isArray(turns)) {
    throw new InvalidArgumentError({
      message: `readTurns expects an array of turn numbers; got ${typeof turns}.`,
      argument: 'turns',
    });
  }
  for (const turn of turns) {
    if (!isNonNegativeInteger(turn)) {
      throw new InvalidArgumentError({
        message: `Turn numbers must be non-negative integers; got ${turn}.`,
        argument: 'turns',
      });
    }
  }
  return new Set(turns);
}

/** Validates `expectedVersion` for `setState`. */
export function assertExpectedVersion(expectedVersion: number): void {
  if (!isNonNegativeInteger(expectedVersion)) {
    throw new InvalidArgumentError({
      message: `expectedVersion must be a non-negative integer (0 when there is no state yet); got ${expectedVersion}.`,
      argument: 'expectedVersion',
    });
  }
}

/** The error of a `setState` whose `expectedVersion` is not the stored state's version. */
export function stateVersionConflict(
  expectedVersion: number,
  actualVersion: number,
): ConflictError {
  return new ConflictError({
    message: `The working state changed: expected version ${expectedVersion}, found ${actualVersion}.`,
    expectedVersion,
    actualVersion,
  });
}

/**
 * The version a compare-and-set of the working state writes: the one after `expectedVersion`
 * when the stored version (`actualVersion`, 0 without a state) is still `expectedVersion`.
 * Throws `ConflictError` when another writer got there first.
 */
export function nextStateVersion(expectedVersion: number, actualVersion: number): number {
  if (actualVersion !== expectedVersion) {
    throw stateVersionConflict(expectedVersion, actualVersion);
  }
  return actualVersion + 1;
}

/** The records of the `wanted` turns (see `normalizeTurns`), decoded. */
export function recordsOfTurns(
  records: readonly EncodedStoredMessage[],
  wanted: ReadonlySet<number>,
): StoredMessage[] {
  return records.filter((record) => wanted.has(record.turn)).map(decodeStoredRecord);
}

/** The records whose positions lie in `from ..< to` (see `normalizeRange`), decoded. */
export function recordsInRange(
  records: readonly EncodedStoredMessage[],
  { from, to }: { from: number; to: number },
): StoredMessage[] {
  return records
    .filter((record) => record.index >= from && record.index < to)
    .map(decodeStoredRecord);
}

/** Validates and encodes a working state before it is written. */
export function encodeState(state: Omit<WorkingState, 'version'>): StorableJson {
  if (state === null || typeof state !== 'object') {
    throw new InvalidArgumentError({
      message: 'setState expects a state object.',
      argument: 'state',
    });
  }
  for (const field of ['summarizedCount', 'cycle'] as const) {
    if (!isNonNegativeInteger(state[field])) {
      throw new InvalidArgumentError({
        message: `state.${field} must be a non-negative integer; got ${state[field]}.`,
        argument: `state.${field}`,
      });
    }
  }
  if (state.flushedCycle !== undefined && !isNonNegativeInteger(state.flushedCycle)) {
    throw new InvalidArgumentError({
      message: `state.flushedCycle must be a non-negative integer; got ${state.flushedCycle}.`,
      argument: 'state.flushedCycle',
    });
  }
  if (
    state.summary !== undefined &&
    (state.summary === null || typeof state.summary !== 'object')
  ) {
    throw new InvalidArgumentError({
      message: 'state.summary must be a structured summary object.',
      argument: 'state.summary',
    });
  }
  if (state.coveredDigest !== undefined && typeof state.coveredDigest !== 'string') {
    throw new InvalidArgumentError({
      message: `state.coveredDigest must be a string; got ${typeof state.coveredDigest}.`,
      argument: 'state.coveredDigest',
    });
  }
  if (!Array.isArray(state.messages)) {
    throw new InvalidArgumentError({
      message: 'state.messages must be an array of messages.',
      argument: 'state.messages',
    });
  }
  const messages = state.messages.map((message, index) =>
    encodeMessage(message, `state.messages[${index}]`),
  );
  const { version: _ignored, ...rest } = state as WorkingState;
  return { ...(encodeStorable(rest) as { [key: string]: StorableJson }), messages };
}

/** Checks a state read back from storage; `undefined` when it is damaged. */
export function validateEncodedState(value: unknown): EncodedWorkingState | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Partial<EncodedWorkingState>;
  if (!isNonNegativeInteger(record.version) || record.version === 0) return undefined;
  const state = record.state as { [key: string]: StorableJson } | undefined;
  if (state === null || typeof state !== 'object' || Array.isArray(state)) return undefined;
  if (!isNonNegativeInteger(state.summarizedCount) || !isNonNegativeInteger(state.cycle)) {
    return undefined;
  }
  if (state.coveredDigest !== undefined && typeof state.coveredDigest !== 'string') {
    return undefined;
  }
  if (
    !Array.isArray(state.messages) ||
    state.messages.some((m) => decodeMessage(m) === undefined)
  ) {
    return undefined;
  }
  return record as EncodedWorkingState;
}

export function decodeState(record: EncodedWorkingState): WorkingState {
  return {
    ...(decodeStorable(record.state) as Omit<WorkingState, 'version'>),
    version: record.version,
  };
}
