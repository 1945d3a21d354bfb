/**
 * The neutral message model. Its shape follows the AI SDK's `ModelMessage` JSON so that the AI SDK
 * conversion is close to the identity, with two additions that ctxmem needs: an optional stable
 * `id`, and `ctxmem` metadata on the messages that ctxmem itself creates (summaries, injected
 * memories, compressed records, offload previews). Converters drop `ctxmem` metadata on output.
 *
 * Messages are treated as immutable values everywhere in ctxmem: strategies return new arrays and
 * new objects and never mutate their input, so caches may key on object identity.
 */

/** JSON-compatible value. */
export type JsonValue =
  | null
  | string
  | number
  | boolean
  | JsonValue[]
  | { [key: string]: JsonValue };

/** Provider-specific options, kept opaque and passed through untouched. */
export type ProviderOptions = Record<string, Record<string, JsonValue | undefined>>;

/** Binary or textual data: base64 / data URL string, bytes, or a URL. */
export type DataContent = string | Uint8Array | ArrayBuffer | URL;

export interface TextPart {
  type: 'text';
  text: string;
  providerOptions?: ProviderOptions;
}

export interface ImagePart {
  type: 'image';
  image: DataContent;
  mediaType?: string;
  providerOptions?: ProviderOptions;
}

export interface FilePart {
  type: 'file';
  data: DataContent;
  mediaType: string;
  filename?: string;
  providerOptions?: ProviderOptions;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: ProviderOptions;
}

export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  /** Parsed arguments (any JSON value). */
  input: unknown;
  providerExecuted?: boolean;
  providerOptions?: ProviderOptions;
}

/** The result of a tool call, as in the AI SDK (`ToolResultOutput`). */
export type ToolResultOutput =
  | { type: 'text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'error-text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'error-json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: ProviderOptions }
  | {
      type: 'content';
      value: Array<
        | { type: 'text'; text: string; providerOptions?: ProviderOptions }
        | { type: 'media'; data: string; mediaType: string }
        | { type: string; [key: string]: unknown }
      >;
    };

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
  providerOptions?: ProviderOptions;
}

export interface ToolApprovalRequestPart {
  type: 'tool-approval-request';
  approvalId: string;
  toolCallId: string;
  providerOptions?: ProviderOptions;
}

export interface ToolApprovalResponsePart {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
  providerOptions?: ProviderOptions;
}

/**
 * A provider-specific part with no standard payload (the AI SDK's `CustomPart`): Anthropic's
 * `message_start` record, an OpenAI compaction item, a block an adapter cannot represent
 * otherwise. Opaque: ctxmem counts it, keeps it in place and never edits it (see `isOpaquePart`).
 */
export interface CustomPart {
  type: 'custom';
  /** What it is, as `{provider}.{type}` (`anthropic.message_start`, `openai.compaction`). */
  kind: string;
  providerOptions?: ProviderOptions;
}

export type UserContentPart = TextPart | ImagePart | FilePart;
export type AssistantContentPart =
  | TextPart
  | FilePart
  | ReasoningPart
  | CustomPart
  | ToolCallPart
  | ToolResultPart
  | ToolApprovalRequestPart;
export type ToolContentPart = ToolResultPart | ToolApprovalResponsePart;

/** What ctxmem created a message for. Messages without it come from the user's history. */
export type CtxmemMessageKind =
  /** The rolling `## Context Summary`. */
  | 'summary'
  /** The `## Relevant Memories` block injected before the newest user message. */
  | 'memory-injection'
  /** A compact record that replaced a run of historical tool calls. */
  | 'tool-run-record'
  /** A message whose large content was moved to the offload store. */
  | 'offload-preview'
  /** A current-round tool result whose content was compressed. */
  | 'compressed-result'
  /** Workspace instruction files loaded under the bootstrap budget. */
  | 'bootstrap';

export interface CtxmemMessageMetadata {
  kind: CtxmemMessageKind;
  /** Offload ids whose full content can be brought back with `reload_context`. */
  offloadIds?: string[];
  /** Ids of the original messages this message stands for. */
  replaces?: string[];
}

interface MessageBase {
  /** Stable id. Assigned by the history store when missing. */
  id?: string;
  /** Optional participant name (OpenAI `name`). */
  name?: string;
  providerOptions?: ProviderOptions;
  /** Set on messages that ctxmem created; never sent to a provider. */
  ctxmem?: CtxmemMessageMetadata;
}

export interface SystemMessage extends MessageBase {
  role: 'system';
  content: string;
}

export interface UserMessage extends MessageBase {
  role: 'user';
  content: string | UserContentPart[];
}

export interface AssistantMessage extends MessageBase {
  role: 'assistant';
  content: string | AssistantContentPart[];
}

export interface ToolMessage extends MessageBase {
  role: 'tool';
  content: ToolContentPart[];
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
export type MessageRole = Message['role'];
