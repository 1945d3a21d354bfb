import type { Message } from '../contracts/index.js';
import { InvalidArgumentError, InvalidMessageError } from '../errors/index.js';
import { decodeStorable, encodeStorable, type StorableJson } from './json-codec.js';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/**
 * Checks the shape a store relies on (a known role; string or part-array content as the role
 * allows; parts are objects with a `type`) and throws `InvalidMessageError` naming the path.
 * Deeper validation of parts is the message layer's job.
 */
export function assertStorableMessage(message: unknown, path: string): asserts message is Message {
  const reject = (reason: string, at = path): never => {
    throw new InvalidMessageError({ message: `Invalid message at ${at}: ${reason}.`, path: at });
  };
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    return reject(`expected an object, got ${describe(message)}`);
  }
  const { role, content, id } = message as { role?: unknown; content?: unknown; id?: unknown };
  if (typeof role !== 'string' || !ROLES.has(role)) {
    return reject(`unknown role ${JSON.stringify(role)}`, `${path}.role`);
  }
  if (id !== undefined && typeof id !== 'string') {
    return reject('id must be a string', `${path}.id`);
  }
  const partsAllowed = role !== 'system';
  const textAllowed = role !== 'tool';
  if (typeof content === 'string') {
    if (!textAllowed) reject('a tool message needs an array of parts', `${path}.content`);
    return;
  }
  if (!Array.isArray(content) || !partsAllowed) {
    return reject(
      `content must be ${partsAllowed ? (textAllowed ? 'a string or an array of parts' : 'an array of parts') : 'a string'}`,
      `${path}.content`,
    );
  }
  content.forEach((part: unknown, index) => {
    if (
      part === null ||
      typeof part !== 'object' ||
      typeof (part as { type?: unknown }).type !== 'string'
    ) {
      reject('a part must be an object with a type', `${path}.content[${index}]`);
    }
  });
}

/** Validates a message and encodes it for storage (bytes and URLs survive a JSON round trip). */
export function encodeMessage(message: unknown, path: string): StorableJson {
  assertStorableMessage(message, path);
  try {
    return encodeStorable(message, path);
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) {
      throw new InvalidMessageError({ message: error.message, path: error.argument, cause: error });
    }
    throw error;
  }
}

/** Decodes a stored message; `undefined` when the stored value is not a message. */
export function decodeMessage(value: StorableJson): Message | undefined {
  const message = decodeStorable(value);
  try {
    assertStorableMessage(message, '$');
    return message;
  } catch {
    return undefined;
  }
}
