import {
  type Clock,
  InvalidArgumentError,
  normalizeScope,
  type Scope,
  type ScopeField,
  scopeKey,
} from '@ctxmem/core';
import { assertRequiredScope } from '@ctxmem/core/driver-kit';
import type { RedisCommandClient } from './connection.js';

/** Expiry of what the stores write, in seconds; refreshed whenever the data is used. */
export interface RedisTtl {
  /**
   * History, its turn index and the working state of a scope, refreshed together by every call
   * on the scope. @default no expiry
   */
  history?: number;
  /** Each offloaded payload, refreshed when it is read or put again. @default no expiry */
  offload?: number;
  /** A scope's memory cards. @default no expiry */
  memory?: number;
}

/** What every store of one `createRedisStores` call shares. */
export interface StoreContext {
  client: () => Promise<RedisCommandClient>;
  prefix: string;
  required: readonly ScopeField[];
  clock: Clock;
  ttl: Required<RedisTtl>;
}

/**
 * Resolves a scope to the start of its keys: `<prefix>:{<scope key>}`. The braces are a Redis
 * Cluster hash tag, so every key of one scope lives on one node and a script can touch them all.
 * Scope keys are URI-encoded, so they never contain a brace.
 */
export function resolveScope(
  context: StoreContext,
  scope: Scope,
): { key: string; scope: Scope; base: string } {
  assertRequiredScope(scope, context.required);
  const normalized = normalizeScope(scope);
  const key = scopeKey(normalized);
  return { key, scope: normalized, base: `${context.prefix}:{${key}}` };
}

function checkSeconds(value: unknown, argument: string): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError({
      message: `${argument} must be a whole number of seconds >= 1; got ${String(value)}.`,
      argument,
    });
  }
  return value;
}

/** Validates `ttlSeconds`: one number for everything, or one per kind of data (0 = no expiry). */
export function resolveTtl(ttlSeconds: number | RedisTtl | undefined): Required<RedisTtl> {
  if (typeof ttlSeconds === 'number' || ttlSeconds === undefined) {
    const seconds = checkSeconds(ttlSeconds, 'ttlSeconds');
    return { history: seconds, offload: seconds, memory: seconds };
  }
  if (ttlSeconds === null || typeof ttlSeconds !== 'object') {
    throw new InvalidArgumentError({
      message: 'ttlSeconds must be a number of seconds or { history, offload, memory }.',
      argument: 'ttlSeconds',
    });
  }
  return {
    history: checkSeconds(ttlSeconds.history, 'ttlSeconds.history'),
    offload: checkSeconds(ttlSeconds.offload, 'ttlSeconds.offload'),
    memory: checkSeconds(ttlSeconds.memory, 'ttlSeconds.memory'),
  };
}

/** Validates the key prefix: no braces (they would break the hash tag), no spaces. */
export function checkPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string' || prefix === '' || /[{}\s]/u.test(prefix)) {
    throw new InvalidArgumentError({
      message: `prefix must be a non-empty string without braces or whitespace; got ${JSON.stringify(prefix)}.`,
      argument: 'prefix',
    });
  }
  return prefix;
}
