import { messageFingerprint } from '../context/message-fingerprint.js';
import type { Message, StoredMessage } from '../contracts/index.js';
import { ConflictError, InvalidArgumentError } from '../errors/index.js';
import { decodeStorable, type StorableJson } from '../storage/index.js';
import {
  decodeStoredRecord,
  type EncodedStoredMessage,
  type HistoryEnd,
  numberMessages,
} from './history-records.js';

/**
 * Whether `incoming` is the message already stored at its position: the same id, or else the same
 * content (what a provider receives: role, name, content, provider options). Content decides when
 * the ids differ because stores give an id to messages appended without one, and hosts that send
 * no ids (most model-message hosts) send the same message without it on the next call.
 */
export function isSameMessage(stored: Message, incoming: Message): boolean {
  if (incoming.id !== undefined && incoming.id === stored.id) return true;
  return messageFingerprint(stored) === messageFingerprint(incoming);
}

/** Validates `at` of a positional append. */
export function assertAppendPosition(at: number): void {
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0) {
    throw new InvalidArgumentError({
      message: `append's "at" must be a non-negative integer; got ${String(at)}.`,
      argument: 'at',
    });
  }
}

/**
 * Decides a positional append (`append(scope, messages, { at })`) against a history of `count`
 * messages whose messages at positions `at ..< count` are `overlap` (at most `messages.length` of
 * them, in order; `undefined` for one the store lost): returns how many leading messages are already stored and are skipped; the rest
 * go after the stored end. Throws `ConflictError` for a gap (`at > count`) or a different message
 * at a stored position. Every store calls this under its own atomic step, so the policy lives here.
 */
export function planPositionalAppend(
  at: number,
  count: number,
  overlap: readonly (Message | undefined)[],
  messages: readonly Message[],
): number {
  if (at > count) {
    throw new ConflictError({
      message: `Cannot append at position ${at}: the history holds ${count} message(s), so position ${count} would be left empty.`,
      expectedVersion: at,
      actualVersion: count,
      position: count,
    });
  }
  const stored = Math.min(count - at, messages.length);
  for (let offset = 0; offset < stored; offset++) {
    const existing = overlap[offset];
    if (existing === undefined || !isSameMessage(existing, messages[offset]!)) {
      throw new ConflictError({
        message: `The history holds a different message at position ${at + offset} than the one appended there.`,
        expectedVersion: at,
        actualVersion: count,
        position: at + offset,
      });
    }
  }
  return stored;
}

/**
 * A positional append of `encoded` messages at `at`, against a history whose end is `nextIndex`
 * and of which `stored` holds the records from `at` on (in any order; a record the store lost is
 * simply absent): the records already stored, which the append skips, and the messages still to
 * store after the end. Throws `ConflictError` as `planPositionalAppend` does.
 */
export function splitPositionalAppend(
  at: number,
  nextIndex: number,
  stored: readonly EncodedStoredMessage[],
  encoded: readonly StorableJson[],
): { skipped: EncodedStoredMessage[]; fresh: StorableJson[] } {
  const byIndex = new Map(stored.map((record) => [record.index, record]));
  const overlap = Array.from(
    { length: Math.max(0, Math.min(nextIndex - at, encoded.length)) },
    (_, offset) => byIndex.get(at + offset),
  );
  const skippedCount = planPositionalAppend(
    at,
    nextIndex,
    overlap.map((record) => (record ? decodeStoredRecord(record).message : undefined)),
    encoded.map((message) => decodeStorable(message) as Message),
  );
  return {
    skipped: overlap.slice(0, skippedCount) as EncodedStoredMessage[],
    fresh: encoded.slice(skippedCount),
  };
}

/**
 * One append of `encoded` messages to a history ending at `end`, as the in-process stores make it
 * inside their atomic step: a plain append (`at` undefined) numbers every message after the end;
 * a positional one first skips what is already stored (`stored`: the records from `at` on, see
 * `splitPositionalAppend`). Returns the records to write after the end (none when nothing is
 * new) and the stored messages `append` resolves to.
 */
export function planAppend({
  at,
  end,
  stored,
  encoded,
  createdAt,
  generateId,
}: {
  at: number | undefined;
  end: HistoryEnd;
  stored: readonly EncodedStoredMessage[];
  encoded: readonly StorableJson[];
  /** Called only when there is something to write. */
  createdAt: () => string;
  generateId: () => string;
}): { records: EncodedStoredMessage[]; appended: StoredMessage[] } {
  const { skipped, fresh } =
    at === undefined
      ? { skipped: [], fresh: encoded }
      : splitPositionalAppend(at, end.nextIndex, stored, encoded);
  const records = fresh.length === 0 ? [] : numberMessages(end, fresh, createdAt(), generateId);
  return { records, appended: [...skipped, ...records].map(decodeStoredRecord) };
}
