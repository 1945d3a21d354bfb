import { createHash } from 'node:crypto';
import type { Attributes, Span, SpanKind, SpanStatusCode, Tracer } from '@opentelemetry/api';
import { lazy } from '../cache/index.js';
import type { Scope } from '../contracts/index.js';
import { errorClassOf, InvalidArgumentError, SummarizerError } from '../errors/index.js';
import { scopeKey } from '../storage/index.js';
import type { TelemetryOptions, TelemetryScopeMode } from './telemetry-options.js';

/** The name of ctxmem's tracer on the global tracer provider. */
export const CTXMEM_TRACER_NAME = 'ctxmem';

const SCOPE_MODES: readonly TelemetryScopeMode[] = ['none', 'hashed', 'plain'];

// OpenTelemetry's enum values (fixed by the specification), written out: importing them would load
// the API's ~50 modules for every importer of core, telemetry on or off.
export const SPAN_KIND_INTERNAL: SpanKind.INTERNAL = 0;
export const SPAN_KIND_CLIENT: SpanKind.CLIENT = 2;
const SPAN_STATUS_ERROR: SpanStatusCode.ERROR = 2;

/** The API's `trace`, once `loadTraceApi` has imported it: later spans then start synchronously. */
let traceApi: typeof import('@opentelemetry/api').trace | undefined;
/** Imported when the first span of a manager without its own tracer starts. */
const loadTraceApi = lazy(() =>
  import('@opentelemetry/api').then((api) => {
    traceApi = api.trace;
  }),
);

/** What the instrumented parts use: spans made active while they run, and content-free errors. */
export interface Telemetry {
  readonly recordContent: boolean;
  /**
   * Runs `run` inside a new span, active while it runs (so spans started inside nest under it),
   * and ends the span when it settles; a thrown error is recorded on the span and thrown on.
   */
  span<Result>(
    name: string,
    attributes: Attributes,
    run: (span: Span) => Promise<Result>,
    kind?: SpanKind,
  ): Promise<Result>;
  /** The scope's attributes, as `recordScope` allows. */
  scopeAttributes(scope: Scope): Attributes;
  /** Marks the span failed with the error's class; its message and stack only with `recordContent`. */
  recordError(span: Span, error: unknown): void;
}

function checkOptions({ tracer, recordScope }: TelemetryOptions): void {
  if (recordScope !== undefined && !SCOPE_MODES.includes(recordScope)) {
    throw new InvalidArgumentError({
      message: `telemetry.recordScope must be one of ${SCOPE_MODES.join(', ')}, got ${String(recordScope)}`,
      argument: 'telemetry.recordScope',
    });
  }
  if (
    tracer !== undefined &&
    typeof (tracer as { startActiveSpan?: unknown } | null)?.startActiveSpan !== 'function'
  ) {
    throw new InvalidArgumentError({
      message: 'telemetry.tracer must be an OpenTelemetry Tracer (with startActiveSpan)',
      argument: 'telemetry.tracer',
    });
  }
}

/**
 * The telemetry of a manager, or `undefined` when it is off: the parts then run unwrapped, so off
 * costs one check per call and nothing else.
 */
export function createTelemetry(options: TelemetryOptions | undefined): Telemetry | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError({
      message: 'telemetry must be an object like { enabled: true }',
      argument: 'telemetry',
    });
  }
  checkOptions(options);
  const { enabled = false, recordContent = false, recordScope = 'none' } = options;
  if (!enabled) return undefined;
  // A proxy tracer, from the API as the first span starts: spans go to whichever provider is
  // registered when they start.
  let tracer: Tracer | undefined = options.tracer;
  const readyTracer = (): Tracer | undefined =>
    (tracer ??= traceApi?.getTracer(CTXMEM_TRACER_NAME));

  function recordError(span: Span, error: unknown): void {
    const type = errorClassOf(error);
    span.setAttribute('error.type', type);
    if (SummarizerError.isInstance(error))
      span.setAttribute('ctxmem.summarizer.failure', error.kind);
    if (recordContent && error instanceof Error) {
      span.recordException(error);
      span.setStatus({ code: SPAN_STATUS_ERROR, message: error.message });
      return;
    }
    span.addEvent('exception', { 'exception.type': type });
    span.setStatus({ code: SPAN_STATUS_ERROR });
  }

  function scopeAttributes(scope: Scope): Attributes {
    if (recordScope === 'none') return {};
    if (recordScope === 'hashed') {
      let key: string;
      try {
        key = scopeKey(scope);
      } catch {
        // A malformed scope fails the call itself, with its own typed error.
        return {};
      }
      return { 'ctxmem.scope.hash': createHash('sha256').update(key).digest('hex').slice(0, 16) };
    }
    return {
      ...(scope.userId === undefined ? {} : { 'ctxmem.scope.user_id': scope.userId }),
      ...(scope.sessionId === undefined ? {} : { 'ctxmem.scope.session_id': scope.sessionId }),
      ...(scope.agentId === undefined ? {} : { 'ctxmem.scope.agent_id': scope.agentId }),
    };
  }

  return {
    recordContent,
    scopeAttributes,
    recordError,
    span(name, attributes, run, kind = SPAN_KIND_INTERNAL) {
      const start = (ready: Tracer) =>
        ready.startActiveSpan(name, { attributes, kind }, async (span) => {
          try {
            return await run(span);
          } catch (error) {
            recordError(span, error);
            throw error;
          } finally {
            span.end();
          }
        });
      const ready = readyTracer();
      // The active context (the parent span) carries over the wait, as over any `await`.
      return ready ? start(ready) : loadTraceApi().then(() => start(readyTracer()!));
    },
  };
}
