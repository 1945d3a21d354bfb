import type { Message, ToolResultOutput } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import { toolOutputText } from '../messages/index.js';

/** Tokens for a message's role (every role is one token in o200k_base and cl100k_base). */
export const ROLE_TOKENS = 1;
/** Tokens for the framing of a tool call or tool result (its id and type) beyond name and payload. */
export const TOOL_PART_TOKENS = 3;
/** Tokens for a tool approval request or response, beyond the response's reason. */
export const APPROVAL_TOKENS = 5;

/** What a message costs, split into fixed tokens and the texts a tokenizer has to count. */
export interface MessageCost {
  fixed: number;
  texts: string[];
}

/** The per-message costs a counter is configured with. */
export interface MessageCostSettings {
  imageTokens: number;
  fileTokens: number;
  messageOverhead: number;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function fail(path: string, message: string, cause?: unknown): never {
  throw new InvalidMessageError({ message, path, cause });
}

function json(value: unknown, path: string): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch (error) {
    return fail(path, `${path} cannot be serialized to JSON`, error);
  }
}

function isImageMediaType(mediaType: unknown): boolean {
  return typeof mediaType === 'string' && mediaType.toLowerCase().startsWith('image/');
}

function requireString(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `${path} must be a string, got ${typeof value}`);
  return value;
}

function addOutput(
  cost: MessageCost,
  output: unknown,
  path: string,
  settings: MessageCostSettings,
): void {
  if (typeof output !== 'object' || output === null) {
    fail(path, `${path} must be a tool result output object`);
  }
  const typed = output as ToolResultOutput;
  switch (typed.type) {
    case 'text':
    case 'error-text':
      cost.texts.push(requireString(typed.value, `${path}.value`));
      return;
    case 'execution-denied':
      if (typed.reason !== undefined) requireString(typed.reason, `${path}.reason`);
      cost.texts.push(toolOutputText(typed));
      return;
    case 'json':
    case 'error-json':
      // As `toolOutputText`, but a value that cannot be serialized is a typed error.
      cost.texts.push(json(typed.value, `${path}.value`) || 'null');
      return;
    case 'content': {
      if (!Array.isArray(typed.value)) fail(`${path}.value`, `${path}.value must be an array`);
      for (const [index, item] of typed.value.entries()) {
        if (typeof item !== 'object' || item === null || typeof item.type !== 'string') {
          fail(`${path}.value[${index}]`, `${path}.value[${index}] must be an object with a type`);
        }
        if (item.type === 'text') {
          cost.texts.push(requireString(item.text, `${path}.value[${index}].text`));
        } else if (
          item.type === 'media' ||
          item.type.startsWith('image') ||
          item.type.startsWith('file')
        ) {
          // Binary content costs a fixed amount; its base64 is never counted as text.
          const image =
            item.type.startsWith('image') ||
            isImageMediaType((item as { mediaType?: unknown }).mediaType);
          cost.fixed += image ? settings.imageTokens : settings.fileTokens;
        } else {
          cost.texts.push(json(item, `${path}.value[${index}]`));
        }
      }
      return;
    }
    default:
      // An output type newer than this code: count its JSON rather than nothing.
      cost.texts.push(json(typed, path));
  }
}

function addPart(cost: MessageCost, part: unknown, path: string, settings: MessageCostSettings) {
  if (
    typeof part !== 'object' ||
    part === null ||
    typeof (part as { type?: unknown }).type !== 'string'
  ) {
    fail(path, `${path} must be an object with a string type`);
  }
  const typed = part as { type: string } & Record<string, unknown>;
  switch (typed.type) {
    case 'text':
    case 'reasoning':
      cost.texts.push(requireString(typed.text, `${path}.text`));
      return;
    case 'image':
      cost.fixed += settings.imageTokens;
      return;
    case 'file':
      cost.fixed += isImageMediaType(typed.mediaType) ? settings.imageTokens : settings.fileTokens;
      return;
    case 'tool-call':
      cost.fixed += TOOL_PART_TOKENS;
      cost.texts.push(requireString(typed.toolName, `${path}.toolName`));
      cost.texts.push(json(typed.input, `${path}.input`));
      return;
    case 'tool-result':
      cost.fixed += TOOL_PART_TOKENS;
      cost.texts.push(requireString(typed.toolName, `${path}.toolName`));
      addOutput(cost, typed.output, `${path}.output`, settings);
      return;
    case 'tool-approval-request':
      cost.fixed += APPROVAL_TOKENS;
      return;
    case 'tool-approval-response':
      cost.fixed += APPROVAL_TOKENS;
      if (typed.reason !== undefined)
        cost.texts.push(requireString(typed.reason, `${path}.reason`));
      return;
    default:
      // A part type newer than this code: count its JSON rather than nothing.
      cost.texts.push(json(typed, path));
  }
}

/**
 * What `message` costs: per-message overhead and role, `name` (+1, as in OpenAI's cookbook), text
 * and reasoning, tool names with the JSON of call inputs, tool result text, fixed costs for images,
 * files and approvals. `ctxmem` metadata and ids are never sent to a model, so they cost nothing.
 * Throws `InvalidMessageError` (with `path`) for a malformed message.
 */
export function messageCost(
  message: Message,
  path: string,
  settings: MessageCostSettings,
): MessageCost {
  if (typeof message !== 'object' || message === null) fail(path, `${path} must be an object`);
  if (!ROLES.has(message.role)) fail(`${path}.role`, `${path}.role is not a known role`);
  const cost: MessageCost = { fixed: settings.messageOverhead + ROLE_TOKENS, texts: [] };
  if (message.name !== undefined) {
    cost.fixed += 1;
    cost.texts.push(requireString(message.name, `${path}.name`));
  }
  const content: unknown = message.content;
  if (typeof content === 'string') {
    if (message.role === 'tool')
      fail(`${path}.content`, `${path}.content of a tool message must be an array`);
    cost.texts.push(content);
  } else if (Array.isArray(content)) {
    if (message.role === 'system')
      fail(`${path}.content`, `${path}.content of a system message must be a string`);
    content.forEach((part, index) => {
      addPart(cost, part, `${path}.content[${index}]`, settings);
    });
  } else {
    fail(`${path}.content`, `${path}.content must be a string or an array of parts`);
  }
  return cost;
}
