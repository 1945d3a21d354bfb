/**
 * Storage faults: a full disk, permission denied, files truncated or damaged between runs, an
 * HNSW index from another dimension or format version, and a lock left by a dead process. Every
 * fault ends in a clear typed error (naming the file and the reason) or a reported recovery of
 * what is readable — never a silent wipe, never a half-written record read back as data.
 *
 * `node:fs/promises` and `write-file-atomic` are wrapped with fault injection
 * (`fault-injection.ts`): calls pass through until a test adds a rule.
 */
import {
  appendFile,
  mkdir,
  readdir,
  readFile,
  stat,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import {
  CorruptDataError,
  type CorruptionEvent,
  type CtxmemEvent,
  createContextManager,
  createFileHistoryStore,
  createFileMemoryStore,
  createFileOffloadStore,
  createTokenCounter,
  type Message,
  messageText,
  NotFoundError,
  type Scope,
  StorageError,
} from '@ctxmem/core';
import { scopeFolder } from '@ctxmem/core/driver-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHnswMemoryIndex, type HnswLoadProblem } from '../../packages/hnswlib/src/index.js';
import { clearFaults, injected, injectFault } from './fault-injection.js';
import { expectValidPrompt, markedConversation, temporaryFolder } from './helpers.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const { withFaults } = await import('./fault-injection.js');
  return withFaults(await importOriginal<Record<string, unknown>>());
});
// The root has no `write-file-atomic` of its own: mock the copy the core package resolves.
vi.mock('../../packages/core/node_modules/write-file-atomic', async (importOriginal) => {
  const { withAtomicWriteFaults } = await import('./fault-injection.js');
  const actual = await importOriginal<{ default: (...args: never[]) => Promise<unknown> }>();
  return { default: withAtomicWriteFaults(actual.default) };
});

const counter = createTokenCounter();
let folder: { path: string; remove: () => Promise<void> };
let rootCount = 0;
/** A fresh store root per test, so that no test sees another's files. */
const nextRoot = () => join(folder.path, `root-${++rootCount}`);

beforeAll(async () => {
  folder = await temporaryFolder('storage');
});
afterAll(async () => {
  await folder.remove();
});
afterEach(() => {
  clearFaults();
});

const scope: Scope = { userId: 'alice', sessionId: 'chat-1' };

function messages(from: number, count: number): Message[] {
  return Array.from({ length: count }, (_, offset) => ({
    role: offset % 2 === 0 ? 'user' : 'assistant',
    content: `message ${from + offset}`,
  })) as Message[];
}

const withoutIds = (stored: Array<{ message: Message }>) =>
  stored.map(({ message: { id: _id, ...message } }) => message);

/** Records corruption events instead of process warnings. */
function corruptionLog() {
  const events: CorruptionEvent[] = [];
  return { events, onCorruption: (event: CorruptionEvent) => events.push(event) };
}

async function expectStorageError(
  promise: Promise<unknown>,
  reason: RegExp,
): Promise<StorageError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(StorageError.isInstance(error)).toBe(true);
  expect((error as StorageError).message).toMatch(reason);
  expect((error as StorageError).path).toBeTruthy();
  return error as StorageError;
}

// ---------------------------------------------------------------------------------------------

describe('disk full (ENOSPC)', () => {
  // Protection: the append fails as StorageError naming the disk, and acknowledged records are
  // untouched (the torn tail of the failed write is cut off by the next append).
  it('fails a history append that runs out of space mid-write, and keeps every acknowledged message', async () => {
    const store = createFileHistoryStore({ root: nextRoot() });
    await store.append(scope, messages(0, 2));
    // Writes 10 bytes of the new line, then the disk is full.
    injectFault({
      operation: 'handle.write',
      code: 'ENOSPC',
      path: /history\.jsonl$/,
      times: 1,
      partialBytes: 10,
    });
    await expectStorageError(store.append(scope, messages(2, 3)), /disk is full.*ENOSPC/);
    expect(injected).toHaveLength(1);
    expect(withoutIds(await store.read(scope))).toEqual(messages(0, 2));
    expect(await store.count(scope)).toBe(2);

    // Space is back: the retry lands once, right after the acknowledged records.
    const retried = await store.append(scope, messages(2, 3));
    expect(retried.map((entry) => entry.index)).toEqual([2, 3, 4]);
    expect(withoutIds(await store.read(scope))).toEqual(messages(0, 5));
  });

  // Protection: a failed append is rolled back to where the file ended. Without it the whole
  // lines written before the disk filled up stay, and the retry appends them again (duplicates).
  it('never keeps complete records of a failed append (a retry would duplicate them)', async () => {
    const store = createFileHistoryStore({ root: nextRoot() });
    await store.append(scope, messages(0, 2));
    // Enough bytes for the first new line and part of the second.
    injectFault({
      operation: 'handle.write',
      code: 'ENOSPC',
      path: /history\.jsonl$/,
      times: 1,
      partialBytes: 220,
    });
    await expectStorageError(store.append(scope, messages(2, 3)), /disk is full/);
    await store.append(scope, messages(2, 3));
    expect(withoutIds(await store.read(scope))).toEqual(messages(0, 5));
  });

  // Protection: the memory store appends each change to its log and cuts a failed append off
  // again; the file (and the store's cache) stay as they were.
  it('fails a card write on a full disk and keeps the cards already stored', async () => {
    const store = createFileMemoryStore({ root: nextRoot() });
    await store.add(scope, [{ content: 'The user prefers tabs over spaces.' }]);
    injectFault({ operation: 'handle.write', code: 'ENOSPC', path: /cards\.jsonl$/, times: 1 });
    await expectStorageError(
      store.add(scope, [{ content: 'The deploy target is Kubernetes.' }]),
      /disk is full/,
    );
    expect((await store.list(scope)).map((card) => card.content)).toEqual([
      'The user prefers tabs over spaces.',
    ]);
    await store.add(scope, [{ content: 'The deploy target is Kubernetes.' }]);
    expect(await store.list(scope)).toHaveLength(2);
  });

  // Protection: the context manager records the history before compacting and fails the turn
  // with StorageError when it cannot; nothing is acknowledged that is not on disk, and the next
  // call (after space is freed) completes the history exactly once.
  it('fails the turn with StorageError when the history cannot be written, and completes it on retry', async () => {
    const root = nextRoot();
    const historyStore = createFileHistoryStore({ root });
    const manager = createContextManager({ contextWindow: 3_000, counter, historyStore });
    const history = markedConversation('disk', 14);
    injectFault({ operation: 'handle.write', code: 'ENOSPC', path: /history\.jsonl$/, times: 1 });
    await expectStorageError(manager.prepare(history, { scope }), /disk is full/);

    const prepared = await manager.prepare(history, { scope });
    expectValidPrompt(prepared.messages, history, {
      budgetTokens: manager.budget.budgetTokens,
      counter,
    });
    expect(withoutIds(await historyStore.read(scope))).toEqual(history);
  });

  // Protection: the working state is written atomically after the compaction; when that fails
  // the turn fails with StorageError (no half-written state), and the next call redoes the work.
  it('fails the turn when the working state cannot be saved, and recovers on the next call', async () => {
    const root = nextRoot();
    const historyStore = createFileHistoryStore({ root });
    const manager = createContextManager({ contextWindow: 3_000, counter, historyStore });
    const history = markedConversation('state-full', 14);
    injectFault({ operation: 'atomic-write', code: 'ENOSPC', path: /state\.json$/, times: 1 });
    await expectStorageError(manager.prepare(history, { scope }), /disk is full/);
    expect(await historyStore.getState(scope)).toBeUndefined();
    expect(withoutIds(await historyStore.read(scope))).toEqual(history);

    const prepared = await manager.prepare(history, { scope });
    expectValidPrompt(prepared.messages, history, {
      budgetTokens: manager.budget.budgetTokens,
      counter,
    });
    expect((await historyStore.getState(scope))?.version).toBe(1);
  });

  // Protection: storing extracted cards is best effort: the turn proceeds and an event reports
  // the failure, while history and prompt are unaffected.
  it('proceeds with the turn when the memory store is full, reporting the lost cards', async () => {
    const root = nextRoot();
    const events: CtxmemEvent[] = [];
    const manager = createContextManager({
      contextWindow: 3_000,
      counter,
      historyStore: createFileHistoryStore({ root }),
      memory: { store: createFileMemoryStore({ root }) },
      onEvent: (event) => events.push(event),
    });
    injectFault({ operation: 'atomic-write', code: 'ENOSPC', path: /cards\.jsonl$/ });
    injectFault({ operation: 'handle.write', code: 'ENOSPC', path: /cards\.jsonl$/ });
    // Decisions, so that the summarizer extracts cards to store.
    const history = markedConversation('cards', 14).map((message, index) =>
      message.role === 'user' && index < 50
        ? {
            ...message,
            content: `${message.content} We decided to deploy service ${index} on Fridays because it is safer.`,
          }
        : message,
    );
    const prepared = await manager.prepare(history, { scope });
    expect(prepared.compacted).toBe(true);
    expectValidPrompt(prepared.messages, history, {
      budgetTokens: manager.budget.budgetTokens,
      counter,
    });
    expect(prepared.cards.length).toBeGreaterThan(0);
    expect(injected.length).toBeGreaterThan(0);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'memory-flush',
        error: expect.stringMatching(/disk is full/),
      }),
    );
  });

  // Protection: a failed offload write is an error, never a prompt that silently keeps (or
  // drops) the payload: the turn fails with StorageError and succeeds once space is back.
  it('never drops an offloaded payload it could not write', async () => {
    const root = nextRoot();
    const offloadStore = createFileOffloadStore({ root });
    const manager = createContextManager({ contextWindow: 3_000, counter, offloadStore });
    const big = 'log line with details\n'.repeat(2_000);
    const history: Message[] = [
      { role: 'user', content: 'Read the log.' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read',
            output: { type: 'text', value: big },
          },
        ],
      },
      { role: 'assistant', content: 'Read it.' },
      { role: 'user', content: 'Summarize the failures.' },
    ];
    // Offloads are written at the end of a compaction, streamed into a temporary file; a single
    // put goes through write-file-atomic. Both fail when the disk is full.
    injectFault({ operation: 'atomic-write', code: 'ENOSPC', path: /offload/ });
    injectFault({ operation: 'handle.write', code: 'ENOSPC', path: /offload/ });
    await expectStorageError(manager.prepare(history, { scope }), /disk is full/);
    expect(injected.some((fault) => /offload/.test(fault.path))).toBe(true);
    clearFaults();
    const prepared = await manager.prepare(history, { scope });
    const preview = prepared.messages.find((message) => message.ctxmem?.offloadIds?.length);
    const record = await offloadStore.get(scope, preview!.ctxmem!.offloadIds![0]!);
    expect(messageText(record.message)).toBe(big);
  });
});

// ---------------------------------------------------------------------------------------------

describe('permission denied (EACCES) and a file in the way', () => {
  // Protection: read failures are errors, not "missing" — a store that treated EACCES like ENOENT
  // would answer an empty history / no cards, and the next write would replace the real data.
  it('reports unreadable files as StorageError instead of answering "empty"', async () => {
    const root = nextRoot();
    const history = createFileHistoryStore({ root });
    const memory = createFileMemoryStore({ root });
    const offload = createFileOffloadStore({ root });
    await history.append(scope, messages(0, 4));
    await history.setState(scope, { messages: messages(0, 1), summarizedCount: 1, cycle: 1 }, 0);
    await memory.add(scope, [{ content: 'The user prefers tabs over spaces.' }]);
    const id = await offload.put(scope, { role: 'user', content: 'large payload' });

    injectFault({ operation: 'readFile', code: 'EACCES' });
    injectFault({ operation: 'open', code: 'EACCES' });
    await expectStorageError(history.read(scope), /permission denied/);
    await expectStorageError(history.count(scope), /permission denied/);
    await expectStorageError(history.getState(scope), /permission denied/);
    await expectStorageError(memory.list(scope), /permission denied/);
    await expectStorageError(offload.get(scope, id), /permission denied/);
    await expectStorageError(history.append(scope, messages(4, 1)), /permission denied/);

    // Access is back: nothing was rewritten or set aside while it was denied.
    clearFaults();
    expect(withoutIds(await history.read(scope))).toEqual(messages(0, 4));
    expect((await history.getState(scope))?.version).toBe(1);
    expect(await memory.list(scope)).toHaveLength(1);
    expect((await offload.get(scope, id)).message).toEqual({
      role: 'user',
      content: 'large payload',
    });
    const files = await readdir(scopeFolder(root, scope));
    expect(files.filter((file) => file.includes('.corrupt-'))).toEqual([]);
  });

  // Protection: mkdir/open errors are mapped to StorageError with a readable reason (real
  // ENOTDIR/EEXIST from the kernel here, no injection).
  it('explains a file where the storage folder should be', async () => {
    const root = nextRoot();
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'scopes'), 'not a folder');
    await expectStorageError(
      createFileHistoryStore({ root }).append(scope, messages(0, 1)),
      /folder|ENOTDIR|EEXIST/,
    );
    await expectStorageError(
      createFileMemoryStore({ root }).add(scope, [{ content: 'A card.' }]),
      /folder|ENOTDIR|EEXIST/,
    );
    await expectStorageError(
      createFileOffloadStore({ root }).put(scope, { role: 'user', content: 'x' }),
      /folder|ENOTDIR|EEXIST/,
    );
    expect(await readFile(join(root, 'scopes'), 'utf8')).toBe('not a folder');
  });
});

// ---------------------------------------------------------------------------------------------

describe('files damaged between runs', () => {
  // Protection: corruption recovery keeps every readable record, keeps the damaged bytes aside
  // and reports; in strict mode it throws first. Remove it and the history reads as empty (or
  // the whole file is lost on the next rewrite).
  it('recovers a history with a garbage line in the middle, keeping the damaged copy', async () => {
    for (const mode of ['recover', 'strict'] as const) {
      const root = nextRoot();
      const log = corruptionLog();
      const store = createFileHistoryStore({
        root,
        corruption: mode,
        onCorruption: log.onCorruption,
      });
      await store.append(scope, messages(0, 3));
      const path = join(scopeFolder(root, scope), 'history.jsonl');
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines.splice(1, 0, '{"index": 1, "this is not": a record');
      const damaged = lines.join('\n');
      await writeFile(path, damaged);

      if (mode === 'strict') {
        const error = await store.read(scope).catch((thrown: unknown) => thrown);
        expect(CorruptDataError.isInstance(error)).toBe(true);
      }
      expect(withoutIds(await store.read(scope))).toEqual(messages(0, 3));
      if (mode === 'recover') expect(log.events).toHaveLength(1);
      const files = await readdir(scopeFolder(root, scope));
      const copy = files.find((file) => file.startsWith('history.jsonl.corrupt-'));
      expect(copy).toBeDefined();
      expect(await readFile(join(scopeFolder(root, scope), copy!), 'utf8')).toBe(damaged);
      // The store goes on from where the readable history ends.
      const next = await store.append(scope, messages(3, 1));
      expect(next[0]!.index).toBe(3);
    }
  });

  // Protection: a torn last line (a write cut short, never acknowledged) is dropped quietly and
  // the next append does not glue onto it.
  it('drops a history line truncated mid-write and appends cleanly after it', async () => {
    const root = nextRoot();
    const log = corruptionLog();
    const store = createFileHistoryStore({ root, onCorruption: log.onCorruption });
    await store.append(scope, messages(0, 3));
    const path = join(scopeFolder(root, scope), 'history.jsonl');
    const size = (await stat(path)).size;
    await truncate(path, size - 15);
    expect(await store.count(scope)).toBe(2);
    await store.append(scope, messages(2, 2));
    expect(withoutIds(await store.read(scope))).toEqual(messages(0, 4));
    expect(log.events).toEqual([]);
  });

  // Protection: the cards log is salvaged line by line; without it a half file reads as no
  // cards and the next `add` overwrites the survivors. A log cut short ends in an unfinished
  // line, which is what a crashed write leaves: it is dropped (never acknowledged), the rest kept.
  it('salvages the intact cards of a truncated cards file', async () => {
    const root = nextRoot();
    const log = corruptionLog();
    const store = createFileMemoryStore({ root, onCorruption: log.onCorruption });
    const contents = Array.from(
      { length: 10 },
      (_, index) => `Fact number ${index} about the project ${'x'.repeat(index)}.`,
    );
    for (const content of contents) await store.add(scope, [{ content }]);
    const path = join(scopeFolder(root, scope), 'cards.jsonl');
    const original = await readFile(path, 'utf8');
    await writeFile(path, original.slice(0, Math.floor(original.length / 2)));

    const fresh = createFileMemoryStore({ root, onCorruption: log.onCorruption });
    const survivors = await fresh.list(scope);
    expect(survivors.length).toBeGreaterThanOrEqual(3);
    expect(survivors.length).toBeLessThan(10);
    expect(survivors.map((card) => card.content)).toEqual(contents.slice(0, survivors.length));
    expect(log.events).toEqual([]);
    // Adding goes on from the survivors; they are not overwritten.
    await fresh.add(scope, [{ content: 'A new card after the damage.' }]);
    expect(await createFileMemoryStore({ root }).list(scope)).toHaveLength(survivors.length + 1);
  });

  // Protection: unreadable content is never silently replaced by "no cards": the bytes are kept
  // aside and the event is reported (strict mode throws).
  it('keeps a cards file of garbage aside and reports it instead of wiping it silently', async () => {
    const root = nextRoot();
    const store = createFileMemoryStore({ root, corruption: 'strict' });
    await store.add(scope, [{ content: 'A card that will be damaged.' }]);
    const path = join(scopeFolder(root, scope), 'cards.jsonl');
    const garbage = Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b, 0x22, 0x80]);
    await writeFile(path, garbage);
    const error = await store.list(scope).catch((thrown: unknown) => thrown);
    expect(CorruptDataError.isInstance(error)).toBe(true);
    const files = await readdir(scopeFolder(root, scope));
    const copy = files.find((file) => file.startsWith('cards.jsonl.corrupt-'));
    expect(await readFile(join(scopeFolder(root, scope), copy!))).toEqual(garbage);
  });

  // Protection: a damaged working state is a cache: it is set aside and rebuilt; the context
  // manager still sends a valid prompt, and the history is untouched.
  it('rebuilds from the history when the working state is damaged', async () => {
    const root = nextRoot();
    const log = corruptionLog();
    const historyStore = createFileHistoryStore({ root, onCorruption: log.onCorruption });
    const history = markedConversation('state', 14);
    await createContextManager({ contextWindow: 3_000, counter, historyStore }).prepare(history, {
      scope,
    });
    const statePath = join(scopeFolder(root, scope), 'state.json');
    await writeFile(statePath, '{"version": 3, "state": {"messages": [{"role": "us');

    // A new process: nothing cached in memory.
    const manager = createContextManager({ contextWindow: 3_000, counter, historyStore });
    const prepared = await manager.prepare(history, { scope });
    expectValidPrompt(prepared.messages, history, {
      budgetTokens: manager.budget.budgetTokens,
      counter,
    });
    expect(withoutIds(await historyStore.read(scope))).toEqual(history);
    expect(log.events.length).toBeGreaterThanOrEqual(1);
  });

  // Protection: an offloaded payload is checked against its content hash; a damaged one is a
  // NotFoundError (typed), kept aside, and can be written again.
  it('refuses a damaged offload file and accepts the payload again', async () => {
    const root = nextRoot();
    const log = corruptionLog();
    const store = createFileOffloadStore({ root, onCorruption: log.onCorruption });
    const message: Message = { role: 'user', content: 'the original payload' };
    const id = await store.put(scope, message);
    const path = join(scopeFolder(root, scope), 'offload', `${id}.json`);
    await writeFile(path, (await readFile(path, 'utf8')).replace('original', 'tampered'));
    const error = await store.get(scope, id).catch((thrown: unknown) => thrown);
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(log.events).toHaveLength(1);
    expect(await store.put(scope, message)).toBe(id);
    expect((await store.get(scope, id)).message).toEqual(message);
  });

  // Protection: a cards file copied from another scope is not read as this scope's cards.
  it('does not adopt cards of another scope copied into this scope’s file', async () => {
    const root = nextRoot();
    const log = corruptionLog();
    const store = createFileMemoryStore({ root, onCorruption: log.onCorruption });
    const other: Scope = { userId: 'mallory', sessionId: 'chat-1' };
    await store.add(other, [{ content: 'Mallory secret card.' }]);
    await mkdir(scopeFolder(root, scope), { recursive: true });
    await writeFile(
      join(scopeFolder(root, scope), 'cards.jsonl'),
      await readFile(join(scopeFolder(root, other), 'cards.jsonl')),
    );
    expect(await store.list(scope)).toEqual([]);
    expect(log.events).toHaveLength(1);
    expect(await store.list(other)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('HNSW index files from another dimension, version or a crash', () => {
  const vector = (seed: number, dimensions: number) =>
    Float32Array.from({ length: dimensions }, (_, index) => Math.sin(seed * 7 + index));

  async function savedIndex(dimensions: number) {
    const path = join(nextRoot(), 'cards.hnsw');
    const index = await createHnswMemoryIndex({ dimensions, path });
    await index.upsert(
      Array.from({ length: 20 }, (_, item) => ({
        id: `card-${item}`,
        vector: vector(item, dimensions),
        scopeKey: 'user:alice',
      })),
    );
    await index.flush();
    await index.close();
    return path;
  }

  // Protection: the header check. Without it an index of other dimensions is loaded into a
  // graph of the wrong width (native crash or garbage scores), or the files are silently wiped.
  it('reports dimension, version and checksum problems, starts empty, and keeps the old files until a rebuild is flushed', async () => {
    const cases: Array<{ expected: string; damage: (path: string) => Promise<number> }> = [
      { expected: 'dimension-mismatch', damage: async () => 16 },
      {
        expected: 'version-mismatch',
        damage: async (path) => {
          const header = JSON.parse(await readFile(`${path}.json`, 'utf8'));
          await writeFile(`${path}.json`, JSON.stringify({ ...header, version: 99 }));
          return 8;
        },
      },
      {
        expected: 'checksum-mismatch|corrupt',
        damage: async (path) => {
          await truncate(path, Math.floor((await stat(path)).size / 2));
          return 8;
        },
      },
      {
        expected: 'corrupt',
        damage: async (path) => {
          await writeFile(`${path}.json`, '{"format": "ctxmem-hnsw-index", "vers');
          return 8;
        },
      },
    ];
    for (const { expected, damage } of cases) {
      const path = await savedIndex(8);
      const dimensions = await damage(path);
      const before = await readFile(path);
      const problems: HnswLoadProblem[] = [];
      const index = await createHnswMemoryIndex({
        dimensions,
        path,
        onLoadProblem: (problem) => problems.push(problem),
      });
      expect(problems.map((problem) => problem.reason).join()).toMatch(
        new RegExp(`^(${expected})$`),
      );
      expect(index.needsRebuild).toBe(true);
      expect(index.size()).toBe(0);
      // Opening never deletes: the old bytes are still there for inspection.
      expect(await readFile(path)).toEqual(before);

      await index.rebuild([
        { id: 'card-0', vector: vector(0, dimensions), scopeKey: 'user:alice' },
      ]);
      await index.flush();
      await index.close();
      const reopened = await createHnswMemoryIndex({ dimensions, path });
      expect(reopened.needsRebuild).toBe(false);
      expect(reopened.size()).toBe(1);
      await reopened.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('a lock left behind', () => {
  // Protection: stale-lock takeover. Without it every write of the scope would wait for the
  // lock timeout and fail forever after a writer died holding it.
  it('takes over a lock whose holder died, and times out cleanly on a live one', async () => {
    const root = nextRoot();
    const store = createFileHistoryStore({ root, lock: { staleMs: 2_000, timeoutMs: 400 } });
    await store.append(scope, messages(0, 1));
    const lockPath = join(scopeFolder(root, scope), 'history.jsonl.lock');

    // What a SIGKILLed writer leaves: the lock folder, no longer refreshed.
    await mkdir(lockPath);
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lockPath, longAgo, longAgo);
    await store.append(scope, messages(1, 1));
    expect(await store.count(scope)).toBe(2);

    // A live holder keeps refreshing it: the writer gives up with a clear error, no data touched.
    await mkdir(lockPath);
    const refresh = setInterval(() => {
      const now = new Date();
      utimes(lockPath, now, now).catch(() => {});
    }, 100);
    try {
      await expectStorageError(
        store.append(scope, messages(2, 1)),
        /Timed out .* waiting for the lock/,
      );
    } finally {
      clearInterval(refresh);
    }
    expect(withoutIds(await store.read(scope))).toEqual([...messages(0, 1), ...messages(1, 1)]);
  });

  // Sanity of the injection itself: a test that injects nothing sees no failures.
  it('passes every call through when no fault is injected', async () => {
    const root = nextRoot();
    const store = createFileHistoryStore({ root });
    await store.append(scope, messages(0, 2));
    await appendFile(join(root, 'probe.txt'), 'ok');
    expect(injected).toEqual([]);
    expect(await store.count(scope)).toBe(2);
  });
});
