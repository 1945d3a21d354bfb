/**
 * AI SDK `ModelMessage` JSON ⇄ ctxmem messages. The core model follows `ModelMessage`, so this is
 * close to the identity: the input is validated and returned as the same objects, and the output
 * drops what only ctxmem knows (`id`, `name`, `ctxmem` metadata).
 *
 * AI SDK 4 (`CoreMessage`) shapes are read too, because stored histories outlive SDK upgrades:
 * `args` → `input`, `result`/`isError`/`experimental_content` → `output`, `mimeType` →
 * `mediaType`, `experimental_providerMetadata` → `providerOptions`, reasoning `signature` and
 * `redacted-reasoning` → Anthropic provider options (as AI SDK 5 stores them). Output is always the
 * AI SDK 5+ shape.
 */
import type { JsonValue, Message, ToolResultOutput } from '../contracts/index.js';
import { isPlainObject } from './json-values.js';
import { checkMessageShapes } from './validate-messages.js';

type WithoutCoreFields<T> = T extends unknown ? Omit<T, 'id' | 'name' | 'ctxmem'> : never;

/** An AI SDK `ModelMessage` as JSON: a core message without ctxmem's own fields. */
export type AiSdkModelMessage = WithoutCoreFields<Message>;

/**
 * Reads AI SDK `ModelMessage[]` (AI SDK 5+, or AI SDK 4 `CoreMessage[]`) as ctxmem messages.
 * Throws `InvalidMessageError` with the path of the first malformed field. Tool pairing is not
 * checked here (histories may be in flight); use `validateMessages` for that.
 */
export function fromModelMessages(input: unknown): Message[] {
  if (!Array.isArray(input)) return checkMessageShapes(input);
  return checkMessageShapes(upgradeEach(input, upgradeMessage));
}

/**
 * Writes ctxmem messages as AI SDK `ModelMessage[]`: drops `id`, `name` and `ctxmem` metadata,
 * keeps `providerOptions` on messages and parts and every part (files, reasoning, tool approvals)
 * as it is.
 */
export function toModelMessages(messages: readonly Message[]): AiSdkModelMessage[] {
  return messages.map((message) => {
    const { id: _id, name: _name, ctxmem: _ctxmem, ...modelMessage } = message;
    return modelMessage as AiSdkModelMessage;
  });
}

// ---------------------------------------------------------------------------------------------
// AI SDK 4 → 5

/**
 * `list` with `upgrade` applied to each item; copied only when an item changed, since most input
 * is already current and is passed on as it is.
 */
function upgradeEach(list: unknown[], upgrade: (item: unknown) => unknown): unknown[] {
  let upgradedList: unknown[] | undefined;
  list.forEach((item, index) => {
    const upgraded = upgrade(item);
    if (upgraded !== item) {
      upgradedList ??= list.slice();
      upgradedList[index] = upgraded;
    }
  });
  return upgradedList ?? list;
}

function upgradeProviderOptions(value: Record<string, unknown>): Record<string, unknown> {
  if (!('experimental_providerMetadata' in value)) return value;
  const { experimental_providerMetadata: metadata, ...rest } = value;
  if (!isPlainObject(metadata)) return rest;
  return {
    ...rest,
    providerOptions: {
      ...metadata,
      ...(isPlainObject(rest.providerOptions) ? rest.providerOptions : {}),
    },
  };
}

function upgradeMessage(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  let message = upgradeProviderOptions(value);
  if (Array.isArray(message.content)) {
    const parts = upgradeEach(message.content, upgradePart);
    if (parts !== message.content) message = { ...message, content: parts };
  }
  return message;
}

function upgradePart(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  let part = upgradeProviderOptions(value);
  if ('mimeType' in part && (part.type === 'image' || part.type === 'file')) {
    const { mimeType, ...rest } = part;
    part = rest.mediaType === undefined ? { ...rest, mediaType: mimeType } : rest;
  }
  switch (part.type) {
    case 'tool-call':
      if ('args' in part && part.input === undefined) {
        const { args, ...rest } = part;
        part = { ...rest, input: args };
      }
      break;
    case 'tool-result':
      if (part.output === undefined && ('result' in part || 'experimental_content' in part)) {
        const { result, isError, experimental_content: content, ...rest } = part;
        part = { ...rest, output: legacyOutput(result, isError === true, content) };
      }
      break;
    case 'reasoning':
      if (typeof part.signature === 'string') {
        const { signature, ...rest } = part;
        part = withAnthropicOption(rest, 'signature', signature);
      }
      break;
    case 'redacted-reasoning': {
      const { data, type: _type, ...rest } = part;
      part = withAnthropicOption({ ...rest, type: 'reasoning', text: '' }, 'redactedData', data);
      break;
    }
  }
  return part;
}

function withAnthropicOption(
  part: Record<string, unknown>,
  key: string,
  value: unknown,
): Record<string, unknown> {
  const providerOptions = isPlainObject(part.providerOptions) ? part.providerOptions : {};
  const anthropic = isPlainObject(providerOptions.anthropic) ? providerOptions.anthropic : {};
  return {
    ...part,
    providerOptions: { ...providerOptions, anthropic: { ...anthropic, [key]: value } },
  };
}

function legacyOutput(result: unknown, isError: boolean, content: unknown): ToolResultOutput {
  if (Array.isArray(content)) {
    return {
      type: 'content',
      value: content.map((item) => {
        if (isPlainObject(item) && item.type === 'image') {
          const mediaType = typeof item.mimeType === 'string' ? item.mimeType : 'image/png';
          return { type: 'media', data: item.data as string, mediaType };
        }
        return item as { type: string };
      }),
    };
  }
  if (typeof result === 'string') return { type: isError ? 'error-text' : 'text', value: result };
  return { type: isError ? 'error-json' : 'json', value: (result ?? null) as JsonValue };
}
