import type { Tracer } from '@opentelemetry/api';

/**
 * How a call's scope (user, session and agent ids) shows in spans: not at all, as one hash of the
 * whole scope (`ctxmem.scope.hash`, the first 16 hex digits of its SHA-256: spans of one
 * conversation group together, and the ids stay out of the backend; a guessable id can still be
 * guessed from its hash), or as the ids themselves (`ctxmem.scope.user_id`, `ctxmem.scope.session_id`,
 * `ctxmem.scope.agent_id`).
 */
export type TelemetryScopeMode = 'none' | 'hashed' | 'plain';

/**
 * OpenTelemetry spans for ctxmem's work: one per prepare, compaction, summarizer run and its
 * model calls, memory search, memory flush and store operation, through `@opentelemetry/api`
 * only (the app registers the SDK and exporter it wants). Spans nest under the span active when
 * ctxmem is called, such as the AI SDK's model-call span. Off unless `enabled`.
 */
export interface TelemetryOptions {
  /** Record spans. Off, ctxmem makes no OpenTelemetry call at all. @default false */
  enabled?: boolean;
  /**
   * The tracer spans are made with.
   * @default trace.getTracer('ctxmem') on the globally registered tracer provider
   */
  tracer?: Tracer;
  /**
   * Put content in spans: the summarizer's prompt and answer (`gen_ai.input.messages`,
   * `gen_ai.output.messages`), the memory search's query (`gen_ai.retrieval.query.text`), error
   * messages and stacks. Off, spans carry counts, names and ids only, and an error is recorded by
   * its class (`error.type`): an error's message can quote the conversation.
   * @default false
   */
  recordContent?: boolean;
  /**
   * How a call's scope shows in spans (scope ids can be user ids): see `TelemetryScopeMode`.
   * @default 'none'
   */
  recordScope?: TelemetryScopeMode;
}
