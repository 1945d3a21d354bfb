/** Anthropic Messages request bodies → ctxmem messages (see `index.ts`). */
import type {
  AssistantContentPart,
  JsonValue,
  Message,
  ToolResultOutput,
  ToolResultPart,
  UserContentPart,
} from '../../contracts/index.js';
import { InvalidMessageError, UnsupportedFormatError } from '../../errors/index.js';
import { checkJsonValue, isPlainObject } from '../json-values.js';
import { ANTHROPIC_OPTIONS_KEY, type Block, extraOf, withExtra } from './anthropic-marker.js';

function blocksOf(content: unknown, path: string): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) {
    throw new InvalidMessageError({
      message: `${path} must be a string or an array of content blocks`,
      path,
    });
  }
  return content.map((block, index) => {
    if (!isPlainObject(block) || typeof block.type !== 'string') {
      throw new InvalidMessageError({
        message: `${path}[${index}] is not a content block with a type`,
        path: `${path}[${index}]`,
      });
    }
    return block;
  });
}

function mediaPart(block: Block, path: string): UserContentPart {
  const source = block.source;
  if (!isPlainObject(source)) {
    throw new InvalidMessageError({ message: `${path}.source is missing`, path: `${path}.source` });
  }
  const mediaType = typeof source.media_type === 'string' ? source.media_type : undefined;
  let data: string | URL;
  if (source.type === 'base64' && typeof source.data === 'string') data = source.data;
  else if (source.type === 'url' && typeof source.url === 'string') data = new URL(source.url);
  else {
    throw new UnsupportedFormatError({
      message: `Unsupported ${String(block.type)} source at ${path}.source (type ${String(source.type)})`,
    });
  }
  if (block.type === 'image') {
    return withExtra({ type: 'image', image: data, ...(mediaType ? { mediaType } : {}) }, block);
  }
  return withExtra(
    { type: 'file', data, mediaType: mediaType ?? 'application/pdf' },
    block,
  ) as UserContentPart;
}

function toolResultOutput(block: Block, path: string): ToolResultOutput {
  const isError = block.is_error === true;
  const { content } = block;
  if (content === undefined || typeof content === 'string') {
    const value = content ?? '';
    return isError ? { type: 'error-text', value } : { type: 'text', value };
  }
  const value = blocksOf(content, `${path}.content`).map((inner) => {
    if (inner.type === 'text' && typeof inner.text === 'string')
      return { type: 'text' as const, text: inner.text };
    if (inner.type === 'image' && isPlainObject(inner.source) && inner.source.type === 'base64') {
      return {
        type: 'media' as const,
        data: String(inner.source.data),
        mediaType: String(inner.source.media_type),
      };
    }
    return inner as { type: string; [key: string]: unknown };
  });
  if (isError) {
    const text = value.map((part) => ('text' in part ? String(part.text) : '')).join('');
    return { type: 'error-text', value: text };
  }
  return { type: 'content', value };
}

/**
 * Converts an Anthropic Messages body (`system`, `messages`) to ctxmem messages: the top-level
 * system becomes leading `system` messages, `tool_result` blocks become `tool` messages (tool names
 * come from the matching `tool_use`), `thinking` becomes reasoning, a `compaction` block becomes
 * an opaque `custom` part (`anthropic.compaction`) that holds the block. Throws `InvalidMessageError`
 * naming the path for malformed messages and `UnsupportedFormatError` for block types ctxmem
 * cannot represent (server tool results, for example). A body is JSON: a value JSON cannot hold
 * (a cycle, a BigInt, a function, a hole) is an `InvalidMessageError` at its path too.
 */
export function fromAnthropicMessages(body: { system?: unknown; messages: unknown }): Message[] {
  // Fields the converter does not read are carried along: checked up front, where the input
  // paths are known, so that a cycle fails here and not when the prompt is sent.
  if (body.system !== undefined) checkJsonValue(body.system, 'system');
  if (Array.isArray(body.messages)) checkJsonValue(body.messages, 'messages');
  const result: Message[] = [];
  if (body.system !== undefined) {
    for (const [index, block] of blocksOf(body.system, 'system').entries()) {
      if (block.type !== 'text' || typeof block.text !== 'string') {
        throw new InvalidMessageError({
          message: `system[${index}] must be a text block`,
          path: `system[${index}]`,
        });
      }
      result.push(withExtra({ role: 'system', content: block.text }, block));
    }
  }
  if (!Array.isArray(body.messages)) {
    throw new InvalidMessageError({ message: 'messages must be an array', path: 'messages' });
  }
  const toolNames = new Map<string, string>();
  body.messages.forEach((message: unknown, messageIndex) => {
    const path = `messages[${messageIndex}]`;
    if (!isPlainObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      throw new InvalidMessageError({
        message: `${path} must be a user or assistant message`,
        path,
      });
    }
    const blocks = blocksOf(message.content, `${path}.content`);
    if (message.role === 'assistant') {
      const parts: AssistantContentPart[] = blocks.map((block, index) => {
        const at = `${path}.content[${index}]`;
        switch (block.type) {
          case 'text':
            return withExtra({ type: 'text', text: String(block.text ?? '') }, block);
          case 'tool_use': {
            if (typeof block.id !== 'string' || typeof block.name !== 'string') {
              throw new InvalidMessageError({
                message: `${at} needs a string id and name`,
                path: at,
              });
            }
            toolNames.set(block.id, block.name);
            return withExtra(
              { type: 'tool-call', toolCallId: block.id, toolName: block.name, input: block.input },
              block,
            );
          }
          case 'thinking':
            return {
              type: 'reasoning',
              text: String(block.thinking ?? ''),
              providerOptions: {
                [ANTHROPIC_OPTIONS_KEY]: {
                  ...(typeof block.signature === 'string' ? { signature: block.signature } : {}),
                  ...(extraOf(block)?.[ANTHROPIC_OPTIONS_KEY] ?? {}),
                },
              },
            };
          case 'redacted_thinking':
            return {
              type: 'reasoning',
              text: '',
              providerOptions: { [ANTHROPIC_OPTIONS_KEY]: { redactedData: String(block.data) } },
            };
          case 'compaction':
            // The provider's summary of everything before it: opaque, written back verbatim.
            return {
              type: 'custom',
              kind: 'anthropic.compaction',
              providerOptions: { [ANTHROPIC_OPTIONS_KEY]: { block: block as JsonValue } },
            };
          default:
            throw new UnsupportedFormatError({
              message: `Unsupported Anthropic block "${String(block.type)}" at ${at}`,
            });
        }
      });
      result.push({ role: 'assistant', content: parts });
      return;
    }
    const results: ToolResultPart[] = [];
    const userParts: UserContentPart[] = [];
    blocks.forEach((block, index) => {
      const at = `${path}.content[${index}]`;
      switch (block.type) {
        case 'tool_result': {
          if (typeof block.tool_use_id !== 'string') {
            throw new InvalidMessageError({ message: `${at} needs a tool_use_id`, path: at });
          }
          results.push(
            withExtra(
              {
                type: 'tool-result',
                toolCallId: block.tool_use_id,
                toolName: toolNames.get(block.tool_use_id) ?? 'unknown',
                output: toolResultOutput(block, at),
              },
              block,
            ),
          );
          return;
        }
        case 'text':
          userParts.push(withExtra({ type: 'text', text: String(block.text ?? '') }, block));
          return;
        case 'image':
        case 'document':
          userParts.push(mediaPart(block, at));
          return;
        default:
          throw new UnsupportedFormatError({
            message: `Unsupported Anthropic block "${String(block.type)}" at ${at}`,
          });
      }
    });
    if (results.length > 0) result.push({ role: 'tool', content: results });
    if (userParts.length > 0 || results.length === 0) {
      const plain =
        typeof message.content === 'string' &&
        userParts.length === 1 &&
        !userParts[0]!.providerOptions;
      result.push({
        role: 'user',
        content: plain ? (message.content as string) : userParts,
      });
    }
  });
  return result;
}
