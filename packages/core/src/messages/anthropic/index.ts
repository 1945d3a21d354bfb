/**
 * Anthropic Messages request bodies ⇄ ctxmem messages.
 *
 * Anthropic keeps the system prompt at the top level of the body and tool results inside user
 * messages; ctxmem keeps both as messages (leading `system` messages, `tool` messages). The
 * converters map between the two and keep every block field ctxmem has no place for (for example
 * `cache_control` or `citations`) in `providerOptions.anthropic.extra`, so a body read and written
 * back unchanged is the same JSON. A `compaction` block (server-side compaction) becomes an
 * opaque `custom` part that holds the block and is written back verbatim. Other block types ctxmem
 * cannot represent are rejected with `UnsupportedFormatError` naming the block, never dropped.
 */
export { ANTHROPIC_OPTIONS_KEY, type AnthropicMessagesBody } from './anthropic-marker.js';
export { fromAnthropicMessages } from './from-anthropic.js';
export { toAnthropicMessages } from './to-anthropic.js';
