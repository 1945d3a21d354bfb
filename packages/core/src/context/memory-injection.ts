import type {
  EventListener,
  MemoryCardDraft,
  Message,
  Scope,
  TokenCounter,
} from '../contracts/index.js';
import { ScopeRequiredError } from '../errors/index.js';
import { placeMemoryInjection, renderMemoryInjection } from '../inject/index.js';
import { lastUserMessage, messageText } from '../messages/index.js';
import type {
  MemoryOptions,
  RelevantMemories,
  RelevantMemoriesOptions,
} from './context-manager-types.js';
import { errorText, withTimeout } from './with-timeout.js';

/**
 * The default scope of long-term memories: a signed-in user's memories follow them from chat to
 * chat (the session is dropped), while an anonymous session keeps its memories to itself.
 */
export function defaultMemoryScope(scope: Scope): Scope {
  if (scope.userId === undefined) return scope;
  const { sessionId: _sessionId, ...userScope } = scope;
  return userScope;
}

/** Memories found for a query: the rendered block and the cards in it with their scores. */
export interface FoundMemories {
  text: string;
  cards: Array<{ id: string; score: number }>;
}

/** The prompt after injection, with what was injected. */
export interface InjectedPrompt {
  messages: Message[];
  tokens: number;
  /** The injected cards, best first; empty when nothing was injected. */
  cards: Array<{ id: string; score: number }>;
}

export interface MemoryInjectionOptions {
  /** @default undefined (no memory search, no card store) */
  memory?: MemoryOptions;
  counter: TokenCounter;
  /** @default undefined */
  onEvent?: EventListener;
}

/**
 * The manager's long-term memory side: finds memories relevant to the newest user message and
 * places them before it, and stores the cards that summaries and flushes extract. Searches are
 * bounded by a timeout and never fail the user's turn (a missing required scope excepted).
 */
export function createMemoryInjection({ memory, counter, onEvent }: MemoryInjectionOptions) {
  const injectEnabled = memory?.search !== undefined && memory.inject !== false;
  const memoryScope = memory?.scope ?? defaultMemoryScope;
  const defaultMaxTokens = memory?.maxTokens ?? 800;

  async function findMemories(
    scope: Scope,
    query: string,
    { maxTokens = defaultMaxTokens, abortSignal }: RelevantMemoriesOptions = {},
  ): Promise<FoundMemories | undefined> {
    if (!memory?.search || query.trim() === '' || maxTokens <= 0) return undefined;
    const search = memory.search;
    const topK = memory.topK ?? 5;
    try {
      const hits = await withTimeout(
        (searchSignal) =>
          search.search(memoryScope(scope), query, {
            topK,
            minScore: memory.minScore ?? 0.1,
            abortSignal: searchSignal,
          }),
        memory.searchTimeoutMs ?? 2_000,
        abortSignal,
      );
      const rendered = renderMemoryInjection(hits, { counter, maxTokens, topK });
      if (!rendered) return undefined;
      const scores = new Map(hits.map((hit) => [hit.card.id, hit.score]));
      return {
        text: rendered.text,
        cards: rendered.cards.map((card) => ({ id: card.id, score: scores.get(card.id) ?? 0 })),
      };
    } catch (error) {
      onEvent?.({ type: 'memory-injection', scope, cards: 0, tokens: 0 });
      // A scope the store requires but the call lacks is a configuration error, not a miss.
      if (ScopeRequiredError.isInstance(error)) throw error;
      return undefined;
    }
  }

  async function relevantMemories(
    scope: Scope,
    query: string,
    options: RelevantMemoriesOptions = {},
  ): Promise<RelevantMemories | undefined> {
    const found = await findMemories(scope, query, options);
    return found && { text: found.text, cards: found.cards.length };
  }

  /** Places the memories relevant to the newest user message before it, within the budget's room. */
  async function inject(
    scope: Scope,
    messages: Message[],
    tokens: number,
    budgetTokens: number,
    abortSignal?: AbortSignal,
  ): Promise<InjectedPrompt> {
    const unchanged = { messages, tokens, cards: [] };
    if (!injectEnabled) return unchanged;
    const newest = lastUserMessage(messages);
    if (!newest) return unchanged;
    const room = Math.min(defaultMaxTokens, budgetTokens - tokens);
    // The injected message costs its text plus the per-message overhead.
    const maxTokens = room - counter.countMessage({ role: 'user', content: '' });
    const found = await findMemories(scope, messageText(newest), {
      maxTokens,
      ...(abortSignal ? { abortSignal } : {}),
    });
    if (!found) return unchanged;
    const injected = placeMemoryInjection(messages, found.text);
    const injectedTokens = counter.countMessages(injected);
    if (injectedTokens > budgetTokens) return unchanged;
    onEvent?.({
      type: 'memory-injection',
      scope,
      cards: found.cards.length,
      tokens: injectedTokens - tokens,
    });
    return { messages: injected, tokens: injectedTokens, cards: found.cards };
  }

  /** Stores extracted cards in the memory scope; a failure is an event, never a failed turn. */
  async function storeCards(scope: Scope, cards: readonly MemoryCardDraft[]): Promise<void> {
    if (!memory?.store || cards.length === 0) return;
    try {
      await memory.store.add(memoryScope(scope), cards);
    } catch (error) {
      // Losing extracted cards must not fail the user's turn; the history itself is intact.
      onEvent?.({ type: 'memory-flush', scope, stored: 0, skipped: true, error: errorText(error) });
    }
  }

  return { memoryScope, relevantMemories, inject, storeCards };
}

export type MemoryInjection = ReturnType<typeof createMemoryInjection>;
