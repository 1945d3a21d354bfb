/**
 * OpenAI Chat Completions messages ⇄ ctxmem messages.
 *
 * `toOpenAIChat(fromOpenAIChat(x))` gives back `x` (deep-equal) for every valid request history.
 * Whatever has no place in the core model is kept in `providerOptions.openaiChat` on the message or
 * part (see `OpenAIChatMarker`): the `developer` role, unknown fields, how `content` was shaped,
 * refusals, and tool-call `arguments` whose text is not the canonical `JSON.stringify` of their
 * value. Markers are hints: when a strategy rewrites a message, the output follows the new content
 * and ignores markers that no longer fit.
 */
export { fromOpenAIChat } from './from-openai-chat.js';
export { OPENAI_CHAT_OPTIONS_KEY, type OpenAIChatMarker } from './openai-chat-marker.js';
export { toOpenAIChat } from './to-openai-chat.js';
