export {
  type AiSdkModelMessage,
  fromModelMessages,
  toModelMessages,
} from './ai-sdk-messages.js';
export {
  ANTHROPIC_OPTIONS_KEY,
  type AnthropicMessagesBody,
  fromAnthropicMessages,
  toAnthropicMessages,
} from './anthropic/index.js';
export {
  type ConversationEnvelope,
  type ConversationFormat,
  detectFormat,
  type ParsedConversation,
  parseConversation,
  serializeConversation,
} from './conversation-format.js';
export { withMarkerUnder } from './converter-fields.js';
export { checkJsonValue, MAX_MESSAGE_JSON_DEPTH } from './json-values.js';
export { type WithMessageIdsOptions, withMessageIds } from './message-ids.js';
export { readCtxmemMetadata } from './message-shape.js';
export {
  approvalText,
  DENIED_TOOL_CALL_TEXT,
  isCtxmemMessage,
  isPairSafeCut,
  labelledMessageText,
  lastUserIndex,
  lastUserMessage,
  leadingSystemCount,
  type MapToolOutputOptions,
  mapToolOutput,
  mediaPartText,
  messageText,
  type Round,
  splitRounds,
  toolCallsOf,
  toolOutputText,
  toolResultsOf,
} from './message-utils.js';
export {
  hasOpaqueParts,
  holdsProviderCompaction,
  isOpaquePart,
  isProviderCompaction,
  newestProviderCompaction,
} from './opaque-parts.js';
export {
  fromOpenAIChat,
  OPENAI_CHAT_OPTIONS_KEY,
  type OpenAIChatMarker,
  toOpenAIChat,
} from './openai-chat/index.js';
// The wire types of OpenAI Chat Completions messages, as the converters read and write them.
export type * from './openai-chat/openai-chat-types.js';
export {
  fromOpenAIResponses,
  OPENAI_RESPONSES_ITEM_TYPES,
  OPENAI_RESPONSES_OPTIONS_KEY,
  type OpenAIResponsesBody,
  type OpenAIResponsesItem,
  type OpenAIResponsesMarker,
  type ToOpenAIResponsesOptions,
  toOpenAIResponses,
} from './openai-responses/index.js';
export {
  checkToolPairing,
  type MessageRepair,
  MISSING_TOOL_RESULT_TEXT,
  type RepairMessagesResult,
  repairMessages,
  type ToolPairingProblem,
  type ValidateMessagesOptions,
  validateMessages,
} from './validate-messages.js';
