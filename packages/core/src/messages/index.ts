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
} from './anthropic-messages.js';
export {
  type ConversationEnvelope,
  type ConversationFormat,
  detectFormat,
  type ParsedConversation,
  parseConversation,
  serializeConversation,
} from './conversation-format.js';
export { MAX_MESSAGE_JSON_DEPTH } from './json-values.js';
export { type WithMessageIdsOptions, withMessageIds } from './message-ids.js';
export {
  isCtxmemMessage,
  isPairSafeCut,
  labelledMessageText,
  lastUserIndex,
  lastUserMessage,
  leadingSystemCount,
  messageText,
  type Round,
  splitRounds,
  toolCallsOf,
  toolOutputText,
  toolResultsOf,
} from './message-utils.js';
export {
  fromOpenAIChat,
  OPENAI_CHAT_OPTIONS_KEY,
  type OpenAIChatMarker,
  toOpenAIChat,
} from './openai-chat.js';
export type {
  OpenAIChatAssistantMessage,
  OpenAIChatAudioPart,
  OpenAIChatFilePart,
  OpenAIChatImagePart,
  OpenAIChatMessage,
  OpenAIChatRefusalPart,
  OpenAIChatSystemMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIChatUserMessage,
  OpenAIChatUserPart,
} from './openai-chat-types.js';
export {
  fromOpenAIResponses,
  OPENAI_RESPONSES_ITEM_TYPES,
  OPENAI_RESPONSES_OPTIONS_KEY,
  type OpenAIResponsesBody,
  type OpenAIResponsesItem,
  type OpenAIResponsesMarker,
  type ToOpenAIResponsesOptions,
  toOpenAIResponses,
} from './openai-responses.js';
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
