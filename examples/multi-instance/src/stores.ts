import type { HistoryStore, LeaseStore, MemoryStore, OffloadStore } from '@ctxmem/core';
import { createPostgresStores } from '@ctxmem/postgres';
import { createRedisStores } from '@ctxmem/redis';

/** Which shared store the instances use. */
export type StoreKind = 'postgres' | 'redis';

export interface SharedStores {
  history: HistoryStore;
  offload: OffloadStore;
  memory: MemoryStore;
  leases: LeaseStore;
  close(): Promise<void>;
}

/**
 * The stores every instance opens: PostgreSQL (schema `namespace`, migrated here) or Redis (key
 * prefix `namespace`), at `url`.
 */
export async function openStores(
  kind: StoreKind,
  url: string,
  namespace: string,
): Promise<SharedStores> {
  if (kind === 'postgres') {
    const stores = createPostgresStores({ connectionString: url, schema: namespace });
    await stores.migrate();
    return stores;
  }
  return createRedisStores({ url, prefix: namespace });
}

/** The URL of `kind` from the environment, or a message saying how to get one. */
export function storeUrl(kind: StoreKind): string {
  const variable = kind === 'postgres' ? 'CTXMEM_POSTGRES_URL' : 'CTXMEM_REDIS_URL';
  const url = process.env[variable];
  if (!url) {
    throw new Error(
      `Set ${variable}: \`bash scripts/test-services.sh start && source .cache/test-services.env\` starts local servers.`,
    );
  }
  return url;
}
