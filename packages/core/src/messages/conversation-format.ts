/**
 * Reads a conversation from JSON in whichever format it is in, and writes it back in the same
 * format and envelope (a request body keeps its `model`, `tools` and every other field).
 */
import type { Message } from '../contracts/index.js';
import { UnsupportedFormatError } from '../errors/index.js';
import { fromModelMessages, toModelMessages } from './ai-sdk-messages.js';
import { fromAnthropicMessages, toAnthropicMessages } from './anthropic/index.js';
import { describeValue, isPlainObject } from './json-values.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat/index.js';
import {
  fromOpenAIResponses,
  OPENAI_RESPONSES_ITEM_TYPES,
  toOpenAIResponses,
} from './openai-responses/index.js';

/** The conversation formats ctxmem reads and writes. */
export type ConversationFormat = 'openai-chat' | 'ai-sdk' | 'anthropic' | 'openai-responses';

/**
 * The object a `messages` array came in (a request body, a saved chat), with `messages` set to
 * `[]` so that writing it back keeps the original key order.
 */
export type ConversationEnvelope = Record<string, unknown>;

export interface ParsedConversation {
  format: ConversationFormat;
  messages: Message[];
  /** `undefined` when the input was a bare array. */
  envelope: ConversationEnvelope | undefined;
  /** An Anthropic body's `system` was an array of blocks (not a string). */
  systemAsBlocks?: boolean;
  /** A Responses body's `input` was a plain string (not an array of items). */
  inputAsText?: boolean;
}

interface Signal {
  format: ConversationFormat | 'foreign';
  /** What was seen and where, for error messages. */
  evidence: string;
  /** Also valid in a Responses input (the `developer` role, a `refusal` part). */
  sharedWithResponses?: true;
}

/**
 * Tells which format a conversation is in: `'openai-chat'` (Chat Completions messages),
 * `'ai-sdk'` (`ModelMessage`), `'anthropic'` (an Anthropic Messages body: a top-level `system`,
 * Anthropic content blocks such as `tool_use`, or a `claude-*` model) or `'openai-responses'`
 * (a Responses API body with `input`, or an array of Responses items such as `function_call` or
 * parts such as `input_text`). Accepts a bare array, an object with a `messages` array (or, for
 * Responses, an `input` string or array), or JSON text of either. Conversations of plain string messages
 * look the same in OpenAI and AI SDK form (and convert to the same core messages); they are
 * reported as `'openai-chat'` unless the body says Anthropic.
 *
 * Throws `UnsupportedFormatError` naming what was seen for anything else: other shapes, other
 * providers' formats (Gemini, LangChain), or messages that mix formats.
 */
export function detectFormat(json: unknown): ConversationFormat {
  const value = parseText(json);
  if (responsesBody(value)) return 'openai-responses';
  return detect(messagesOf(value), value);
}

/**
 * Detects the format and converts the messages to ctxmem messages, keeping the envelope.
 * Throws `UnsupportedFormatError` for unknown formats and `InvalidMessageError` for malformed
 * messages in a known format.
 */
export function parseConversation(json: unknown): ParsedConversation {
  const value = parseText(json);
  if (responsesBody(value)) {
    return {
      format: 'openai-responses',
      messages: fromOpenAIResponses(value),
      // `instructions` stays in place (for the key order) and is overwritten on output.
      envelope: { ...value, input: [] },
      ...(typeof value.input === 'string' ? { inputAsText: true } : {}),
    };
  }
  const messages = messagesOf(value);
  const format = detect(messages, value);
  const envelope: ConversationEnvelope | undefined = Array.isArray(value)
    ? undefined
    : { ...(value as Record<string, unknown>), messages: [] };
  if (format === 'openai-responses') {
    return { format, messages: fromOpenAIResponses({ input: messages }), envelope };
  }
  if (format === 'anthropic') {
    const system = envelope?.system;
    if (envelope) delete envelope.system;
    return {
      format,
      messages: fromAnthropicMessages({ system, messages }),
      envelope,
      // Remembers how the system was shaped, so it is written back the same way.
      ...(Array.isArray(system) ? { systemAsBlocks: true } : {}),
    };
  }
  return {
    format,
    messages: format === 'openai-chat' ? fromOpenAIChat(messages) : fromModelMessages(messages),
    envelope,
  };
}

/**
 * Converts ctxmem messages to `format` and puts them back into `envelope` (or returns the bare
 * array when there is none). The result is a JSON value; `JSON.stringify` it to save it.
 *
 * An Anthropic body keeps its system prompt beside the messages; a bare Anthropic array has no
 * place for one, so system messages (a rolling summary, say) become a user turn at its start,
 * which Anthropic combines with a user turn that follows. Pass an envelope (`{}` will do) to get
 * `{ system, messages }` instead.
 */
export function serializeConversation(
  messages: readonly Message[],
  format: ConversationFormat,
  envelope?: ConversationEnvelope,
  options: { systemAsBlocks?: boolean; inputAsText?: boolean } = {},
): unknown {
  if (format === 'openai-responses') {
    const { instructions, input } = toOpenAIResponses(messages, {
      inputAsText: options.inputAsText === true,
    });
    if (envelope === undefined) return input;
    // Instructions go back where they were (or first); a body without them gets none.
    const body: Record<string, unknown> = {};
    if (instructions !== undefined && !('instructions' in envelope))
      body.instructions = instructions;
    for (const key of Object.keys(envelope)) {
      if (key === 'instructions') {
        if (instructions !== undefined) body.instructions = instructions;
        else if (envelope.instructions === null) body.instructions = null;
      } else body[key] = key === 'input' ? input : envelope[key];
    }
    if (!('input' in body)) body.input = input;
    return body;
  }
  if (format === 'anthropic') {
    const { system, messages: converted } = toAnthropicMessages(messages, {
      systemAsText: options.systemAsBlocks !== true,
    });
    if (envelope === undefined) {
      return system === undefined ? converted : [{ role: 'user', content: system }, ...converted];
    }
    // The system goes back where Anthropic wants it: the top of the body, before the messages.
    const { messages: _messages, ...rest } = envelope ?? {};
    return { ...(system === undefined ? {} : { system }), ...rest, messages: converted };
  }
  const converted = format === 'openai-chat' ? toOpenAIChat(messages) : toModelMessages(messages);
  return envelope === undefined ? converted : { ...envelope, messages: converted };
}

function parseText(json: unknown): unknown {
  if (typeof json !== 'string') return json;
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new UnsupportedFormatError({
      message: `Conversation text is not valid JSON: ${(error as Error).message}`,
      cause: error,
    });
  }
}

function messagesOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isPlainObject(value) && Array.isArray(value.messages)) return value.messages;
  const seen = isPlainObject(value)
    ? Object.keys(value).length === 0
      ? 'an empty object'
      : `an object with keys ${Object.keys(value)
          .slice(0, 8)
          .map((key) => JSON.stringify(key))
          .join(', ')}${Object.keys(value).length > 8 ? ', …' : ''}${
          'messages' in value ? ` (messages is ${describeValue(value.messages)})` : ''
        }`
    : describeValue(value);
  throw new UnsupportedFormatError({
    message: `Expected an array of messages, an object with a "messages" array or a Responses body with "input", got ${seen}.`,
  });
}

/** A Responses API body: `input` (a string or an array) where Chat and Anthropic have `messages`. */
function responsesBody(value: unknown): value is Record<string, unknown> & { input: unknown } {
  return (
    isPlainObject(value) &&
    value.messages === undefined &&
    (typeof value.input === 'string' || Array.isArray(value.input))
  );
}

function anthropicBody(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (value.system !== undefined) return true;
  return typeof value.model === 'string' && value.model.toLowerCase().startsWith('claude');
}

/** Where a bare array first shows a Responses shape: an item type or an `input_*` part. */
function responsesEvidence(messages: readonly unknown[]): string | undefined {
  for (const [index, message] of messages.entries()) {
    if (!isPlainObject(message)) continue;
    const path = `messages[${index}]`;
    if (typeof message.type === 'string' && OPENAI_RESPONSES_ITEM_TYPES.includes(message.type)) {
      return `${path}: type ${JSON.stringify(message.type)}`;
    }
    if (!Array.isArray(message.content)) continue;
    for (const [partIndex, part] of message.content.entries()) {
      if (isPlainObject(part) && typeof part.type === 'string' && responsesPartTypes.has(part.type))
        return `${path}: content[${partIndex}] type ${JSON.stringify(part.type)}`;
    }
  }
  return undefined;
}

/** A bare array of Responses items, unless another format's shapes are mixed in. */
function detectResponses(messages: readonly unknown[], evidence: string): ConversationFormat {
  messages.forEach((message, index) => {
    // Function calls, their outputs and reasoning have no role: only messages can mix formats.
    if (!isPlainObject(message) || message.role === undefined) return;
    for (const signal of signalsOf(message, `messages[${index}]`)) {
      if (signal.sharedWithResponses || signal.format === 'foreign') continue;
      const name =
        signal.format === 'anthropic'
          ? 'Anthropic'
          : signal.format === 'ai-sdk'
            ? 'AI SDK'
            : 'OpenAI Chat';
      throw new UnsupportedFormatError({
        message: `The messages mix OpenAI Responses (${evidence}) and ${name} (${signal.evidence}) shapes.`,
      });
    }
  });
  return 'openai-responses';
}

function detect(messages: readonly unknown[], value: unknown): ConversationFormat {
  if (messages.length > 0 && !messages.some(isPlainObject)) {
    const notMessage = messages.findIndex((message) => !isPlainObject(message));
    throw new UnsupportedFormatError({
      message: `Unsupported conversation format: messages[${notMessage}] is ${describeValue(messages[notMessage])}, not a message object.`,
    });
  }
  const responses = Array.isArray(value) ? responsesEvidence(messages) : undefined;
  if (responses !== undefined) return detectResponses(messages, responses);
  let openai: Signal | undefined;
  let aiSdk: Signal | undefined;
  let anthropic: Signal | undefined;
  if (anthropicBody(value))
    anthropic = { format: 'anthropic', evidence: 'a top-level system or a claude model' };
  messages.forEach((message, index) => {
    for (const signal of signalsOf(message, `messages[${index}]`)) {
      if (signal.format === 'anthropic') {
        anthropic ??= signal;
        continue;
      }
      if (signal.format === 'foreign') {
        throw new UnsupportedFormatError({
          message: `Unsupported conversation format: ${signal.evidence}.`,
        });
      }
      if (signal.format === 'openai-chat') openai ??= signal;
      else aiSdk ??= signal;
    }
  });
  if (openai && aiSdk) {
    throw new UnsupportedFormatError({
      message: `The messages mix OpenAI Chat (${openai.evidence}) and AI SDK (${aiSdk.evidence}) shapes.`,
    });
  }
  const other = openai ?? aiSdk;
  if (anthropic && other) {
    throw new UnsupportedFormatError({
      message: `The body mixes Anthropic (${anthropic.evidence}) and ${other.format === 'ai-sdk' ? 'AI SDK' : 'OpenAI Chat'} (${other.evidence}) shapes.`,
    });
  }
  if (anthropic) return 'anthropic';
  return aiSdk ? 'ai-sdk' : 'openai-chat';
}

const openaiPartTypes = new Set(['image_url', 'input_audio', 'refusal']);
const responsesPartTypes = new Set(['input_text', 'output_text', 'input_image', 'input_file']);
const aiSdkPartTypes = new Set([
  'image',
  'reasoning',
  'redacted-reasoning',
  'tool-call',
  'tool-result',
  'tool-approval-request',
  'tool-approval-response',
]);
const anthropicPartTypes = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'document',
  'server_tool_use',
]);
const langchainTypes = new Set(['human', 'ai', 'system', 'tool', 'function', 'chat', 'generic']);

function signalsOf(message: unknown, path: string): Signal[] {
  // An entry that is no message object (null, a hole) says nothing of the format: the converter
  // rejects it with an InvalidMessageError naming its index. Only a list without any message
  // object is no conversation at all (see `detect`).
  if (!isPlainObject(message)) return [];
  const signals: Signal[] = [];
  const openai = (evidence: string, sharedWithResponses?: true) =>
    signals.push({
      format: 'openai-chat',
      evidence: `${path}: ${evidence}`,
      ...(sharedWithResponses ? { sharedWithResponses } : {}),
    });
  const aiSdk = (evidence: string) =>
    signals.push({ format: 'ai-sdk', evidence: `${path}: ${evidence}` });
  const anthropic = (evidence: string) =>
    signals.push({ format: 'anthropic', evidence: `${path}: ${evidence}` });
  const foreign = (evidence: string) =>
    signals.push({ format: 'foreign', evidence: `${path}: ${evidence}` });

  const role = message.role;
  if (role === undefined) {
    if (typeof message.type === 'string' && langchainTypes.has(message.type)) {
      foreign(`type ${JSON.stringify(message.type)} without a role looks like a LangChain message`);
    } else if (message.lc !== undefined && message.kwargs !== undefined) {
      foreign('a serialized LangChain message (lc, kwargs)');
    } else {
      foreign(`no role (keys ${Object.keys(message).slice(0, 6).join(', ') || 'none'})`);
    }
    return signals;
  }
  if (
    Array.isArray(message.parts) &&
    message.parts.some((part) => isPlainObject(part) && typeof part.type === 'string')
  ) {
    foreign(
      'parts with types look like AI SDK UI messages; convert them with convertToModelMessages first',
    );
    return signals;
  }
  if (role === 'model' || Array.isArray(message.parts)) {
    foreign(`role ${JSON.stringify(role)} with parts looks like Gemini contents`);
    return signals;
  }
  if (role === 'developer') openai('role "developer"', true);
  else if (role === 'function') openai(`role ${JSON.stringify(role)}`);
  else if (!['system', 'user', 'assistant', 'tool'].includes(role as string)) {
    foreign(
      `unknown role ${typeof role === 'string' ? JSON.stringify(role) : describeValue(role)}`,
    );
    return signals;
  }
  if ('tool_call_id' in message) openai('tool_call_id');
  if ('tool_calls' in message) openai('tool_calls');
  if ('function_call' in message) openai('function_call');
  if ('refusal' in message) openai('refusal');
  if (message.content === null) openai('content: null');
  if (role === 'tool' && typeof message.content === 'string')
    openai('tool message with string content');
  if ('providerOptions' in message) aiSdk('providerOptions');
  if ('experimental_providerMetadata' in message) aiSdk('experimental_providerMetadata');
  if (Array.isArray(message.content)) {
    message.content.forEach((part, index) => {
      if (!isPlainObject(part) || typeof part.type !== 'string') return;
      const type = part.type;
      const where = `content[${index}] type ${JSON.stringify(type)}`;
      if (openaiPartTypes.has(type)) openai(where, type === 'refusal' ? true : undefined);
      else if (type === 'image' && isPlainObject(part.source)) anthropic(`${where} with a source`);
      else if (aiSdkPartTypes.has(type)) aiSdk(where);
      else if (anthropicPartTypes.has(type)) anthropic(where);
      else if (type === 'file') {
        if (isPlainObject(part.file)) openai(`${where} with a file object`);
        else if ('data' in part || 'mediaType' in part || 'mimeType' in part)
          aiSdk(`${where} with data`);
      } else if (type === 'text' && 'providerOptions' in part)
        aiSdk(`${where} with providerOptions`);
    });
  }
  return signals;
}
