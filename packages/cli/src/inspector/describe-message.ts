import type { Message } from '@ctxmem/core';
import { toolOutputText } from '@ctxmem/core';
import type { InspectedMessage } from './inspection.js';

/**
 * A message as readable text, tool calls and results labelled, so the page can show exactly what
 * the model received. The text is data: the renderer escapes it.
 */
export function messageAsText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const pieces: string[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        pieces.push(part.text);
        break;
      case 'reasoning':
        pieces.push(`[reasoning] ${part.text}`);
        break;
      case 'image':
        pieces.push('[image]');
        break;
      case 'file':
        pieces.push(`[file${part.filename ? ` ${part.filename}` : ''} ${part.mediaType}]`);
        break;
      case 'tool-call':
        pieces.push(`[tool call ${part.toolName}] ${JSON.stringify(part.input) ?? ''}`);
        break;
      case 'tool-result':
        pieces.push(`[tool result ${part.toolName}] ${toolOutputText(part.output)}`);
        break;
      default:
        pieces.push(`[${part.type}]`);
    }
  }
  return pieces.join('\n');
}

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
  const { text, omittedChars } = clip(messageAsText(message), maxChars);
  return {
    role: message.role,
    ...(message.ctxmem?.kind ? { kind: message.ctxmem.kind } : {}),
    tokens,
    text,
    omittedChars,
    offloadIds: [...(message.ctxmem?.offloadIds ?? [])],
  };
}
