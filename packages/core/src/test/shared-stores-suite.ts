import { describe, expect, it } from 'vitest';
import type {
  CompleteHistoryStore,
  LeaseStore,
  MemoryStore,
  OffloadStore,
} from '../contracts/index.js';
import type { ScopeField } from '../storage/index.js';
import { createFakeClock, type FakeClock } from './clock.js';
import { testHistoryStore } from './history-store-suite.js';
import { type NativeKeywordSearch, testKeywordSearch } from './keyword-search-suite.js';
import { testLeaseStore } from './lease-suite.js';
import { testMemoryStoreInstances } from './memory-store-instances.js';
import { testMemoryStore } from './memory-store-suite.js';
import { testMemoryToolBackend } from './memory-tool-suite.js';
import { testOffloadStore } from './offload-store-suite.js';

/** The stores of one instance of a shared-store driver (PostgreSQL, Redis, …). */
export interface SharedStores {
  history: CompleteHistoryStore;
  offload: OffloadStore;
  memory: MemoryStore;
  leases: LeaseStore;
}

export interface SharedStoresFactories<Stores extends SharedStores> {
  /** Fresh stores over a new, empty namespace, for one test. */
  stores: (options: { clock: FakeClock; requiredScope?: ScopeField[] }) => Promise<Stores>;
  /** `count` sets of stores over one new namespace, as `count` application instances have. */
  instances: (count: number) => Promise<Stores[]>;
  /** The driver's own keyword search, when it has one. @default undefined (core's BM25 only) */
  searchKeywords?: (stores: Stores) => NativeKeywordSearch;
}

/**
 * Every conformance suite a shared-store driver runs: history, offloads, memory cards, keyword
 * search, leases, memory cards across instances, the memory tool's files on the driver's cards and
 * leases, and history clears racing appends.
 */
export function testSharedStores<Stores extends SharedStores>(
  name: string,
  { stores, instances, searchKeywords }: SharedStoresFactories<Stores>,
): void {
  testHistoryStore(name, async (options) => (await stores(options)).history);
  testOffloadStore(name, async (options) => (await stores(options)).offload);
  testMemoryStore(name, async (options) => (await stores(options)).memory);
  testKeywordSearch(name, async (options) => {
    const opened = await stores(options);
    return searchKeywords
      ? { store: opened.memory, searchKeywords: searchKeywords(opened) }
      : { store: opened.memory };
  });
  testLeaseStore(name, async () => {
    const [first, second] = await instances(2);
    return [first!.leases, second!.leases] as const;
  });
  testMemoryStoreInstances(name, async (count) =>
    (await instances(count)).map((opened) => opened.memory),
  );
  testMemoryToolBackend(name, {
    stores: async () => {
      const { memory, leases } = await stores({ clock: createFakeClock() });
      return { memory, leases };
    },
    instances: async (count) =>
      (await instances(count)).map(({ memory, leases }) => ({ memory, leases })),
  });
  describe(`Shared stores: ${name}`, () => {
    it('keeps indexes gap-free from 0 when clears race with appends', async () => {
      const { history } = await stores({ clock: createFakeClock() });
      const scope = { userId: 'alice', sessionId: 's1' };
      const turn = [
        { role: 'user' as const, content: 'question' },
        { role: 'assistant' as const, content: 'answer' },
      ];
      await Promise.all(
        Array.from({ length: 30 }, (_, step) =>
          step % 5 === 4 ? history.clear(scope) : history.append(scope, turn),
        ),
      );
      const all = await history.read(scope);
      expect(all.map((entry) => entry.index)).toEqual(all.map((_, index) => index));
      expect(all.map((entry) => entry.turn)).toEqual(
        all.map((_, index) => 1 + Math.floor(index / 2)),
      );
      expect(await history.count(scope)).toBe(all.length);
      expect((await history.append(scope, turn))[0]!.index).toBe(all.length);
    });
  });
}
