import { createHash } from 'node:crypto';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Scope } from '../contracts/index.js';
import { InvalidArgumentError, ScopeRequiredError, StorageError } from '../errors/index.js';
import { assertSafeId } from './safe-id.js';

/** The fields a scope can have, in canonical order. */
export type ScopeField = 'userId' | 'agentId' | 'sessionId';

export const SCOPE_FIELDS: readonly ScopeField[] = ['userId', 'agentId', 'sessionId'];

const KEY_PREFIX: Readonly<Record<ScopeField, string>> = {
  userId: 'user',
  agentId: 'agent',
  sessionId: 'session',
};

/**
 * Validates a scope and returns a copy with only its set fields. Fields that are `undefined` count
 * as absent; every present field must pass `assertSafeId`; other properties are ignored.
 */
export function normalizeScope(scope: Scope): Scope {
  if (scope === null || typeof scope !== 'object') {
    throw new InvalidArgumentError({
      message: `A scope must be an object such as { userId: "alice" }; got ${scope === null ? 'null' : typeof scope}.`,
      argument: 'scope',
    });
  }
  const normalized: Scope = {};
  for (const field of SCOPE_FIELDS) {
    const value = scope[field];
    if (value === undefined) continue;
    assertSafeId(value, field);
    normalized[field] = value;
  }
  return normalized;
}

/**
 * Checks a scope an app passed to an adapter (an option, or what a scope function returned) and
 * returns it: an object whose scope fields, when set, are non-empty strings. `argument` names the
 * option in the error. The stores check the ids themselves (`normalizeScope`) on every operation.
 */
export function checkScope(scope: unknown, argument = 'scope'): Scope {
  if (typeof scope !== 'object' || scope === null || Array.isArray(scope)) {
    throw new InvalidArgumentError({
      message: `${argument} must be or return an object like { userId, sessionId }`,
      argument,
    });
  }
  for (const field of SCOPE_FIELDS) {
    const value = (scope as Scope)[field];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) {
      throw new InvalidArgumentError({
        message: `${argument}.${field} must be a non-empty string`,
        argument,
      });
    }
  }
  return scope as Scope;
}

/**
 * An adapter's scope option — a fixed scope, or a function of what the adapter is called with —
 * as one function returning the checked scope. A fixed scope is checked once, here, so a bad
 * option fails where it is given; a function's result is checked on every call.
 */
export function scopeResolver<Argument>(
  scope: Scope | ((argument: Argument) => Scope),
  argument = 'scope',
): (argument: Argument) => Scope {
  if (typeof scope === 'function') return (value) => checkScope(scope(value), argument);
  const fixed = checkScope(scope, argument);
  return () => fixed;
}

/**
 * The canonical string of a scope, used as a map key and by indexes (`MemoryIndexItem.scopeKey`).
 * Distinct scopes always give distinct keys: fields are URI-encoded, so no id can forge a
 * separator. `{}` (the single-user scope) is `global`.
 *
 * @example scopeKey({ sessionId: 's1', userId: 'alice' }) === 'user:alice|session:s1'
 */
export function scopeKey(scope: Scope): string {
  const normalized = normalizeScope(scope);
  const parts = SCOPE_FIELDS.filter((field) => normalized[field] !== undefined).map(
    (field) => `${KEY_PREFIX[field]}:${encodeURIComponent(normalized[field]!)}`,
  );
  return parts.length === 0 ? 'global' : parts.join('|');
}

/**
 * Throws `ScopeRequiredError` for the first of `required` that `scope` lacks. A multi-user store
 * calls this on every operation, so a missing `userId` is an error, never "every user's data".
 */
export function assertRequiredScope(scope: Scope, required: readonly ScopeField[]): void {
  for (const field of required) {
    const value = scope?.[field];
    if (typeof value !== 'string' || value.length === 0) {
      throw new ScopeRequiredError({
        message: `This store is configured to require ${field} in every scope, and the scope has none.`,
        field,
      });
    }
  }
}

/** Throws `InvalidArgumentError` unless `required` lists only scope fields. */
export function validateRequiredScope(required: unknown): readonly ScopeField[] {
  if (!Array.isArray(required) || required.some((field) => !SCOPE_FIELDS.includes(field))) {
    throw new InvalidArgumentError({
      message: `requiredScope must list some of ${SCOPE_FIELDS.join(', ')}; got ${JSON.stringify(required)}.`,
      argument: 'requiredScope',
    });
  }
  return required as ScopeField[];
}

const ABSENT_SEGMENT = '_';

/**
 * One folder name for an id: a readable slug plus a hash of the exact id. The hash keeps distinct
 * ids apart on case-insensitive file systems and for ids that only differ in characters the slug
 * drops; the slug is capped so that the name stays far below file-name limits.
 */
function folderSegment(id: string): string {
  const slug = id
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .slice(0, 40);
  const hash = createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 16);
  return `${slug}-${hash}`;
}

/**
 * The folder that holds a scope's files under `root`: `<root>/scopes/<user>/<agent>/<session>`,
 * with `_` for an absent field. Everything of one user lives under one folder (easy to export or
 * delete), and no id can name a path outside `root`.
 */
export function scopeFolder(root: string, scope: Scope): string {
  const normalized = normalizeScope(scope);
  const base = resolve(root);
  const segments = SCOPE_FIELDS.map((field) => {
    const value = normalized[field];
    return value === undefined ? ABSENT_SEGMENT : folderSegment(value);
  });
  const folder = join(base, 'scopes', ...segments);
  const inside = relative(base, folder);
  // Cannot happen with the segments above; kept as a last line of defence for path safety.
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new StorageError({ message: `Scope folder ${folder} escapes ${base}.`, path: folder });
  }
  return folder;
}
