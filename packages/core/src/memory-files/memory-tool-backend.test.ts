import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFixture } from '../../../../test/setup/fixture-bundle.js';
import { releaseTogether, startWriter } from '../../../../test/setup/writer-process.js';
import type { MemoryStore, Scope } from '../contracts/index.js';
import { InvalidArgumentError, NotFoundError, StorageError } from '../errors/index.js';
import { createFileMemoryStore, createInMemoryMemoryStore } from '../memory/index.js';
import { createInMemoryLeaseStore } from '../storage/index.js';
import { rejection } from '../test/faults.js';
import { testMemoryToolBackend } from '../test/memory-tool-suite.js';
import {
  createMemoryToolBackend,
  MAX_MEMORY_FILE_CHARACTERS,
  MEMORY_FILE_TAG,
  parseMemoryPath,
} from './index.js';
import { formatSize } from './memory-tool-text.js';

const scope: Scope = { userId: 'u1' };
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxmem-memory-tool-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let folders = 0;
const freshFolder = () => join(root, `store-${folders++}`);

testMemoryToolBackend('in-memory store', {
  stores: async () => ({ memory: createInMemoryMemoryStore() }),
  // One store in one process, shared by every instance; the instances share leases too, so the
  // lease path (waiting with backoff) runs here as it does on PostgreSQL and Redis.
  instances: async (count) => {
    const memory = createInMemoryMemoryStore();
    const leases = createInMemoryLeaseStore();
    return Array.from({ length: count }, () => ({ memory, leases }));
  },
});

testMemoryToolBackend('file store', {
  stores: async () => ({ memory: createFileMemoryStore({ root: freshFolder() }) }),
  // Separate stores over one folder, as separate processes have: the file lock beside the cards
  // keeps their edits apart.
  instances: async (count) => {
    const folder = freshFolder();
    return Array.from({ length: count }, () => ({
      memory: createFileMemoryStore({ root: folder }),
    }));
  },
});

const run = (
  store: MemoryStore,
  command: Parameters<ReturnType<typeof createMemoryToolBackend>['execute']>[0],
) => createMemoryToolBackend({ store }).execute(command, { scope });

describe('createMemoryToolBackend', () => {
  it('describes its input as one object schema, for models that do not know the tool natively', () => {
    const backend = createMemoryToolBackend({ store: createInMemoryMemoryStore() });
    expect(backend.name).toBe('memory');
    expect(backend.inputSchema).toMatchObject({
      type: 'object',
      required: ['command'],
      properties: {
        command: { enum: ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] },
        view_range: { type: 'array' },
        insert_line: { type: 'number' },
      },
    });
  });

  it('names what is wrong with a malformed command', () => {
    const backend = createMemoryToolBackend({ store: createInMemoryMemoryStore() });
    const cases: Array<[unknown, string, RegExp]> = [
      [{ command: 'frobnicate', path: '/memories' }, 'command', /Unknown command "frobnicate"/u],
      [{ command: 'create', path: '/memories/a.md' }, 'file_text', /`file_text` is required/u],
      [{ command: 'rename', old_path: '/memories/a.md' }, 'new_path', /`new_path` is required/u],
      [
        { command: 'insert', path: '/memories/a', insert_line: '3', insert_text: 'x' },
        'insert_line',
        /insert_line/u,
      ],
      [{ command: 'view', path: 7 }, 'path', /path/u],
      [{ command: 'view', path: '/memories/a', view_range: [1] }, 'view_range', /view_range/u],
      [null, 'input', /Invalid input/u],
    ];
    for (const [input, argument, message] of cases) {
      let caught: unknown;
      try {
        backend.parseInput(input);
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught), JSON.stringify(input)).toBe(true);
      expect((caught as InvalidArgumentError).argument).toBe(argument);
      expect((caught as Error).message).toMatch(message);
    }
    // Only the command's own fields are kept.
    expect(
      backend.parseInput({ command: 'delete', path: '/memories/a', file_text: 'ignored' }),
    ).toEqual({ command: 'delete', path: '/memories/a' });
  });

  it('rejects options out of range', () => {
    const store = createInMemoryMemoryStore();
    for (const options of [
      { maxFileCharacters: 0 },
      { maxFileCharacters: MAX_MEMORY_FILE_CHARACTERS + 1 },
      { maxFileCharacters: 1.5 },
      { lockTimeoutMs: -1 },
      { leaseMs: Number.NaN },
    ]) {
      expect(() => createMemoryToolBackend({ store, ...options }), JSON.stringify(options)).toThrow(
        InvalidArgumentError,
      );
    }
  });

  it('replaces text across lines, with the new lines in the snippet, and deletes old_str without new_str', async () => {
    const store = createInMemoryMemoryStore();
    const lines = Array.from({ length: 9 }, (_, index) => `line ${index + 1}`);
    await run(store, { command: 'create', path: '/memories/a.md', file_text: lines.join('\n') });
    // The SDK's reference looks for old_str line by line and misses one that spans lines.
    expect(
      await run(store, {
        command: 'str_replace',
        path: '/memories/a.md',
        old_str: 'line 4\nline 5',
        new_str: 'four\nfour and a half\nfive',
      }),
    ).toBe(
      'The memory file has been edited. Here is the snippet showing the change (with line ' +
        'numbers):\n     2\tline 2\n     3\tline 3\n     4\tfour\n     5\tfour and a half\n' +
        '     6\tfive\n     7\tline 6\n     8\tline 7',
    );
    await run(store, {
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: 'four and a half\n',
    });
    expect(await run(store, { command: 'view', path: '/memories/a.md', view_range: [4, 5] })).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     4\tfour\n     5\tfive",
    );
    const empty = await rejection(
      run(store, { command: 'str_replace', path: '/memories/a.md', old_str: '', new_str: 'x' }),
    );
    expect((empty as InvalidArgumentError).argument).toBe('old_str');
    // Overlapping occurrences are two occurrences.
    await run(store, { command: 'create', path: '/memories/b.md', file_text: 'aaa' });
    const overlapping = await rejection(
      run(store, { command: 'str_replace', path: '/memories/b.md', old_str: 'aa', new_str: 'b' }),
    );
    expect((overlapping as Error).message).toContain(
      'Multiple occurrences of old_str `aa` in lines: 1.',
    );
  });

  it('refuses text a store cannot keep exactly: NUL and lone surrogates', async () => {
    const store = createInMemoryMemoryStore();
    for (const file_text of ['a\u0000b', 'half \ud83c of an emoji']) {
      const error = await rejection(
        run(store, { command: 'create', path: '/memories/a.md', file_text }),
      );
      expect((error as InvalidArgumentError).argument).toBe('file_text');
    }
    await run(store, { command: 'create', path: '/memories/a.md', file_text: 'a' });
    const error = await rejection(
      run(store, {
        command: 'insert',
        path: '/memories/a.md',
        insert_line: 0,
        insert_text: '\u0000',
      }),
    );
    expect((error as InvalidArgumentError).argument).toBe('insert_text');
    expect(await store.list(scope)).toHaveLength(1);
  });

  it('reads the newest revision when a crash left two, and the next write removes both', async () => {
    const store = createInMemoryMemoryStore();
    await run(store, { command: 'create', path: '/memories/a.md', file_text: 'first' });
    // What a writer that died between adding the new version and removing the old one leaves.
    const [stored] = await store.list(scope);
    await store.add(scope, [
      {
        content: stored!.content
          .replace('revision="1"', 'revision="2"')
          .replace(/write="[0-9a-f]{16}"/u, 'write="00000000000000aa"')
          .replace('first', 'second'),
        tags: [MEMORY_FILE_TAG],
      },
    ]);
    expect(await run(store, { command: 'view', path: '/memories/a.md' })).toContain('\tsecond');
    await run(store, {
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: 'second',
      new_str: 'third',
    });
    const cards = await store.list(scope);
    expect(cards).toHaveLength(1);
    expect(cards[0]!.content).toContain('revision="3"');
  });

  it('ignores cards that merely carry the tag', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(scope, [
      { content: 'Not a file, although tagged.', tags: [MEMORY_FILE_TAG] },
      {
        content:
          '<memory_file path="/etc/passwd" revision="1" write="0123456789abcdef">\nx\n</memory_file>',
        tags: [MEMORY_FILE_TAG],
      },
    ]);
    expect(await run(store, { command: 'view', path: '/memories' })).toMatch(/\n0B\t\/memories$/u);
    expect(
      NotFoundError.isInstance(
        await rejection(run(store, { command: 'delete', path: '/memories/x' })),
      ),
    ).toBe(true);
    expect(await store.list(scope)).toHaveLength(2);
  });

  it('writes nothing when reading took longer than half the lease', async () => {
    const inner = createInMemoryMemoryStore();
    const slow: MemoryStore = {
      ...inner,
      add: inner.add.bind(inner),
      get: inner.get.bind(inner),
      remove: inner.remove.bind(inner),
      list: async (...args) => {
        await sleep(150);
        return inner.list(...args);
      },
    };
    const backend = createMemoryToolBackend({
      store: slow,
      leases: createInMemoryLeaseStore(),
      leaseMs: 200,
    });
    const error = await rejection(
      backend.execute({ command: 'create', path: '/memories/a.md', file_text: 'x' }, { scope }),
    );
    expect(StorageError.isInstance(error), String(error)).toBe(true);
    expect(await inner.list(scope)).toEqual([]);
  });

  it('loses no insert when processes edit one file on the file store', async () => {
    const fixture = await bundledFixture(
      new URL('../test/fixtures/store-writer.ts', import.meta.url),
    );
    const folder = freshFolder();
    const path = '/memories/shared.md';
    const processScope = { userId: 'crash-test', sessionId: 'one' };
    await createMemoryToolBackend({ store: createFileMemoryStore({ root: folder }) }).execute(
      { command: 'create', path, file_text: 'end' },
      { scope: processScope },
    );
    const count = 8;
    const writers = ['a', 'b', 'c'].map((label) =>
      startWriter(fixture, { mode: 'memory-insert', root: folder, path, label, count }),
    );
    await releaseTogether(writers);
    const codes = await Promise.all(writers.map((writer) => writer.exited));
    expect(codes, writers.map((writer) => writer.errors()).join('\n')).toEqual([0, 0, 0]);
    const view = await createMemoryToolBackend({
      store: createFileMemoryStore({ root: folder }),
    }).execute({ command: 'view', path }, { scope: processScope });
    const lines = view
      .split('\n')
      .slice(1)
      .map((line) => line.slice(7));
    expect(lines).toHaveLength(3 * count + 1);
    for (const label of ['a', 'b', 'c']) {
      const own = lines.filter((line) => line.startsWith(`${label} `));
      // Each process's lines, newest first: every insert went on top of the one before.
      expect(own).toEqual(
        Array.from({ length: count }, (_, step) => `${label} ${count - 1 - step}`),
      );
    }
  }, 120_000);
});

describe('formatSize', () => {
  it('writes sizes as the SDK does: bytes, then one decimal of K, M, G where needed', () => {
    expect([0, 13, 1023, 1024, 1536, 5632, 1_258_291, 3 * 1024 ** 3].map(formatSize)).toEqual([
      '0B',
      '13B',
      '1023B',
      '1K',
      '1.5K',
      '5.5K',
      '1.2M',
      '3G',
    ]);
  });
});

describe('parseMemoryPath', () => {
  it('returns the path without a trailing slash, and its names', () => {
    expect(parseMemoryPath('/memories')).toEqual({
      path: '/memories',
      segments: [],
      trailingSlash: false,
    });
    expect(parseMemoryPath('/memories/')).toEqual({
      path: '/memories',
      segments: [],
      trailingSlash: true,
    });
    expect(parseMemoryPath('/memories/a b/c.md')).toEqual({
      path: '/memories/a b/c.md',
      segments: ['a b', 'c.md'],
      trailingSlash: false,
    });
    expect(parseMemoryPath('/memories/..hidden/...').segments).toEqual(['..hidden', '...']);
  });

  it('never returns a path that could leave /memories, whatever follows the root', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom('..', '.', '%2e', '%2F', '\\', '／', '．', '/', '\u0000', 'a', 'b.md'),
            fc.string({ unit: 'grapheme', maxLength: 6 }),
          ),
          { maxLength: 8 },
        ),
        (parts) => {
          let parsed: ReturnType<typeof parseMemoryPath>;
          try {
            parsed = parseMemoryPath(`/memories/${parts.join('')}`);
          } catch (error) {
            expect(InvalidArgumentError.isInstance(error)).toBe(true);
            return;
          }
          expect(parsed.path === '/memories' || parsed.path.startsWith('/memories/')).toBe(true);
          for (const segment of parsed.segments) {
            const normalized = segment.normalize('NFKC');
            expect(['', '.', '..']).not.toContain(normalized);
            expect(normalized).not.toMatch(/[/\\\u0000-\u001f]|%[0-9a-f]{2}/iu);
          }
          // Parsing the result again gives the same path.
          expect(parseMemoryPath(parsed.path).path).toBe(parsed.path);
        },
      ),
    );
  });
});
