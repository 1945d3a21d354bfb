import { createHash, type Hash } from 'node:crypto';
import type { Message } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';
import { MAX_MESSAGE_JSON_DEPTH } from './json-values.js';

export interface WithMessageIdsOptions {
  /**
   * Put in front of every generated id.
   * @default 'msg_'
   */
  prefix?: string;
}

/**
 * Gives every message without an `id` a deterministic one: `prefix` + 16 hex digits of a SHA-256
 * over the message's position, role, name and content. Running it again on the same history gives
 * the same ids, so ids survive reloading a conversation from JSON. Messages that have an id keep
 * it (and stay the same objects); a generated id that collides with an existing one gets a
 * `-2`, `-3`… suffix. Never mutates its input.
 *
 * Throws `InvalidMessageError` for content nested deeper than `MAX_MESSAGE_JSON_DEPTH`.
 */
export function withMessageIds<T extends Message>(
  messages: readonly T[],
  options: WithMessageIdsOptions = {},
): T[] {
  const { prefix = 'msg_' } = requireOptions(options, 'withMessageIds');
  const taken = new Set<string>();
  for (const message of messages) if (message.id !== undefined) taken.add(message.id);
  return messages.map((message, index) => {
    if (message.id !== undefined) return message;
    const hash = createHash('sha256');
    hash.update(`${index}\u0000${message.role}\u0000${message.name ?? ''}\u0000`);
    hashValue(hash, message.content, `messages[${index}].content`);
    const base = `${prefix}${hash.digest('hex').slice(0, 16)}`;
    let id = base;
    for (let counter = 2; taken.has(id); counter++) id = `${base}-${counter}`;
    taken.add(id);
    return { ...message, id };
  });
}

/**
 * Feeds a canonical serialization of `value` (sorted keys, bytes as bytes) into `hash`, iteratively
 * so that deep values cannot overflow the stack. Small tokens are batched: one `update` call per
 * token would cost more than the hashing itself.
 */
function hashValue(hash: Hash, value: unknown, path: string): void {
  let buffer = '';
  const write = (text: string) => {
    buffer += text;
    if (buffer.length > 65_536) {
      hash.update(buffer);
      buffer = '';
    }
  };
  const writeBytes = (bytes: Uint8Array) => {
    write(`b${bytes.byteLength}:`);
    hash.update(buffer);
    buffer = '';
    hash.update(bytes);
  };
  const stack: Array<{ item: unknown; depth: number; key: string | number | undefined }> = [
    { item: value, depth: 0, key: undefined },
  ];
  while (stack.length > 0) {
    const { item, depth, key } = stack.pop()!;
    if (key !== undefined) write(typeof key === 'number' ? `#${key}` : `.${JSON.stringify(key)}`);
    if (item instanceof Uint8Array) {
      writeBytes(item);
    } else if (item instanceof ArrayBuffer) {
      writeBytes(new Uint8Array(item));
    } else if (item instanceof URL) {
      write(`u${JSON.stringify(item.href)}`);
    } else if (typeof item === 'string') {
      write(`s${item.length}:`);
      write(item);
    } else if (item !== null && typeof item === 'object') {
      if (depth >= MAX_MESSAGE_JSON_DEPTH) {
        throw new InvalidMessageError({
          message: `${path}: nested deeper than ${MAX_MESSAGE_JSON_DEPTH} levels`,
          path,
        });
      }
      const entries: Array<[string | number, unknown]> = Array.isArray(item)
        ? item.map((child, childIndex) => [childIndex, child])
        : Object.keys(item)
            .sort()
            .map((childKey): [string, unknown] => [
              childKey,
              (item as Record<string, unknown>)[childKey],
            ])
            // Undefined fields vanish in JSON; skipping them keeps ids stable across a reload.
            .filter(([, child]) => child !== undefined);
      write(Array.isArray(item) ? `[${entries.length}` : `{${entries.length}`);
      // Pushed in reverse so that children are hashed in order.
      for (let position = entries.length - 1; position >= 0; position--) {
        const [childKey, child] = entries[position]!;
        stack.push({ item: child, depth: depth + 1, key: childKey });
      }
    } else {
      write(`${typeof item}:${String(item)}`);
    }
  }
  hash.update(buffer);
}
