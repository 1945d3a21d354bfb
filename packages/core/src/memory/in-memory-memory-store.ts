import type { MemoryStore } from '../contracts/index.js';
import { scopeKey } from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import { type CardIndex, createCardIndex } from './card-index.js';
import { createCardIndexStore } from './card-index-store.js';
import type { MemoryStoreOptions } from './card-records.js';

/**
 * A memory store that lives in this process (lost on exit), with the same de-duplication and
 * supersession as the file store (`mergeCards`). Each scope keeps its card index, updated with
 * every change, so an add costs look-ups, not a pass over every card. Returned cards are copies.
 */
export function createInMemoryMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  requireOptions(options, 'createInMemoryMemoryStore');
  const scopes = new Map<string, CardIndex>();
  const { store } = createCardIndexStore(options, {
    locate: scopeKey,
    read: async (key) => scopes.get(key),
    async update(key, _scope, change) {
      const index = scopes.get(key) ?? createCardIndex();
      // All or nothing: a throwing merge leaves the index as it was.
      const { result, record } = change(index);
      if (record && !scopes.has(key)) scopes.set(key, index);
      return result;
    },
  });
  return store;
}
