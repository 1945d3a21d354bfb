/**
 * OpenAI Responses API request bodies (`instructions`, `input`) ⇄ ctxmem messages.
 *
 * The Responses API sends a conversation as a flat list of items: messages (`{ role, content }`,
 * with or without `type: 'message'`), `function_call`, `function_call_output` and `reasoning`
 * items; `input` may also be a plain string, and the system prompt may sit in the top-level
 * `instructions`. ctxmem groups them the way its message model does: `instructions` becomes a
 * leading system message, the assistant-side items between two user or tool turns (assistant
 * messages, reasoning, function calls) become one assistant message, and consecutive
 * `function_call_output` items become one tool message, so tool calls and their results pair up as
 * they do for every other format.
 *
 * What core has no field for is kept in `providerOptions.openaiResponses` (see
 * `OpenAIResponsesMarker`), so `toOpenAIResponses(fromOpenAIResponses(x))` gives back `x`
 * (deep-equal) for the items listed above.
 *
 * Reasoning items are opaque: their `encrypted_content` can only be read by OpenAI, and the API
 * only accepts them back unchanged. They become a `reasoning` part (its text is the reasoning
 * summary, so it is counted and shown) that carries the original item, which is written back
 * verbatim. They are never edited: compaction keeps them with their turn or drops them with it.
 * A reasoning part that did not come from a Responses body (no original item) is left out on
 * output, as the API cannot take reasoning it did not produce.
 *
 * Compaction items (server-side compaction) are opaque too: they become a `custom` part of kind
 * `openai.compaction` that carries the item and is written back verbatim.
 *
 * Item types that ctxmem cannot represent (built-in tool calls such as `web_search_call`,
 * `item_reference`, MCP and custom tool items…) are rejected with `UnsupportedFormatError`
 * naming the item, never dropped.
 */
export { fromOpenAIResponses } from './from-openai-responses.js';
export {
  OPENAI_RESPONSES_ITEM_TYPES,
  OPENAI_RESPONSES_OPTIONS_KEY,
  type OpenAIResponsesBody,
  type OpenAIResponsesItem,
  type OpenAIResponsesMarker,
} from './openai-responses-marker.js';
export { type ToOpenAIResponsesOptions, toOpenAIResponses } from './to-openai-responses.js';
