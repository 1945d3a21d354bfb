import type { HistoryStore, Scope, StoredMessage } from '../contracts/index.js';
import { normalizeTurns } from '../driver-kit/records.js';

/**
 * How many messages the scope's history holds: the store's `count` when it has that capability,
 * else the length of a full read.
 */
export function countHistory(store: HistoryStore, scope: Scope): Promise<number> {
  return store.count ? store.count(scope) : store.read(scope).then((messages) => messages.length);
}

/**
 * Whole turns by their 1-based numbers, in history order: the store's `readTurns` when it has that
 * capability, else a full read filtered to those turns.
 */
export async function readHistoryTurns(
  store: HistoryStore,
  scope: Scope,
  turns: readonly number[],
): Promise<StoredMessage[]> {
  if (store.readTurns) return store.readTurns(scope, turns);
  const wanted = new Set(normalizeTurns(turns));
  if (wanted.size === 0) return [];
  return (await store.read(scope)).filter((message) => wanted.has(message.turn));
}
