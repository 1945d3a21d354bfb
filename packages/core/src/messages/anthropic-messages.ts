/**
 * Anthropic Messages request bodies ⇄ ctxmem messages.
 *
 * Anthropic keeps the system prompt at the top level of the body and tool results inside user
 * messages; ctxmem keeps both as messages (leading `system` messages, `tool` messages). The
 * converters map between the two and keep every block field ctxmem has no place for (for example
 * `cache_control` or `citations`) in `providerOptions.anthropic.extra`, so a body read and written
 * back unchanged is the same JSON. Block types ctxmem cannot represent are rejected with
 * `UnsupportedFormatError` naming the block, never dropped.
 */
import type {
  AssistantContentPart,
  JsonValue,
  Message,
  ProviderOptions,
  ToolResultOutput,
  ToolResultPart,
  UserContentPart,
} from '../contracts/index.js';
import { InvalidMessageError, UnsupportedFormatError } from '../errors/index.js';
import { isPlainObject } from './json-values.js';

/** The `providerOptions` key under which the Anthropic converter keeps what core has no field for. */
export const ANTHROPIC_OPTIONS_KEY = 'anthropic';

type Block = Record<string, unknown>;

/** An Anthropic Messages body as far as ctxmem reads it; every other field is kept as it is. */
export interface AnthropicMessagesBody {
  system?: string | Block[];
  messages: Array<{ role: 'user' | 'assistant'; content: string | Block[] }>;
  [key: string]: unknown;
}

const KNOWN_FIELDS: Record<string, readonly string[]> = {
  text: ['type', 'text'],
  image: ['type', 'source'],
  document: ['type', 'source'],
  tool_use: ['type', 'id', 'name', 'input'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
  thinking: ['type', 'thinking', 'signature'],
  redacted_thinking: ['type', 'data'],
};

function extraOf(block: Block): ProviderOptions | undefined {
  const known = KNOWN_FIELDS[block.type as string] ?? ['type'];
  const extra: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(block)) {
    if (!known.includes(key)) extra[key] = value as JsonValue;
  }
  return Object.keys(extra).length === 0 ? undefined : { [ANTHROPIC_OPTIONS_KEY]: { extra } };
}

function withExtra<Part extends object>(part: Part, block: Block): Part {
  const providerOptions = extraOf(block);
  return providerOptions ? { ...part, providerOptions } : part;
}

function extraBack(providerOptions: ProviderOptions | undefined): Block {
  const extra = providerOptions?.[ANTHROPIC_OPTIONS_KEY]?.extra;
  return isPlainObject(extra) ? extra : {};
}

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
 * come from the matching `tool_use`), `thinking` becomes reasoning. Throws `InvalidMessageError`
 * naming the path for malformed messages and `UnsupportedFormatError` for block types ctxmem
 * cannot represent (server tool results, for example).
 */
export function fromAnthropicMessages(body: { system?: unknown; messages: unknown }): Message[] {
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
  let content: unknown;
  let isError = false;
  switch (output.type) {
    case 'text':
      content = output.value;
      break;
    case 'error-text':
      content = output.value;
      isError = true;
      break;
    case 'json':
      content = JSON.stringify(output.value);
      break;
    case 'error-json':
      content = JSON.stringify(output.value);
      isError = true;
      break;
    case 'execution-denied':
      content = output.reason ?? 'The tool call was denied.';
      isError = true;
      break;
    case 'content':
      content = output.value.map((item) =>
        item.type === 'media'
          ? mediaBlock(item.data, String(item.mediaType), 'image')
          : item.type === 'text'
            ? { type: 'text', text: item.text }
            : item,
      );
      break;
  }
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
  { systemAsText = true }: { systemAsText?: boolean } = {},
): Pick<AnthropicMessagesBody, 'system' | 'messages'> {
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
