/**
 * Every public function of every package, called without what it needs: no argument,
 * `undefined`, `null` or `{}` in place of its options (after plausible values for the parameters
 * before them). Each call returns, or fails with a ctxmem error (one whose class's `isInstance`
 * holds) that names what was wrong — never a `TypeError`, `RangeError` or `ReferenceError` from
 * inside. The functions are found, not listed: each `exports` subpath of each package (but
 * `./test`) is imported from its TypeScript source and the parameters of each export are read
 * with the TypeScript checker, so a new export is covered without editing this file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CtxmemError, InvalidArgumentError } from '@ctxmem/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryPoints, planCalls } from './public-entry-points.js';

/**
 * Exports the sweep does not call, each with the reason. An entry that no longer names an
 * export fails the test, so the list cannot go stale.
 */
const NOT_CALLED = new Map<string, string>([]);

/**
 * Known failures, held open: each must still fail (so a fix forces its removal here), and each
 * says why it is not fixed yet.
 */
const OPEN = new Map<string, string>([]);

/** How long one call may take to settle before it counts as a hang. */
const CALL_TIMEOUT_MS = 5_000;

/** What a failed call threw, in one line. */
function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n')[0]}`;
  return `non-error ${typeof error}: ${String(error)}`;
}

/** Why `error` is not an acceptable answer to bad input, or `undefined` when it is. */
function problemWith(error: unknown): string | undefined {
  if (!CtxmemError.isInstance(error)) return `threw ${describeError(error)}`;
  if (error.message.trim() === '') return `threw ${error.name} without a message`;
  if (InvalidArgumentError.isInstance(error)) {
    const last = typeof error.argument === 'string' ? (error.argument.split('.').at(-1) ?? '') : '';
    if (last === '' || !error.message.includes(last)) {
      return `threw ${describeError(error)} whose message does not name its argument "${error.argument}"`;
    }
  }
  return undefined;
}

async function settle(call: () => unknown): Promise<{ error?: unknown; hung?: true }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = call();
    if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
      const timeout = new Promise<'hung'>((resolve) => {
        timer = setTimeout(() => resolve('hung'), CALL_TIMEOUT_MS);
      });
      if ((await Promise.race([result, timeout])) === 'hung') return { hung: true };
    }
    return {};
  } catch (error) {
    return { error };
  } finally {
    clearTimeout(timer);
  }
}

const root = join(import.meta.dirname, '..', '..');
const entries = entryPoints(root);

let previousCwd: string;
let workFolder: string;

beforeAll(async () => {
  // File stores default to `<cwd>/.ctxmem`: nothing may land in the repository.
  previousCwd = process.cwd();
  workFolder = await mkdtemp(join(tmpdir(), 'ctxmem-entry-points-'));
  process.chdir(workFolder);
});

afterAll(async () => {
  process.chdir(previousCwd);
  await rm(workFolder, { recursive: true, force: true });
});

describe('public entry points', () => {
  it('finds every entry point and the functions of each', () => {
    const counts = Object.fromEntries(
      entries.map((entry) => [entry.specifier, entry.exports.length]),
    );
    expect(Object.keys(counts)).toContain('@ctxmem/core');
    for (const entry of entries) expect(entry.exports.length, entry.specifier).toBeGreaterThan(0);
  });

  it.each(entries.map((entry) => [entry.specifier, entry] as const))(
    '%s: every function answers missing arguments with a typed error',
    async (_specifier, entry) => {
      const module = (await import(entry.file)) as Record<string, unknown>;
      const failures: string[] = [];
      const stillOpen = new Set<string>();
      for (const exported of entry.exports) {
        const key = `${entry.specifier} ${exported.name}`;
        if (NOT_CALLED.has(key)) continue;
        const value = module[exported.name];
        if (typeof value !== 'function') continue;
        for (const call of planCalls(exported)) {
          const outcome = await settle(() =>
            exported.construct
              ? Reflect.construct(value, call.args)
              : Reflect.apply(value, undefined, call.args),
          );
          const label = `${exported.construct ? 'new ' : ''}${exported.name}(${call.label})`;
          if (outcome.hung) failures.push(`${label} did not settle in ${CALL_TIMEOUT_MS} ms`);
          else if ('error' in outcome) {
            const problem = problemWith(outcome.error);
            if (problem && OPEN.has(key)) stillOpen.add(key);
            else if (problem) failures.push(`${label} ${problem}`);
          }
        }
      }
      expect(failures).toEqual([]);
      const open = [...OPEN.keys()].filter((key) => key.startsWith(`${entry.specifier} `));
      // A held failure that passes now: take it off OPEN.
      expect(open.filter((key) => !stillOpen.has(key))).toEqual([]);
    },
  );

  it('lists only exceptions that still exist', () => {
    const known = new Set(
      entries.flatMap((entry) =>
        entry.exports.map((exported) => `${entry.specifier} ${exported.name}`),
      ),
    );
    expect([...NOT_CALLED.keys(), ...OPEN.keys()].filter((key) => !known.has(key))).toEqual([]);
  });
});
