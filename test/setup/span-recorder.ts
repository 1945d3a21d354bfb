/**
 * Test support: an OpenTelemetry SDK recording every finished span in memory, registered as the
 * global tracer provider with the AsyncLocalStorage context manager (what a Node app registers
 * through `@opentelemetry/sdk-node`), so spans nest across `await`s. Registered with this
 * repository's `@opentelemetry/api` (1.10): a copy with a lower minor version (`@ai-sdk/otel`
 * brings 1.9) may read a newer global registration but not the other way round (see
 * `@opentelemetry/api`'s `internal/semver`), so the newest copy must register.
 */
import { type Attributes, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export interface SpanRecorder {
  /** The finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** The finished spans named `name` (or whose name starts with `name` when it ends with `*`). */
  named(name: string): ReadableSpan[];
  /** The span's parent among the finished spans. */
  parentOf(span: ReadableSpan): ReadableSpan | undefined;
  /** Whether `span` has `ancestor` above it. */
  isUnder(span: ReadableSpan, ancestor: ReadableSpan): boolean;
  /**
   * Every string in the attributes, event attributes and status messages of the spans (those of
   * one tracer when `scope` names it): what could leak.
   */
  recordedTexts(scope?: string): string[];
  reset(): void;
  /** Unregisters the provider and the context manager. */
  shutdown(): Promise<void>;
}

export function registerSpanRecorder(): SpanRecorder {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  trace.disable();
  context.disable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);

  const spans = () => exporter.getFinishedSpans();
  const byId = () => new Map(spans().map((span) => [span.spanContext().spanId, span]));
  const parentOf = (span: ReadableSpan) => {
    const parent = span.parentSpanContext?.spanId;
    return parent === undefined ? undefined : byId().get(parent);
  };
  const texts = (attributes: Attributes | undefined) =>
    Object.values(attributes ?? {}).flatMap((value) =>
      Array.isArray(value)
        ? value.filter((item): item is string => typeof item === 'string')
        : typeof value === 'string'
          ? [value]
          : [],
    );

  return {
    spans,
    named: (name) =>
      spans().filter((span) =>
        name.endsWith('*') ? span.name.startsWith(name.slice(0, -1)) : span.name === name,
      ),
    parentOf,
    isUnder(span, ancestor) {
      const spansById = byId();
      let current = span.parentSpanContext?.spanId;
      for (let depth = 0; current !== undefined && depth < 64; depth++) {
        if (current === ancestor.spanContext().spanId) return true;
        current = spansById.get(current)?.parentSpanContext?.spanId;
      }
      return false;
    },
    recordedTexts: (scope) =>
      spans()
        .filter((span) => scope === undefined || span.instrumentationScope.name === scope)
        .flatMap((span) => [
          span.name,
          ...texts(span.attributes),
          ...span.events.flatMap((event) => [event.name, ...texts(event.attributes)]),
          ...(span.status.message ? [span.status.message] : []),
        ]),
    reset: () => exporter.reset(),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
