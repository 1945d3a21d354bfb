import { createHash } from 'node:crypto';
import type { Message, OffloadStore, Scope } from '../contracts/index.js';
import { InvalidIdError } from '../errors/index.js';
import { canonicalJsonChunks } from '../storage/index.js';

const OFFLOAD_ID = /^off_[0-9a-f]{16}$/;

/**
 * The id of an offloaded message: `off_` and the first 16 hex digits of the SHA-256 of its
 * canonical JSON (keys sorted, bytes as base64). The same message always gets the same id, so
 * offloading it twice writes once and yields a byte-identical preview.
 */
export function offloadId(message: Message): string {
  // Hashed in pieces: the id of a 50 MB tool result needs no 50 MB JSON string.
  const hash = createHash('sha256');
  for (const chunk of canonicalJsonChunks(message)) hash.update(chunk, 'utf8');
  return `off_${hash.digest('hex').slice(0, 16)}`;
}

/**
 * Stores messages whose ids are known (`offloadId(message)`) in one go: what `put` does for each,
 * with the store's batch savings (one folder sync for a file store).
 */
export type PutOffloads = (
  scope: Scope,
  entries: ReadonlyArray<{ id: string; message: Message }>,
) => Promise<void>;

/** Stores whose `put` returns `offloadId(message)`, so an id is known before anything is written. */
const contentAddressed = new WeakMap<OffloadStore, PutOffloads>();

/**
 * Marks `store` as one whose `put(scope, message)` returns `offloadId(message)`, with `putMany`
 * to store messages whose ids are already computed.
 */
export function markContentAddressed(store: OffloadStore, putMany: PutOffloads): OffloadStore {
  contentAddressed.set(store, putMany);
  return store;
}

/** How to store many messages at once in `store`, when its ids are `offloadId(message)` (core's stores). */
export function contentAddressedPut(store: OffloadStore): PutOffloads | undefined {
  return contentAddressed.get(store);
}

/** True for strings shaped like an offload id. */
export function isOffloadId(id: unknown): id is string {
  return typeof id === 'string' && OFFLOAD_ID.test(id);
}

/** Throws `InvalidIdError` unless `id` is shaped like an offload id. */
export function assertOffloadId(id: unknown): asserts id is string {
  if (!isOffloadId(id)) {
    const shown = typeof id === 'string' ? id.slice(0, 40) : String(id);
    throw new InvalidIdError({
      message: `Invalid offload id ${JSON.stringify(shown)}: expected "off_" followed by 16 hex digits.`,
      id: shown,
    });
  }
}
