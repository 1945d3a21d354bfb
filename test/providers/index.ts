/**
 * Fake provider servers for wire tests: local HTTP fakes of Anthropic's Messages API, Gemini's
 * `generateContent` and OpenAI's Responses API that enforce each provider's documented request
 * rules, count tokens as the provider might, and answer with the provider's real error bodies.
 * Test support only (not part of any package); usable from every package's tests.
 */
export {
  ANTHROPIC_TOKENIZER,
  type AnthropicServerOptions,
  startAnthropicServer,
} from './anthropic-server.js';
export {
  GEMINI_TOKENIZER,
  type GeminiServer,
  type GeminiServerOptions,
  SKIP_THOUGHT_SIGNATURE,
  startGeminiServer,
} from './gemini-server.js';
export type { ProviderRejection, ProviderRequest } from './http-server.js';
export {
  KEPT_CHECK_TURNS,
  KEPT_CHECK_WINDOW,
  type KeptCheckFigures,
  keptCheckFigures,
  keptCheckQuestion,
  PLANTED_FACTS,
} from './kept-check.js';
export {
  OPENAI_TOKENIZER,
  type OpenAIResponsesServerOptions,
  startOpenAIResponsesServer,
} from './openai-responses-server.js';
export {
  createProviderTokenizer,
  type ProviderTokenizer,
  type ProviderTokenizerSettings,
} from './provider-tokens.js';
export { type FakeProviderServer, RuleBreak } from './rule-break.js';
export {
  createScriptedAgent,
  FACT_PATTERN,
  type ScriptedAgent,
  type ScriptedAgentOptions,
} from './scripted-agent.js';
export type {
  ScriptedHandler,
  ScriptedReply,
  ScriptedRequest,
  ScriptedToolCall,
} from './scripted-reply.js';
