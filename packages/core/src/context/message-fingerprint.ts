import type { Message } from '../contracts/index.js';

const fingerprints = new WeakMap<Message, string>();

function replaceBinary(this: unknown, _key: string, value: unknown): unknown {
  switch (typeof value) {
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
