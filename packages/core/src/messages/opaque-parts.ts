/**
 * Opaque parts: what a provider put in a history that only the provider can read or check, and
 * that it wants back exactly as it gave it. ctxmem counts them, keeps them in place and never
 * edits, merges or shortens them. A strategy that needs room keeps them whole beside what it
 * shortens, or removes them only together with the whole turn they belong to, and only where the
 * provider accepts the turn being gone (see `docs/architecture.md`, "Opaque parts").
 */
import type { AssistantContentPart, Message } from '../contracts/index.js';

type PartLike = { type: string; providerOptions?: Record<string, unknown> };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a text part is a provider's compaction summary, as the AI SDK carries Anthropic's
 * `compaction` block (`providerOptions.anthropic.type === 'compaction'`).
 */
function isCompactionText(part: PartLike): boolean {
  const options = part.providerOptions;
  if (!isObject(options)) return false;
  return Object.values(options).some((value) => isObject(value) && value.type === 'compaction');
}

/**
 * Whether `part` is opaque: a `custom` part; reasoning that carries provider data in its
 * `providerOptions` (an Anthropic signature or redacted data, an OpenAI item id or encrypted
 * content, a Gemini thought signature, an adapter's record of the original block); or a provider's
 * compaction summary. Reasoning without provider data is plain text ctxmem may shorten.
 */
export function isOpaquePart(part: { type: string; providerOptions?: unknown }): boolean {
  switch (part.type) {
    case 'custom':
      return true;
    case 'reasoning':
      return isObject(part.providerOptions) && Object.keys(part.providerOptions).length > 0;
    case 'text':
      return isProviderCompaction(part as PartLike);
    default:
      return false;
  }
}

/**
 * Whether `part` is a provider's compaction: a summary the provider made of everything before it,
 * which it reads in place of that history (Anthropic's `compaction` block, an OpenAI compaction
 * item, carried as a compaction text part or a `custom` part of kind `….compaction`).
 */
export function isProviderCompaction(part: { type: string; providerOptions?: unknown }): boolean {
  if (part.type === 'custom')
    return String((part as { kind?: unknown }).kind).endsWith('.compaction');
  return part.type === 'text' && isCompactionText(part as PartLike);
}

/** Whether `message` holds an opaque part. */
export function hasOpaqueParts(message: Message): boolean {
  if (message.role !== 'assistant' || typeof message.content === 'string') return false;
  return message.content.some(isOpaquePart);
}

/** Whether `message` holds a provider's compaction. */
export function holdsProviderCompaction(message: Message): boolean {
  if (message.role !== 'assistant' || typeof message.content === 'string') return false;
  return (message.content as AssistantContentPart[]).some(isProviderCompaction);
}

/** Index of the newest message that holds a provider's compaction, or -1. */
export function newestProviderCompaction(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (holdsProviderCompaction(messages[index]!)) return index;
  }
  return -1;
}
