/** ctxmem messages → Anthropic Messages request bodies (see `index.ts`). */
import type { Message, ToolResultPart } from '../../contracts/index.js';
import { requireOptions } from '../../validation/index.js';
import { isPlainObject } from '../json-values.js';
import { mapToolOutput } from '../message-utils.js';
import {
  ANTHROPIC_OPTIONS_KEY,
  type AnthropicMessagesBody,
  type Block,
  extraBack,
} from './anthropic-marker.js';

function mediaBlock(data: unknown, mediaType: string | undefined, type: 'image' | 'document') {
  const source =
    data instanceof URL
      ? { type: 'url', url: data.href }
      : {
          type: 'base64',
          media_type: mediaType ?? (type === 'image' ? 'image/png' : 'application/pdf'),
          data:
            typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('base64'),
        };
  return { type, source };
}

function resultBlock(part: ToolResultPart): Block {
  const { output } = part;
  const base: Block = { type: 'tool_result', tool_use_id: part.toolCallId };
  const content = mapToolOutput(output, {
    deniedText: 'The tool call was denied.',
    stringify: (value) => JSON.stringify(value) as string,
    contentPart: (item) =>
      item.type === 'media'
        ? mediaBlock(item.data, String(item.mediaType), 'image')
        : item.type === 'text'
          ? { type: 'text', text: item.text }
          : item,
  });
  const isError =
    output.type === 'error-text' ||
    output.type === 'error-json' ||
    output.type === 'execution-denied';
  return {
    ...base,
    content,
    ...(isError ? { is_error: true } : {}),
    ...extraBack(part.providerOptions),
  };
}

/**
 * Converts ctxmem messages back to an Anthropic Messages body's `system` and `messages`: `system`
 * messages (which ctxmem keeps at the start: the instructions, the rolling summary) go to the
 * top-level `system`, as a string when `systemAsText` (the input had a string) and as text blocks
 * otherwise; `tool` messages become user messages of `tool_result` blocks, merged with the user
 * message that follows them, as Anthropic expects.
 */
export function toAnthropicMessages(
  messages: readonly Message[],
  options: { systemAsText?: boolean } = {},
): Pick<AnthropicMessagesBody, 'system' | 'messages'> {
  const { systemAsText = true } = requireOptions(options, 'toAnthropicMessages');
  const system: Block[] = [];
  const out: AnthropicMessagesBody['messages'] = [];
  const pushUser = (blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: 'user', content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push({
          type: 'text',
          text: message.content,
          ...extraBack(message.providerOptions),
        });
        break;
      case 'user': {
        if (typeof message.content === 'string') {
          const last = out[out.length - 1];
          if (last?.role === 'user' && Array.isArray(last.content)) {
            last.content.push({ type: 'text', text: message.content });
          } else out.push({ role: 'user', content: message.content });
          break;
        }
        pushUser(
          message.content.map((part): Block => {
            if (part.type === 'text')
              return { type: 'text', text: part.text, ...extraBack(part.providerOptions) };
            if (part.type === 'image')
              return {
                ...mediaBlock(part.image, part.mediaType, 'image'),
                ...extraBack(part.providerOptions),
              };
            return {
              ...mediaBlock(
                part.data,
                part.mediaType,
                part.mediaType.startsWith('image/') ? 'image' : 'document',
              ),
              ...extraBack(part.providerOptions),
            };
          }),
        );
        break;
      }
      case 'assistant': {
        if (typeof message.content === 'string') {
          out.push({ role: 'assistant', content: message.content });
          break;
        }
        const blocks: Block[] = [];
        for (const part of message.content) {
          if (part.type === 'text')
            blocks.push({ type: 'text', text: part.text, ...extraBack(part.providerOptions) });
          else if (part.type === 'tool-call')
            blocks.push({
              type: 'tool_use',
              id: part.toolCallId,
              name: part.toolName,
              input: part.input ?? {},
              ...extraBack(part.providerOptions),
            });
          else if (part.type === 'reasoning') {
            const options = part.providerOptions?.[ANTHROPIC_OPTIONS_KEY];
            if (typeof options?.redactedData === 'string')
              blocks.push({ type: 'redacted_thinking', data: options.redactedData });
            else if (typeof options?.signature === 'string')
              blocks.push({
                type: 'thinking',
                thinking: part.text,
                signature: options.signature,
                ...extraBack(part.providerOptions),
              });
            // Reasoning without a signature cannot be sent back to Anthropic; it is dropped,
            // as Anthropic itself drops unsigned thinking from earlier turns.
          } else if (part.type === 'custom') {
            // A block read from an Anthropic body goes back verbatim; custom parts of other
            // origins (an AI SDK stream's `anthropic.message_start`) are no Anthropic block.
            const block = part.providerOptions?.[ANTHROPIC_OPTIONS_KEY]?.block;
            if (part.kind.startsWith('anthropic.') && isPlainObject(block)) blocks.push(block);
          } else if (part.type === 'tool-result') blocks.push(resultBlock(part));
          else if (part.type === 'file')
            blocks.push(mediaBlock(part.data, part.mediaType, 'document'));
        }
        out.push({ role: 'assistant', content: blocks.length > 0 ? blocks : '' });
        break;
      }
      case 'tool':
        pushUser(
          message.content
            .filter((part): part is ToolResultPart => part.type === 'tool-result')
            .map(resultBlock),
        );
        break;
    }
  }
  const onlyPlainText = system.every((block) => Object.keys(block).length === 2);
  return {
    ...(system.length === 0
      ? {}
      : {
          system:
            systemAsText && onlyPlainText
              ? system.map((block) => block.text as string).join('\n\n')
              : system,
        }),
    messages: out,
  };
}
