import { type Clock, normalizeScope, type Scope, type ScopeField, scopeKey } from '@ctxmem/core';
import { assertRequiredScope } from '@ctxmem/core/driver-kit';
import type { PostgresPool } from './connection.js';

/** What every store of one `createPostgresStores` call shares. */
export interface StoreContext {
  /** The pool, opened on first use. */
  pool: () => Promise<PostgresPool>;
  /** The quoted schema name, ready for SQL. */
  schema: string;
  required: readonly ScopeField[];
  clock: Clock;
}

/** Checks the scope (required fields, safe ids) and returns its key and normalized form. */
export function resolveScope(context: StoreContext, scope: Scope): { key: string; scope: Scope } {
  assertRequiredScope(scope, context.required);
  const normalized = normalizeScope(scope);
  return { key: scopeKey(normalized), scope: normalized };
}
