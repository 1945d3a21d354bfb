/**
 * Fakes for the compression tests: a character-based token counter, a scripted summarizer, a
 * Map-based offload store and a strategy context over them (the messages come from
 * `test-messages.ts`). Not part of the public API.
 */
import { createHash } from 'node:crypto';
import type {
  CompressionContext,
  CompressionSettings,
  Message,
  OffloadRecord,
  OffloadStore,
  Scope,
  StructuredSummary,
  SummarizeRequest,
  SummarizeResult,
  Summarizer,
  TokenCounter,
} from '../contracts/index.js';
import { NotFoundError, SummarizerError } from '../errors/index.js';
import { messageText } from '../messages/index.js';
import { emptySections } from '../summarize/index.js';
import { resolveCompressionSettings } from './settings.js';

/** `ceil(chars / 4) + 4` per message, 85 per image or file, 3 per prompt. */
export function createFakeCounter(): TokenCounter {
  const countText = (text: string) => Math.ceil(text.length / 4);
  const countMessage = (message: Message) => {
    let binary = 0;
    if (typeof message.content !== 'string') {
      for (const part of message.content) {
        if (part.type === 'image' || part.type === 'file') binary += 85;
      }
    }
    return countText(messageText(message)) + 4 + binary;
  };
  return {
    name: 'fake',
    promptOverhead: 3,
    countText,
    countMessage,
    countMessages: (messages) => messages.reduce((sum, message) => sum + countMessage(message), 3),
  };
}

export interface ScriptedSummarizer extends Summarizer {
  readonly requests: SummarizeRequest[];
}

/**
 * A summarizer that records its requests and answers with one background bullet per call
 * (`Summarized N messages: <head of the first>`) added to the previous summary's bullets, or
 * throws when `fail` says so. Deterministic.
 */
export function createScriptedSummarizer({
  fail = () => false,
  fallback,
  cards = [],
}: {
  fail?: (request: SummarizeRequest, call: number) => boolean;
  fallback?: { from: string; reason: string };
  cards?: SummarizeResult['cards'];
} = {}): ScriptedSummarizer {
  const requests: SummarizeRequest[] = [];
  return {
    name: 'scripted',
    requests,
    async summarize(request) {
      requests.push(request);
      if (fail(request, requests.length)) {
        throw new SummarizerError({ message: 'scripted failure', summarizer: 'scripted' });
      }
      const sections = request.previousSummary
        ? structuredClone(request.previousSummary.sections)
        : emptySections();
      const first = request.messages[0];
      const head = first ? messageText(first).slice(0, 40).replace(/\s+/g, ' ') : '';
      sections.background.push(`Summarized ${request.messages.length} messages: ${head}`);
      if (sections.goal.length === 0) sections.goal.push('Help the user');
      const summary: StructuredSummary = { sections };
      return { summary, cards, calls: 1, ...(fallback ? { fallback } : {}) };
    },
  };
}

/** An offload store over a Map; ids are content hashes, values are stored as copies. */
export function createMapOffloadStore(): OffloadStore & { readonly size: number } {
  const records = new Map<string, OffloadRecord>();
  const key = (scope: Scope, id: string) => `${JSON.stringify(scope)}\u0000${id}`;
  return {
    get size() {
      return records.size;
    },
    async put(scope, message) {
      const id = `off_${createHash('sha256')
        .update(
          JSON.stringify(message, (_, value) => (value instanceof Uint8Array ? [...value] : value)),
        )
        .digest('hex')
        .slice(0, 16)}`;
      records.set(key(scope, id), {
        id,
        message: structuredClone(message),
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      return id;
    },
    async get(scope, id) {
      const record = records.get(key(scope, id));
      if (!record) throw new NotFoundError({ message: `No offloaded content ${id}`, id });
      return structuredClone(record);
    },
    async delete(scope, id) {
      records.delete(key(scope, id));
    },
  };
}

/** A strategy context over the fakes; `targetTokens` defaults to 1 (compress as far as possible). */
export function createTestContext(
  overrides: Partial<Omit<CompressionContext, 'settings'>> & {
    settings?: Partial<CompressionSettings>;
  } = {},
): CompressionContext & { offloadStore: ReturnType<typeof createMapOffloadStore> } {
  const { settings, ...rest } = overrides;
  return {
    counter: createFakeCounter(),
    targetTokens: 1,
    budgetTokens: 1_000_000,
    summarizer: createScriptedSummarizer(),
    offloadStore: createMapOffloadStore(),
    scope: { sessionId: 'test' },
    ...rest,
    settings: resolveCompressionSettings(settings),
  } as CompressionContext & { offloadStore: ReturnType<typeof createMapOffloadStore> };
}
