import type { Attributes, Span } from '@opentelemetry/api';
import type {
  CompleteFn,
  CompleteRequest,
  CompleteResult,
  HistoryStore,
  LeaseStore,
  MemoryStore,
  OffloadStore,
  Scope,
  Summarizer,
} from '../contracts/index.js';
import type { MemorySearcher, MemorySearchHit } from '../inject/index.js';
import { SPAN_KIND_CLIENT, type Telemetry } from './create-telemetry.js';

type Method = (...args: never[]) => unknown;

/**
 * `target` with the named methods replaced by `wrap(method, name)`; every other property is read
 * from `target` itself (methods bound to it, so class fields keep working). A proxy, so optional
 * capabilities (`readTurns`, `count`) stay present or absent as they were.
 */
function wrapMethods<Target extends object>(
  target: Target,
  names: readonly string[],
  wrap: (method: Method, name: string) => Method,
): Target {
  const cache = new Map<PropertyKey, { original: unknown; wrapped: unknown }>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      const known = cache.get(property);
      if (known?.original === value) return known.wrapped;
      const bound = (value as Method).bind(object) as Method;
      const wrapped =
        typeof property === 'string' && names.includes(property) ? wrap(bound, property) : bound;
      cache.set(property, { original: value, wrapped });
      return wrapped;
    },
  });
}

const STORE_METHODS = {
  history: ['append', 'read', 'readTurns', 'count', 'getState', 'setState', 'clear'],
  offload: ['put', 'get', 'delete'],
  memory: ['add', 'list', 'get', 'remove'],
  lease: ['tryAcquire'],
} as const;

export type TracedStoreKind = keyof typeof STORE_METHODS;

function isScope(value: unknown): value is Scope {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A store whose operations each run in a span (`ctxmem.history_store.append`, …) with the store's
 * kind, the operation, the scope as `recordScope` allows, and how many records it returned; never
 * the records themselves.
 */
export function traceStore<Store extends HistoryStore | OffloadStore | MemoryStore | LeaseStore>(
  telemetry: Telemetry,
  kind: TracedStoreKind,
  store: Store,
): Store {
  return wrapMethods(store, STORE_METHODS[kind], (method, operation) => {
    const name = `ctxmem.${kind}_store.${operation}`;
    return ((...args: never[]) => {
      const [scope] = args as unknown[];
      return telemetry.span(
        name,
        {
          'ctxmem.store.kind': kind,
          'ctxmem.store.operation': operation,
          ...(isScope(scope) ? telemetry.scopeAttributes(scope) : {}),
        },
        async (span) => {
          const result = await method(...args);
          if (Array.isArray(result)) span.setAttribute('ctxmem.store.records', result.length);
          // A lease is taken or not: which, and of which job, says why a compaction waited.
          if (kind === 'lease') {
            const [, job] = args as unknown[];
            if (typeof job === 'string') span.setAttribute('ctxmem.lease.name', job);
            span.setAttribute('ctxmem.lease.acquired', result !== undefined);
          }
          return result;
        },
      );
    }) as Method;
  });
}

/** The GenAI semantic conventions' `retrieval` data source of ctxmem's memory search. */
export const MEMORY_DATA_SOURCE = 'ctxmem.memory';

/**
 * A memory search whose searches each run in a GenAI `retrieval` span: the hits as ids and scores
 * (`gen_ai.retrieval.documents`), the query text only with `recordContent`.
 */
export function traceSearch(telemetry: Telemetry, search: MemorySearcher): MemorySearcher {
  return wrapMethods(search, ['search'], (method) => {
    return ((scope: Scope, query: string, options?: Parameters<MemorySearcher['search']>[2]) =>
      telemetry.span(
        `retrieval ${MEMORY_DATA_SOURCE}`,
        {
          'gen_ai.operation.name': 'retrieval',
          'gen_ai.data_source.id': MEMORY_DATA_SOURCE,
          ...(options?.topK === undefined ? {} : { 'ctxmem.search.top_k': options.topK }),
          ...(options?.minScore === undefined
            ? {}
            : { 'ctxmem.search.min_score': options.minScore }),
          ...(telemetry.recordContent ? { 'gen_ai.retrieval.query.text': query } : {}),
          ...(isScope(scope) ? telemetry.scopeAttributes(scope) : {}),
        },
        async (span) => {
          const hits = (await (method as MemorySearcher['search'])(
            scope,
            query,
            options,
          )) as MemorySearchHit[];
          if (!span.isRecording()) return hits;
          span.setAttributes({
            'ctxmem.search.hits': hits.length,
            // Card ids and scores: which memories were found, never what they say.
            'gen_ai.retrieval.documents': JSON.stringify(
              hits.map((hit) => ({ id: hit.card.id, score: hit.score })),
            ),
          });
          return hits;
        },
      )) as Method;
  });
}

/**
 * A summarizer whose runs each get a `ctxmem.summarize` span: how many messages went in, the
 * model calls made, the cards extracted, and, when a fallback wrote the summary, who failed and
 * how (`ctxmem.summarizer.fallback.*`, a kind and an error class, never the reason in words).
 */
export function traceSummarizer(telemetry: Telemetry, summarizer: Summarizer): Summarizer {
  return {
    name: summarizer.name,
    summarize: (request) =>
      telemetry.span(
        'ctxmem.summarize',
        {
          'ctxmem.summarizer.name': summarizer.name,
          'ctxmem.summarize.messages': request.messages.length,
          'ctxmem.summary.max_tokens': request.maxTokens,
          'ctxmem.summarize.previous_summary': request.previousSummary !== undefined,
        },
        async (span) => {
          const result = await summarizer.summarize(request);
          span.setAttributes({
            'ctxmem.summarizer.calls': result.calls,
            'ctxmem.memories.extracted': result.cards.length,
          });
          const { fallback } = result;
          if (fallback) {
            span.setAttributes({
              'ctxmem.summarizer.fallback.from': fallback.from,
              ...(fallback.kind ? { 'ctxmem.summarizer.fallback.kind': fallback.kind } : {}),
              ...(fallback.errorClass
                ? { 'ctxmem.summarizer.fallback.error_class': fallback.errorClass }
                : {}),
            });
          }
          return result;
        },
      ),
  };
}

/** What ctxmem asks a model for: the summary of old rounds, or the notes of a memory flush. */
export type ModelCallPurpose = 'summarize' | 'memory-flush';

function textOf(answer: unknown): Partial<CompleteResult> {
  if (typeof answer === 'string') return { text: answer };
  return typeof answer === 'object' && answer !== null ? (answer as Partial<CompleteResult>) : {};
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function contentAttributes(request: CompleteRequest): Attributes {
  return {
    ...(request.system
      ? {
          'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: request.system }]),
        }
      : {}),
    'gen_ai.input.messages': JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: request.prompt }] },
    ]),
  };
}

function recordAnswer(span: Span, answer: Partial<CompleteResult>, recordContent: boolean): void {
  const model = typeof answer.model === 'string' && answer.model !== '' ? answer.model : undefined;
  if (model) {
    span.setAttribute('gen_ai.request.model', model);
    span.updateName(`chat ${model}`);
  }
  const inputTokens = count(answer.usage?.inputTokens);
  const outputTokens = count(answer.usage?.outputTokens);
  if (inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', inputTokens);
  if (outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', outputTokens);
  const finishReason = typeof answer.finishReason === 'string' ? answer.finishReason : undefined;
  if (finishReason) span.setAttribute('gen_ai.response.finish_reasons', [finishReason]);
  if (recordContent && typeof answer.text === 'string') {
    span.setAttribute(
      'gen_ai.output.messages',
      JSON.stringify([
        {
          role: 'assistant',
          parts: [{ type: 'text', content: answer.text }],
          finish_reason: finishReason ?? 'stop',
        },
      ]),
    );
  }
}

/**
 * A model call (the summarizer's, the memory flush's) in a GenAI `chat` span, named
 * `chat <model>` once the adapter's answer names the model: the output limit, the finish reason
 * and the provider's token counts; the prompt and the answer only with `recordContent`.
 */
export function traceComplete(
  telemetry: Telemetry,
  complete: CompleteFn,
  purpose: ModelCallPurpose,
): CompleteFn {
  return (request) =>
    telemetry.span(
      'chat',
      {
        'gen_ai.operation.name': 'chat',
        'ctxmem.operation': purpose,
        'gen_ai.output.type': request.responseFormat === 'json' ? 'json' : 'text',
        ...(request.maxOutputTokens === undefined
          ? {}
          : { 'gen_ai.request.max_tokens': request.maxOutputTokens }),
        ...(telemetry.recordContent ? contentAttributes(request) : {}),
      },
      async (span) => {
        const answer = await complete(request);
        if (span.isRecording()) recordAnswer(span, textOf(answer), telemetry.recordContent);
        return answer;
      },
      SPAN_KIND_CLIENT,
    );
}
