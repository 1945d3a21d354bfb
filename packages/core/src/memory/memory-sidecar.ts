/**
 * Where a reader may keep files it derives from a scope's cards (memory search keeps its indexes
 * there), beside the cards themselves, so they live and are deleted with the store. Stores of
 * this package that keep files register a location; any other store has none, and readers keep
 * nothing.
 */
import type { MemoryStore, Scope } from '../contracts/index.js';

type SidecarLocator = (scope: Scope, name: string) => string;

const locators = new WeakMap<MemoryStore, SidecarLocator>();

/** Lets readers keep files named `name` for a scope of `store` (called by stores themselves). */
export function registerMemorySidecar(store: MemoryStore, locate: SidecarLocator): void {
  locators.set(store, locate);
}

/**
 * The path of the file `name` beside the cards of `scope`, or undefined when `store` keeps no
 * files. Checks the scope like the store's own calls do (required fields, safe ids).
 */
export function memorySidecarPath(
  store: MemoryStore,
  scope: Scope,
  name: string,
): string | undefined {
  return locators.get(store)?.(scope, name);
}
