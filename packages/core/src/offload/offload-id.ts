import { createHash } from 'node:crypto';
import type { Message } from '../contracts/index.js';
import { InvalidIdError } from '../errors/index.js';
import { canonicalJson } from '../storage/index.js';

const OFFLOAD_ID = /^off_[0-9a-f]{16}$/;

/**
 * The id of an offloaded message: `off_` and the first 16 hex digits of the SHA-256 of its
 * canonical JSON (keys sorted, bytes as base64). The same message always gets the same id, so
 * offloading it twice writes once and yields a byte-identical preview.
 */
export function offloadId(message: Message): string {
  return `off_${createHash('sha256').update(canonicalJson(message), 'utf8').digest('hex').slice(0, 16)}`;
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
