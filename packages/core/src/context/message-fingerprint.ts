import { createHash } from 'node:crypto';
import type { Message } from '../contracts/index.js';

const fingerprints = new WeakMap<Message, string>();

/**
 * Strings longer than this are fingerprinted by a native hash of their own, in slices, instead of
 * being copied into the message's JSON and hashed character by character: a 50 MB tool result
 * costs one fast pass and no copy. Shorter strings keep the fingerprints sessions stored before.
 */
const LONG_STRING_CHARS = 64 * 1024;

/** Slices a long string is hashed in (UTF-16 bytes, so lone surrogates stay distinct). */
const HASH_SLICE_CHARS = 32 * 1024;

function longStringHash(text: string): string {
  const hash = createHash('sha256');
  for (let start = 0; start < text.length; start += HASH_SLICE_CHARS) {
    hash.update(text.slice(start, start + HASH_SLICE_CHARS), 'utf16le');
  }
  return `long:${text.length}:${hash.digest('base64')}`;
}

function replaceBinary(this: unknown, _key: string, value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      return value.length > LONG_STRING_CHARS ? longStringHash(value) : value;
    case 'object':
      if (value instanceof Uint8Array)
        return `bytes:${value.byteLength}:${hashString(Buffer.from(value.buffer, value.byteOffset, Math.min(value.byteLength, 4096)).toString('base64'))}`;
      if (value instanceof ArrayBuffer) return `bytes:${value.byteLength}`;
      if (value instanceof URL) return value.href;
      return value;
    case 'number':
      // JSON writes NaN and Infinity as null; keep them distinct so an invalid message never
      // shares a fingerprint with a valid one.
      return Number.isFinite(value) ? value : `number:${value}`;
    case 'function':
    case 'symbol':
    case 'bigint':
      // JSON drops or rejects these: marked for the same reason.
      return `${typeof value}:`;
    case 'undefined':
      // Dropped from objects, as JSON does; in an array (a hole too) JSON would write null.
      return Array.isArray(this) ? 'undefined:' : undefined;
    default:
      return value;
  }
}

/** 53-bit FNV-1a-style string hash (fast, not cryptographic: only used to compare histories). */
export function hashString(text: string): string {
  let high = 0x811c9dc5;
  let low = 0x01000193;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    high = Math.imul(high ^ code, 0x01000193);
    low = Math.imul(low ^ code, 0x5bd1e995);
  }
  return `${(high >>> 0).toString(36)}${(low >>> 0).toString(36)}:${text.length}`;
}

/**
 * A content fingerprint of a message, cached by object identity. Hosts such as the AI SDK send the
 * whole history as new objects on every call; fingerprints let ctxmem recognise the part it has
 * already compacted without comparing content deeply.
 */
export function messageFingerprint(message: Message): string {
  let fingerprint = fingerprints.get(message);
  if (fingerprint === undefined) {
    // Only the fields a provider receives: ids and ctxmem's metadata do not change what the model
    // reads, and fields ctxmem does not know (a host's own bookkeeping) are not its business.
    const { role, name, content, providerOptions } = message as Message & { name?: string };
    fingerprint = hashString(
      JSON.stringify({ role, name, content, providerOptions }, replaceBinary),
    );
    fingerprints.set(message, fingerprint);
  }
  return fingerprint;
}

/** One 53-bit hash of a history's message fingerprints, in order. */
export function hashFingerprints(fingerprints: readonly string[]): string {
  let first = 0x811c9dc5;
  let second = 0x9747b28c;
  for (const fingerprint of fingerprints) {
    for (let index = 0; index < fingerprint.length; index++) {
      const code = fingerprint.charCodeAt(index);
      first = Math.imul(first ^ code, 0x01000193);
      second = Math.imul(second ^ code, 0x5bd1e995);
      second ^= second >>> 15;
    }
    first = Math.imul(first ^ 0x1f, 0x01000193);
  }
  return `${fingerprints.length}:${(first >>> 0).toString(36)}:${(second >>> 0).toString(36)}`;
}
