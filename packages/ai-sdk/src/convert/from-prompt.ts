import { InvalidMessageError, type Message } from '@ctxmem/core';
import { checkJsonValue } from '@ctxmem/core/adapter-kit';
import { withMarker } from './part-marker.js';
import type {
  PromptVersion,
  V3Prompt,
  V4FilePart,
  V4Message,
  V4Prompt,
  V4ReasoningFilePart,
} from './prompt-types.js';

const CONTENT_ROLES = new Set(['user', 'assistant', 'tool']);

function fail(path: string, problem: string): never {
  throw new InvalidMessageError({ message: `${path}: ${problem}`, path });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Tagged file data is a plain object; bytes and URLs are not. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

type PartRecord = Record<string, unknown> & { type: string };

/**
 * A V4 file part as a core part: bytes and URLs become core `data`; a provider reference is kept
 * in the marker; inline text becomes a text part, so that it is counted and summarized as text.
 */
function fromV4File(part: V4FilePart | V4ReasoningFilePart, path: string): PartRecord {
  const { data, ...rest } = part;
  const extra = part.type === 'reasoning-file' ? { part: 'reasoning-file' as const } : {};
  if (!isPlainObject(data)) {
    // Untagged data (as in V3) is already what core expects.
    if (part.type === 'file') return part as unknown as PartRecord;
    return {
      ...rest,
      type: 'file',
      data,
      providerOptions: withMarker(part.providerOptions, extra),
    };
  }
  const needsMarker = part.type === 'reasoning-file';
  switch (data.type) {
    case 'data':
      return needsMarker
        ? {
            ...rest,
            type: 'file',
            data: data.data,
            providerOptions: withMarker(part.providerOptions, extra),
          }
        : { ...rest, data: data.data };
    case 'url': {
      const marker = {
        ...extra,
        ...(data.originalUrl === undefined ? {} : { originalUrl: data.originalUrl }),
      };
      return Object.keys(marker).length > 0
        ? {
            ...rest,
            type: 'file',
            data: data.url,
            providerOptions: withMarker(part.providerOptions, marker),
          }
        : { ...rest, data: data.url };
    }
    case 'reference':
      return {
        ...rest,
        type: 'file',
        data: '',
        providerOptions: withMarker(part.providerOptions, { ...extra, reference: data.reference }),
      };
    case 'text': {
      const { mediaType, filename, providerOptions, ...others } = rest as V4FilePart;
      return {
        ...others,
        type: 'text',
        text: data.text,
        providerOptions: withMarker(providerOptions, {
          file: { mediaType, ...(filename === undefined ? {} : { filename }) },
        }),
      };
    }
    default:
      return fail(
        `${path}.data.type`,
        `unknown file data type ${JSON.stringify((data as { type?: unknown }).type)}`,
      );
  }
}

function fromPart(part: unknown, path: string, version: PromptVersion): unknown {
  if (!isObject(part) || typeof part.type !== 'string') {
    return fail(path, 'expected a part object with a string type');
  }
  if (version === 'v4' && (part.type === 'file' || part.type === 'reasoning-file')) {
    return fromV4File(part as unknown as V4FilePart | V4ReasoningFilePart, path);
  }
  // Everything else (text, reasoning, tool calls and results, approvals, custom parts) has the
  // same shape in core, or is kept opaque and in place.
  return part;
}

function fromMessage(message: unknown, index: number, version: PromptVersion): Message {
  const path = `prompt[${index}]`;
  if (!isObject(message)) {
    const got = message === null ? 'null' : Array.isArray(message) ? 'an array' : typeof message;
    return fail(path, `expected a message object, got ${got}`);
  }
  const { role, content } = message;
  if (role === 'system') {
    if (typeof content !== 'string')
      fail(`${path}.content`, 'a system message needs string content');
    return message as unknown as Message;
  }
  if (typeof role !== 'string' || !CONTENT_ROLES.has(role)) {
    return fail(`${path}.role`, `unknown role ${JSON.stringify(role)}`);
  }
  if (!Array.isArray(content)) return fail(`${path}.content`, 'expected an array of parts');
  let parts: unknown[] | undefined;
  for (let partIndex = 0; partIndex < content.length; partIndex++) {
    const part = content[partIndex];
    const converted = fromPart(part, `${path}.content[${partIndex}]`, version);
    if (converted !== part) {
      parts ??= content.slice();
      parts[partIndex] = converted;
    }
  }
  // Unchanged messages are returned as the same objects: core never mutates its input.
  return (parts ? { ...message, content: parts } : message) as unknown as Message;
}

/** Fails for a hole of a sparse prompt (`[a, , b]`), which `map` and `forEach` skip. */
export function requirePromptEntry(prompt: readonly unknown[], index: number): void {
  if (!(index in prompt)) {
    fail(`prompt[${index}]`, 'expected a message object, got an empty slot (the array has a hole)');
  }
}

/**
 * The prompt's messages read one by one, in a loop rather than `map`, which skips the holes of a
 * sparse array and would keep them. A prompt is data: a value it cannot be sent with (a cycle, a
 * BigInt, a function, a getter that throws) fails here, at its path.
 */
function fromPrompt(prompt: readonly unknown[], version: PromptVersion): Message[] {
  const messages: Message[] = new Array(prompt.length);
  for (let index = 0; index < prompt.length; index++) {
    requirePromptEntry(prompt, index);
    checkJsonValue(prompt[index], `prompt[${index}]`, { binaryData: true });
    messages[index] = fromMessage(prompt[index], index, version);
  }
  return messages;
}

/**
 * Reads an AI SDK 7 prompt (`LanguageModelV4Prompt`) as core messages. Lossless: messages that
 * need no change come back as the same objects, and what core has no field for (reasoning files,
 * provider file references, inline text files, `originalUrl`) is kept in a marker under
 * `providerOptions.ctxmemAiSdk` that `toV4Prompt` turns back. Custom parts stay opaque and in
 * place. Throws `InvalidMessageError` (with the path) for a malformed prompt.
 */
export function fromV4Prompt(prompt: V4Prompt | readonly V4Message[]): Message[] {
  if (!Array.isArray(prompt)) return fail('prompt', 'expected an array of messages');
  return fromPrompt(prompt, 'v4');
}

/**
 * Reads an AI SDK 6 prompt (`LanguageModelV3Prompt`) as core messages. The V3 prompt already has
 * the core shape, so every message comes back as the same object after a shape check.
 */
export function fromV3Prompt(prompt: V3Prompt | readonly V3Prompt[number][]): Message[] {
  if (!Array.isArray(prompt)) return fail('prompt', 'expected an array of messages');
  return fromPrompt(prompt, 'v3');
}

/** Reads one prompt message of `version` as a core message. */
export function fromPromptMessage(
  message: unknown,
  index: number,
  version: PromptVersion,
): Message {
  return fromMessage(message, index, version);
}
