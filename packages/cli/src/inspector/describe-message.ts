import type { Message } from '@ctxmem/core';
import { labelledMessageText } from '@ctxmem/core/adapter-kit';
import type { InspectedMessage } from './inspection.js';

/** `text` cut to `maxChars`, with how much was left out. */
export function clip(text: string, maxChars: number): { text: string; omittedChars: number } {
  if (text.length <= maxChars) return { text, omittedChars: 0 };
  return { text: text.slice(0, maxChars), omittedChars: text.length - maxChars };
}

export function inspectMessage(
  message: Message,
  tokens: number,
  maxChars: number,
): InspectedMessage {
  const { text, omittedChars } = clip(labelledMessageText(message), maxChars);
  return {
    role: message.role,
    ...(message.ctxmem?.kind ? { kind: message.ctxmem.kind } : {}),
    tokens,
    text,
    omittedChars,
    offloadIds: [...(message.ctxmem?.offloadIds ?? [])],
  };
}
