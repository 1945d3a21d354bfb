import { InvalidArgumentError, normalizeScope, type Scope } from '@ctxmem/core';
import { z } from 'zod';

const id = z.string().min(1).max(200);

/**
 * The optional `scope` argument of every tool. Strict: a misspelt field (`user` for `userId`) is
 * an error, never a silent fall back to another scope.
 */
export const scopeArgument = z
  .strictObject({
    userId: id.optional().describe('Whose memory: the user.'),
    agentId: id.optional().describe('The agent, when agents keep separate memories.'),
    sessionId: id.optional().describe('The conversation, for its history and offloads.'),
  })
  .optional()
  .describe(
    'Whose memory to use, when the server serves more than one. Fields the server was started ' +
      'with are fixed; leave them out.',
  );

/** The scope a call uses, from the server's fixed fields and the call's own `scope` argument. */
export type ScopeResolver = (callScope: Scope | undefined) => Scope;

/**
 * Resolves each call's scope: the server's fields (flags, environment) plus the fields the call
 * names. A call may repeat a fixed field with the same value; another value is refused, so a
 * client never reads or writes outside the scope the server was started for. Ids are checked as
 * the stores check them (`normalizeScope`).
 */
export function createScopeResolver(
  fixed: Scope,
  sources: Partial<Record<keyof Scope, string>>,
): ScopeResolver {
  return (callScope) => {
    if (callScope === undefined) return fixed;
    const scope: Scope = { ...fixed };
    for (const field of ['userId', 'agentId', 'sessionId'] as const) {
      const value = callScope[field];
      if (value === undefined) continue;
      const own = fixed[field];
      if (own !== undefined && own !== value) {
        throw new InvalidArgumentError({
          message: `scope.${field} ${JSON.stringify(value)} is not allowed: this server serves ${field} ${JSON.stringify(own)} only (set by ${sources[field] ?? 'its start'})`,
          argument: `scope.${field}`,
        });
      }
      scope[field] = value;
    }
    return normalizeScope(scope);
  };
}

const PATH_FIELDS = { user: 'userId', agent: 'agentId', session: 'sessionId' } as const;

/**
 * The scope of a resource path `user/<id>/agent/<id>/session/<id>` (any of the pairs, each once;
 * ids URI-encoded), as the `ctxmem://memory/{+scope}/MEMORY.md` template names it.
 */
export function scopeFromPath(path: string): Scope {
  const segments = path.split('/');
  const scope: Scope = {};
  const fail = (reason: string) =>
    new InvalidArgumentError({
      message: `the scope in a resource address is user/<id>, agent/<id> and session/<id> pairs (such as user/alice/session/s1): ${reason}`,
      argument: 'uri',
    });
  if (segments.length % 2 !== 0) throw fail(`"${path}" has a name without an id`);
  for (let position = 0; position < segments.length; position += 2) {
    const name = segments[position]!;
    const field = PATH_FIELDS[name as keyof typeof PATH_FIELDS];
    if (field === undefined || !Object.hasOwn(PATH_FIELDS, name)) {
      throw fail(`unknown name "${name}"`);
    }
    if (scope[field] !== undefined) throw fail(`"${name}" appears twice`);
    let value: string;
    try {
      value = decodeURIComponent(segments[position + 1]!);
    } catch {
      throw fail(`the id after "${name}" is not valid percent-encoding`);
    }
    scope[field] = value;
  }
  return scope;
}

/** The resource path of a scope (the inverse of `scopeFromPath`), or `undefined` for `{}`. */
export function scopePath(scope: Scope): string | undefined {
  const parts: string[] = [];
  for (const [name, field] of Object.entries(PATH_FIELDS)) {
    const value = scope[field];
    if (value !== undefined) parts.push(name, encodeURIComponent(value));
  }
  return parts.length === 0 ? undefined : parts.join('/');
}
