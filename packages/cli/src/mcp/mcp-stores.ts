import {
  createFileHistoryStore,
  createFileMemoryStore,
  createFileOffloadStore,
  type HistoryStore,
  type MemoryStore,
  type OffloadStore,
} from '@ctxmem/core';
import { openDriverStores, redactUrl, storeDriverOf } from '../inspector/open-session-store.js';
import { reportCorruption, storeRoot } from '../memory/memory-store.js';
import type { CliContext } from '../run-cli.js';

/** The stores the MCP server serves: the cards, the history and the offloads of one place. */
export interface McpStores {
  memory: MemoryStore;
  history: HistoryStore;
  offload: OffloadStore;
  /** The folder, or the URL without its password. */
  displayName: string;
  close(): Promise<void>;
}

/**
 * Opens `--store`: a folder holds the file stores side by side (each creates its files on its
 * first write), a `postgres://…` or `redis://…` URL the driver's stores. The
 * PostgreSQL schema is created or upgraded here (idempotent), since the server writes.
 */
export async function openMcpStores(
  store: string,
  context: CliContext,
  importModule?: (name: string) => Promise<unknown>,
): Promise<McpStores> {
  const driverName = storeDriverOf(store);
  if (driverName !== undefined) {
    const stores = await openDriverStores(driverName, store, importModule);
    try {
      await stores.migrate?.();
    } catch (error) {
      await stores.close().catch(() => undefined);
      throw error;
    }
    return {
      memory: stores.memory,
      history: stores.history,
      offload: stores.offload,
      displayName: redactUrl(store),
      close: () => stores.close(),
    };
  }
  const root = await storeRoot({ store, scope: {} }, context, { mustExist: false });
  const report = (records: string) => reportCorruption(context, { command: 'mcp', records });
  return {
    memory: createFileMemoryStore({ root, onCorruption: report('cards') }),
    history: createFileHistoryStore({ root, onCorruption: report('messages') }),
    offload: createFileOffloadStore({ root, onCorruption: report('payloads') }),
    displayName: store,
    close: async () => undefined,
  };
}
