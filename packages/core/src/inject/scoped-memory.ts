import type { MemoryStore, Scope } from '../contracts/index.js';
import { requireOptions } from '../validation/index.js';
import type { MemorySearcher } from './memory-injection.js';

/**
 * A memory store and search that file and find every card under `memoryScope(scope)` (see
 * `defaultMemoryScope`), so that the context manager, the memory tools and a retriever given the
 * conversation's scope all reach the same memories.
 */
export function scopedMemory(
  options: { store?: MemoryStore; search?: MemorySearcher },
  memoryScope: (scope: Scope) => Scope,
): { store?: MemoryStore; search?: MemorySearcher } {
  const { store, search } = requireOptions(options, 'scopedMemory');
  return {
    ...(store
      ? {
          store: {
            add: (scope, drafts) => store.add(memoryScope(scope), drafts),
            list: (scope, listOptions) => store.list(memoryScope(scope), listOptions),
            get: (scope, id) => store.get(memoryScope(scope), id),
            remove: (scope, ids) => store.remove(memoryScope(scope), ids),
          } satisfies MemoryStore,
        }
      : {}),
    ...(search
      ? {
          search: {
            search: (scope, query, searchOptions) =>
              search.search(memoryScope(scope), query, searchOptions),
          } satisfies MemorySearcher,
        }
      : {}),
  };
}
