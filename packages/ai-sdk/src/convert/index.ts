export { fromPromptMessage, fromV3Prompt, fromV4Prompt } from './from-prompt.js';
export { AI_SDK_PROMPT_OPTIONS_KEY, type PromptPartMarker } from './part-marker.js';
export type {
  PromptJsonValue,
  PromptProviderOptions,
  PromptReasoningPart,
  PromptTextPart,
  PromptToolApprovalResponsePart,
  PromptToolCallPart,
  PromptToolResultOutput,
  PromptVersion,
  V3FilePart,
  V3JsonValue,
  V3Message,
  V3Prompt,
  V3ProviderOptions,
  V3ToolResultContentItem,
  V3ToolResultPart,
  V4CustomPart,
  V4FileData,
  V4FilePart,
  V4Message,
  V4Prompt,
  V4ReasoningFilePart,
  V4ToolResultContentItem,
  V4ToolResultPart,
} from './prompt-types.js';
export { toPromptMessage, toV3Prompt, toV4Prompt } from './to-prompt.js';
