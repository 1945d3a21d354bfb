import { createContextManager } from '../context/index.js';
import type { HistoryStore, Message, Scope, Summarizer } from '../contracts/index.js';

const topics = ['billing', 'deployment', 'testing', 'logging', 'caching', 'search', 'metrics'];

/**
 * A deterministic conversation for multi-instance tests: a system message, then a user and an
 * assistant message per turn (no ids, as model-message hosts send them), long enough that a
 * 6,000-token window compacts it several times over 30 turns.
 */
export function sharedConversation(turns = 30): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You plan a software project.' }];
  for (let index = 0; index < turns; index++) {
    const topic = topics[index % topics.length]!;
    const detail = Array.from(
      { length: 12 },
      (_, part) => `Point ${part} of turn ${index + 1} about ${topic} needs a decision.`,
    ).join(' ');
    messages.push(
      { role: 'user', content: `Turn ${index + 1}: how should we handle ${topic}? ${detail}` },
      {
        role: 'assistant',
        content: `For ${topic} in turn ${index + 1} we decided to keep option ${index}. ${detail}`,
      },
    );
  }
  return messages;
}

export interface PlaySharedConversationOptions {
  scope: Scope;
  /** @default 30 */
  turns?: number;
  /** @default 6000 */
  contextWindow?: number;
  /** @default the manager's default (extractive) */
  summarizer?: Summarizer;
}

/**
 * Serves every turn of `sharedConversation(turns)` with one context manager on `store`, as one
 * instance of an app that receives the whole conversation at each turn does; then once more with
 * the last reply. Several processes running it at once are instances answering every request
 * twice or more (retried or hedged requests), each at its own pace.
 */
export async function playSharedConversation(
  store: HistoryStore,
  { scope, turns = 30, contextWindow = 6_000, summarizer }: PlaySharedConversationOptions,
): Promise<void> {
  const manager = createContextManager({
    contextWindow,
    historyStore: store,
    ...(summarizer ? { summarizer } : {}),
  });
  const all = sharedConversation(turns);
  // Through each user message (odd positions), then the whole conversation.
  for (let end = 2; end <= all.length; end += 2) {
    await manager.prepare(structuredClone(all.slice(0, end)), { scope });
  }
  await manager.prepare(structuredClone(all), { scope });
}

export interface StoredConversationAudit {
  expected: number;
  stored: number;
  /** Stored messages beyond the first copy of each sent message. */
  duplicates: number;
  /** Sent messages the store does not hold. */
  losses: number;
  /** Whether the store holds exactly the sent messages, in order. */
  exact: boolean;
}

/** Compares what `store` holds for `scope` with `sharedConversation(turns)`. */
export async function auditStoredConversation(
  store: HistoryStore,
  scope: Scope,
  turns = 30,
): Promise<StoredConversationAudit> {
  const sent = sharedConversation(turns).map((message) => String(message.content));
  const stored = (await store.read(scope)).map((entry) => String(entry.message.content));
  const remaining = new Map<string, number>();
  for (const content of stored) remaining.set(content, (remaining.get(content) ?? 0) + 1);
  let losses = 0;
  for (const content of sent) {
    const left = remaining.get(content) ?? 0;
    if (left === 0) losses++;
    else remaining.set(content, left - 1);
  }
  const duplicates = [...remaining.values()].reduce((sum, left) => sum + left, 0);
  return {
    expected: sent.length,
    stored: stored.length,
    duplicates,
    losses,
    exact:
      stored.length === sent.length && stored.every((content, index) => content === sent[index]),
  };
}
