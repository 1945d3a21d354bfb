/**
 * The prompt a language model receives from the AI SDK, in its two current versions. These are
 * structural copies of `LanguageModelV4Prompt` (AI SDK 7) and `LanguageModelV3Prompt` (AI SDK 6)
 * from `@ai-sdk/provider`, so that this package's types do not depend on which `ai` version is
 * installed. Tests check that they stay assignable both ways.
 */

/** A JSON value as `@ai-sdk/provider` defines it (read-only arrays and objects allowed). */
export type PromptJsonValue =
  | null
  | string
  | number
  | boolean
  | { readonly [key: string]: PromptJsonValue | undefined }
  | readonly PromptJsonValue[];

/** `SharedV4ProviderOptions` / `SharedV3ProviderOptions`. */
export type PromptProviderOptions = Record<string, { [key: string]: PromptJsonValue | undefined }>;

interface WithProviderOptions {
  providerOptions?: PromptProviderOptions;
}

export interface PromptTextPart extends WithProviderOptions {
  type: 'text';
  text: string;
}

export interface PromptReasoningPart extends WithProviderOptions {
  type: 'reasoning';
  text: string;
}

export interface PromptToolCallPart extends WithProviderOptions {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  /** The parsed arguments (a JSON value, not a JSON string). */
  input: unknown;
  providerExecuted?: boolean;
}

export interface PromptToolApprovalResponsePart extends WithProviderOptions {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/** Tool result outputs shared by both versions; only the `content` items differ. */
export type PromptToolResultOutput<ContentItem> =
  | ({ type: 'text'; value: string } & WithProviderOptions)
  | ({ type: 'json'; value: PromptJsonValue } & WithProviderOptions)
  | ({ type: 'execution-denied'; reason?: string } & WithProviderOptions)
  | ({ type: 'error-text'; value: string } & WithProviderOptions)
  | ({ type: 'error-json'; value: PromptJsonValue } & WithProviderOptions)
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

export interface V3FilePart extends WithProviderOptions {
  type: 'file';
  filename?: string;
  data: Uint8Array | string | URL;
  mediaType: string;
}

export type V3ToolResultContentItem =
  | ({ type: 'text'; text: string } & WithProviderOptions)
  | ({
      type: 'file-data';
      data: string;
      mediaType: string;
      filename?: string;
    } & WithProviderOptions)
  | ({ type: 'file-url'; url: string; mediaType?: string } & WithProviderOptions)
  | ({ type: 'file-id'; fileId: string | Record<string, string> } & WithProviderOptions)
  | ({ type: 'image-data'; data: string; mediaType: string } & WithProviderOptions)
  | ({ type: 'image-url'; url: string } & WithProviderOptions)
  | ({ type: 'image-file-id'; fileId: string | Record<string, string> } & WithProviderOptions)
  | ({ type: 'custom' } & WithProviderOptions);

export interface V3ToolResultPart extends WithProviderOptions {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: PromptToolResultOutput<V3ToolResultContentItem>;
}

export type V3Message = (
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<PromptTextPart | V3FilePart> }
  | {
      role: 'assistant';
      content: Array<
        PromptTextPart | V3FilePart | PromptReasoningPart | PromptToolCallPart | V3ToolResultPart
      >;
    }
  | { role: 'tool'; content: Array<V3ToolResultPart | PromptToolApprovalResponsePart> }
) &
  WithProviderOptions;

/** `LanguageModelV3Prompt` (AI SDK 6). */
export type V3Prompt = V3Message[];

/** Which prompt version a model speaks: `v4` for AI SDK 7 models, `v3` for AI SDK 6 models. */
export type PromptVersion = 'v3' | 'v4';
