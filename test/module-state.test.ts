/**
 * No module-level mutable state in the packages' sources: state lives in the instances that own
 * it, so two indexes, counters or stores in one process never see each other's. The check reads
 * every non-test source file and fails on a module-level `let` or `var`, and on a module-level
 * `Map` or `Set` that the same file changes (`.set`, `.add`, `.delete`, `.clear`). A `WeakMap`
 * keyed by an instance holds that instance's own data and goes with it, so it is allowed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** Shared on purpose; each entry says why. */
const ALLOWED = new Map<string, string>([
  [
    'packages/core/src/storage/file-lock.ts held',
    'the lock folders this process holds, removed if it exits inside a lock: a resource of the whole process',
  ],
  [
    'packages/core/src/storage/file-lock.ts queues',
    'a lock path is a resource of the whole process: every caller on one file must queue',
  ],
  [
    'packages/core/src/telemetry/create-telemetry.ts traceApi',
    "the @opentelemetry/api module, imported when the first span starts instead of at import: an import binding set late (the API is the process's singleton anyway)",
  ],
  [
    'packages/core/src/tokens/bpe-ranks.ts loaded',
    'read-only rank tables, loaded once per process (from the vocabulary file the build writes, or parsed)',
  ],
]);

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.d.ts') &&
      !/\.test(-\w+)?\.ts$|\.test-(helper|support)\.ts$/.test(entry.name)
    ) {
      files.push(path);
    }
  }
  return files;
}

const MUTABLE_COLLECTION = /^new (Map|Set)\b/;

function moduleLevelState(path: string, text = readFileSync(path, 'utf8')): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const { declarationList } = statement;
    const isConst = (declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of declarationList.declarations) {
      const name = declaration.name.getText(file);
      if (!isConst) {
        found.push(`${name} (module-level let/var)`);
        continue;
      }
      const initializer = declaration.initializer?.getText(file) ?? '';
      const escaped = name.replace(/[$]/g, '\\$&');
      if (
        MUTABLE_COLLECTION.test(initializer) &&
        new RegExp(`\\b${escaped}\\.(set|add|delete|clear)\\(`).test(text)
      ) {
        found.push(`${name} (module-level collection changed at run time)`);
      }
    }
  }
  return found;
}

describe('module-level state', () => {
  it('is absent from the packages, but for the listed exceptions', () => {
    const packages = join(root, 'packages');
    const offenders: string[] = [];
    for (const name of readdirSync(packages)) {
      const source = join(packages, name, 'src');
      let files: string[];
      try {
        files = sourceFiles(source);
      } catch {
        continue;
      }
      for (const path of files) {
        for (const state of moduleLevelState(path)) {
          const key = `${relative(root, path)} ${state.split(' ')[0]}`;
          if (!ALLOWED.has(key)) offenders.push(`${relative(root, path)}: ${state}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('finds the kinds of state it looks for', () => {
    const sample = [
      'let generations = 0;',
      'const NAMES = new Set(["a"]);',
      'const cache = new Map<string, number>();',
      'export function next(key: string) {',
      '  const local = new Map();',
      '  local.set(key, 1);',
      '  cache.set(key, NAMES.size);',
      '  return generations++;',
      '}',
    ].join('\n');
    expect(moduleLevelState('sample.ts', sample)).toEqual([
      'generations (module-level let/var)',
      'cache (module-level collection changed at run time)',
    ]);
  });
});
