/**
 * The prompt a language model receives from the AI SDK, in its two current versions. These are
 * structural copies of `LanguageModelV4Prompt` (AI SDK 7) and `LanguageModelV3Prompt` (AI SDK 6)
 * from `@ai-sdk/provider`, so that this package's types do not depend on which `ai` version is
 * installed. Tests check that they stay assignable both ways.
 */

/** A JSON value as `@ai-sdk/provider` 4 defines it (read-only arrays and objects allowed). */
export type PromptJsonValue =
  | null
  | string
  | number
  | boolean
  | { readonly [key: string]: PromptJsonValue | undefined }
  | readonly PromptJsonValue[];

/** A JSON value as `@ai-sdk/provider` 3 defines it (mutable arrays). */
export type V3JsonValue =
  | null
  | string
  | number
  | boolean
  | { [key: string]: V3JsonValue | undefined }
  | V3JsonValue[];

/** `SharedV4ProviderOptions`. */
export type PromptProviderOptions = Record<string, { [key: string]: PromptJsonValue | undefined }>;

/** `SharedV3ProviderOptions`. */
export type V3ProviderOptions = Record<string, { [key: string]: V3JsonValue | undefined }>;

interface WithProviderOptions {
  providerOptions?: PromptProviderOptions;
}

interface WithV3ProviderOptions {
  providerOptions?: V3ProviderOptions;
}

/** Parts shared by both versions, up to the JSON type of their options. */
interface Parts<Options, Json> {
  text: { type: 'text'; text: string } & Options;
  reasoning: { type: 'reasoning'; text: string } & Options;
  toolCall: {
    type: 'tool-call';
    toolCallId: string;
    toolName: string;
    /** The parsed arguments (a JSON value, not a JSON string). */
    input: unknown;
    providerExecuted?: boolean;
  } & Options;
  approvalResponse: {
    type: 'tool-approval-response';
    approvalId: string;
    approved: boolean;
    reason?: string;
  } & Options;
  json: Json;
}

type V4Parts = Parts<WithProviderOptions, PromptJsonValue>;
type V3Parts = Parts<WithV3ProviderOptions, V3JsonValue>;

export type PromptTextPart = V4Parts['text'];
export type PromptReasoningPart = V4Parts['reasoning'];
export type PromptToolCallPart = V4Parts['toolCall'];
export type PromptToolApprovalResponsePart = V4Parts['approvalResponse'];

/** Tool result outputs shared by both versions; only the `content` items differ. */
export type PromptToolResultOutput<
  ContentItem,
  Options = WithProviderOptions,
  Json = PromptJsonValue,
> =
  | ({ type: 'text'; value: string } & Options)
  | ({ type: 'json'; value: Json } & Options)
  | ({ type: 'execution-denied'; reason?: string } & Options)
  | ({ type: 'error-text'; value: string } & Options)
  | ({ type: 'error-json'; value: Json } & Options)
  | { type: 'content'; value: ContentItem[] };

// ---------------------------------------------------------------------------------------------
// Version 4 (AI SDK 7)

/** `SharedV4FileData`: file data as a tagged union. */
export type V4FileData =
  | { type: 'data'; data: Uint8Array | string }
  | { type: 'url'; url: URL; originalUrl?: string }
  | { type: 'reference'; reference: Record<string, string> & { type?: never } }
  | { type: 'text'; text: string };

export interface V4FilePart extends WithProviderOptions {
  type: 'file';
  filename?: string;
  data: V4FileData;
  mediaType: string;
}

export interface V4ReasoningFilePart extends WithProviderOptions {
  type: 'reasoning-file';
  data: Extract<V4FileData, { type: 'data' | 'url' }>;
  mediaType: string;
}

export interface V4CustomPart extends WithProviderOptions {
  type: 'custom';
  kind: `${string}.${string}`;
}

export type V4ToolResultContentItem =
  | ({ type: 'text'; text: string } & WithProviderOptions)
  | ({ type: 'file'; data: V4FileData; mediaType: string; filename?: string } & WithProviderOptions)
  | ({ type: 'custom' } & WithProviderOptions);

export interface V4ToolResultPart extends WithProviderOptions {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: PromptToolResultOutput<V4ToolResultContentItem>;
}

export type V4Message = (
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<PromptTextPart | V4FilePart> }
  | {
      role: 'assistant';
      content: Array<
        | PromptTextPart
        | V4FilePart
        | V4CustomPart
        | PromptReasoningPart
        | V4ReasoningFilePart
        | PromptToolCallPart
        | V4ToolResultPart
      >;
    }
  | { role: 'tool'; content: Array<V4ToolResultPart | PromptToolApprovalResponsePart> }
) &
  WithProviderOptions;

/** `LanguageModelV4Prompt` (AI SDK 7). */
export type V4Prompt = V4Message[];

// ---------------------------------------------------------------------------------------------
// Version 3 (AI SDK 6)

export interface V3FilePart extends WithV3ProviderOptions {
  type: 'file';
  filename?: string;
  data: Uint8Array | string | URL;
  /** The URL string before it was parsed, when parsing would change it. */
  originalUrl?: string;
  mediaType: string;
}

export type V3ToolResultContentItem =
  | ({ type: 'text'; text: string } & WithV3ProviderOptions)
  | ({
      type: 'file-data';
      data: string;
      mediaType: string;
      filename?: string;
    } & WithV3ProviderOptions)
  | ({ type: 'file-url'; url: string; mediaType?: string } & WithV3ProviderOptions)
  | ({ type: 'file-id'; fileId: string | Record<string, string> } & WithV3ProviderOptions)
  | ({ type: 'image-data'; data: string; mediaType: string } & WithV3ProviderOptions)
  | ({ type: 'image-url'; url: string } & WithV3ProviderOptions)
  | ({ type: 'image-file-id'; fileId: string | Record<string, string> } & WithV3ProviderOptions)
  | ({ type: 'custom' } & WithV3ProviderOptions);

export interface V3ToolResultPart extends WithV3ProviderOptions {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: PromptToolResultOutput<V3ToolResultContentItem, WithV3ProviderOptions, V3JsonValue>;
}

export type V3Message = (
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<V3Parts['text'] | V3FilePart> }
  | {
      role: 'assistant';
      content: Array<
        V3Parts['text'] | V3FilePart | V3Parts['reasoning'] | V3Parts['toolCall'] | V3ToolResultPart
      >;
    }
  | { role: 'tool'; content: Array<V3ToolResultPart | V3Parts['approvalResponse']> }
) &
  WithV3ProviderOptions;

/** `LanguageModelV3Prompt` (AI SDK 6). */
export type V3Prompt = V3Message[];

/** Which prompt version a model speaks: `v4` for AI SDK 7 models, `v3` for AI SDK 6 models. */
export type PromptVersion = 'v3' | 'v4';
