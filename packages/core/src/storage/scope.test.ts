import { isAbsolute, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../contracts/index.js';
import { InvalidArgumentError, InvalidIdError, ScopeRequiredError } from '../errors/index.js';
import {
  assertRequiredScope,
  checkScope,
  isSafeId,
  normalizeScope,
  scopeFolder,
  scopeKey,
  scopeResolver,
  validateRequiredScope,
} from './index.js';

const safeId = fc.string({ minLength: 1, maxLength: 30 }).filter(isSafeId);
const scopeArbitrary = fc.record(
  { userId: safeId, agentId: safeId, sessionId: safeId },
  { requiredKeys: [] },
);

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('scopeKey', () => {
  it('is canonical: field order and undefined fields do not matter', () => {
    expect(scopeKey({ sessionId: 's1', userId: 'alice' })).toBe('user:alice|session:s1');
    expect(scopeKey({ userId: 'alice', agentId: undefined, sessionId: 's1' })).toBe(
      'user:alice|session:s1',
    );
    expect(scopeKey({})).toBe('global');
    expect(scopeKey({ agentId: 'a b' })).toBe('agent:a%20b');
  });

  it('cannot be forged by ids that contain the separators', () => {
    expect(scopeKey({ userId: 'a|session:b' })).not.toBe(scopeKey({ userId: 'a', sessionId: 'b' }));
    expect(scopeKey({ userId: 'global' })).not.toBe(scopeKey({}));
  });

  it('gives equal keys exactly for equal scopes', () => {
    fc.assert(
      fc.property(scopeArbitrary, scopeArbitrary, (left, right) => {
        const same =
          left.userId === right.userId &&
          left.agentId === right.agentId &&
          left.sessionId === right.sessionId;
        expect(scopeKey(left) === scopeKey(right)).toBe(same);
      }),
      { numRuns: 200 },
    );
  });

  it('validates ids and the scope itself', () => {
    expect(InvalidIdError.isInstance(thrown(() => scopeKey({ userId: '../x' })))).toBe(true);
    expect(InvalidIdError.isInstance(thrown(() => scopeKey({ userId: '' })))).toBe(true);
    expect(
      InvalidIdError.isInstance(thrown(() => scopeKey({ userId: 7 } as unknown as Scope))),
    ).toBe(true);
    expect(InvalidArgumentError.isInstance(thrown(() => scopeKey(null as unknown as Scope)))).toBe(
      true,
    );
  });

  it('normalizeScope keeps only set scope fields', () => {
    const extra = { userId: 'u', other: 'x', sessionId: undefined } as Scope;
    expect(normalizeScope(extra)).toEqual({ userId: 'u' });
  });
});

describe('checkScope', () => {
  it('returns a valid scope as given and names the option in every error', () => {
    const scope = { userId: 'alice', sessionId: 's1' };
    expect(checkScope(scope)).toBe(scope);
    for (const bad of [null, 'alice', ['alice'], 42]) {
      expect(() => checkScope(bad, 'options.scope')).toThrow(
        expect.objectContaining({ argument: 'options.scope' }),
      );
    }
    for (const bad of [{ userId: '' }, { sessionId: 7 }, { agentId: null }]) {
      expect(() => checkScope(bad)).toThrow(/must be a non-empty string/);
      expect(InvalidArgumentError.isInstance(catchError(() => checkScope(bad)))).toBe(true);
    }
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('scopeResolver', () => {
  it('checks a fixed scope where it is given, and a resolved one on every call', () => {
    expect(scopeResolver<string>({ userId: 'alice' })('anything')).toEqual({ userId: 'alice' });
    expect(() => scopeResolver({ userId: '' })).toThrow(InvalidArgumentError);
    const resolve = scopeResolver((sessionId: string) => ({ sessionId }));
    expect(resolve('s1')).toEqual({ sessionId: 's1' });
    expect(() => resolve('')).toThrow(/scope\.sessionId must be a non-empty string/);
  });
});

describe('scopeFolder', () => {
  const root = '/data/ctxmem';

  it('nests user, agent and session, with _ for absent fields', () => {
    const folder = scopeFolder(root, { userId: 'alice', sessionId: 's1' });
    const parts = relative(root, folder).split('/');
    expect(parts[0]).toBe('scopes');
    expect(parts[1]).toMatch(/^alice-[0-9a-f]{16}$/);
    expect(parts[2]).toBe('_');
    expect(parts[3]).toMatch(/^s1-[0-9a-f]{16}$/);
    expect(scopeFolder(root, {})).toBe('/data/ctxmem/scopes/_/_/_');
  });

  it('keeps ids apart that differ only in case or in characters the slug drops', () => {
    const folders = ['Alice', 'alice', 'al ice', 'al_ice', 'al?ice', '用户', '用戶'].map((userId) =>
      scopeFolder(root, { userId }),
    );
    expect(new Set(folders.map((folder) => folder.toLowerCase())).size).toBe(folders.length);
  });

  it('always stays inside the root with short segment names', () => {
    fc.assert(
      fc.property(scopeArbitrary, (scope) => {
        const inside = relative(root, scopeFolder(root, scope));
        expect(inside.startsWith('..')).toBe(false);
        expect(isAbsolute(inside)).toBe(false);
        for (const segment of inside.split('/')) expect(segment.length).toBeLessThanOrEqual(57);
      }),
      { numRuns: 200 },
    );
    const long = scopeFolder(root, { userId: 'x'.repeat(200) });
    expect(long.split('/').at(-3)!.length).toBeLessThanOrEqual(57);
  });
});

describe('required scope', () => {
  it('reports the first missing field', () => {
    const error = thrown(() => assertRequiredScope({ userId: 'u' }, ['userId', 'sessionId']));
    expect(ScopeRequiredError.isInstance(error)).toBe(true);
    expect((error as ScopeRequiredError).field).toBe('sessionId');
    expect(() => assertRequiredScope({ userId: 'u' }, ['userId'])).not.toThrow();
    expect(() => assertRequiredScope({}, [])).not.toThrow();
  });

  it('rejects unknown field names in the option', () => {
    expect(
      InvalidArgumentError.isInstance(thrown(() => validateRequiredScope(['userId', 'tenant']))),
    ).toBe(true);
    expect(InvalidArgumentError.isInstance(thrown(() => validateRequiredScope('userId')))).toBe(
      true,
    );
    expect(validateRequiredScope(['agentId'])).toEqual(['agentId']);
  });
});
