/**
 * fast-check arbitraries for conversation histories, for property tests across ctxmem and its
 * adapters: valid core histories, OpenAI Chat Completions request histories, and AI SDK
 * `ModelMessage` histories.
 */
export { type ArbitraryMessagesOptions, arbitraryMessages } from './messages.js';
export { arbitraryModelMessages } from './model-messages.js';
export {
  type ArbitraryOpenAIChatOptions,
  arbitraryOpenAIChatMessages,
} from './openai-chat-messages.js';
export { arbitraryJsonValue, arbitraryText, arbitraryToolInput } from './values.js';
