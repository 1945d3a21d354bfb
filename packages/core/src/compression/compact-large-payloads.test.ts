import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CtxmemEvent, Message, OffloadStore } from '../contracts/index.js';
import {
  compact,
  createExtractiveSummarizer,
  createFileOffloadStore,
  createInMemoryOffloadStore,
  createTokenCounter,
} from '../index.js';
import { seededBase64 as base64 } from '../test/filler-text.js';
import { checkCompactionInvariants } from '../test/invariants.js';
import { assistant, calls, filler, results, system, user } from './test-messages.js';

const scope = { sessionId: 'large' };
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

async function fileStore(): Promise<{ store: OffloadStore; folder: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'ctxmem-large-'));
  folders.push(folder);
  return { store: createFileOffloadStore({ root: folder }), folder };
}

/** An agent step whose tool returned a file as base64 (one line), as the newest message. */
function base64Step(payload: string): Message[] {
  return [
    system('You are a coding agent.'),
    user('Read the release archive and tell me what is in it.'),
    calls({ id: 'read_1', name: 'read_file', input: { path: 'dist/release.tar.gz' } }),
    results({ id: 'read_1', name: 'read_file', output: payload }),
  ];
}

describe('compact with a payload far over the budget', () => {
  // 800k characters of base64: over 256k, so counted by its floor, not by BPE.
  const payload = base64(600_000, 11);

  it.each(['in-memory', 'file'] as const)(
    'fits the budget, says tokensBefore is a lower bound, and the %s store gives the payload back byte for byte',
    async (kind) => {
      const counter = createTokenCounter({ model: 'gpt-4o' });
      const store = kind === 'file' ? (await fileStore()).store : createInMemoryOffloadStore();
      const messages = base64Step(payload);
      const exact = createTokenCounter({ model: 'gpt-4o' }).countMessages(messages);
      const result = await compact(messages, {
        budgetTokens: 4_000,
        counter,
        summarizer: createExtractiveSummarizer({ counter }),
        offloadStore: store,
        scope,
      });
      expect(
        checkCompactionInvariants(messages, result.messages, { budgetTokens: 4_000, counter }),
      ).toEqual([]);
      expect(result.report.tokensBeforeIsLowerBound).toBe(true);
      expect(result.report.tokensBefore).toBeGreaterThan(4_000);
      expect(result.report.tokensBefore).toBeLessThanOrEqual(exact);
      // The excerpt grew back into the room the budget leaves.
      expect(result.report.tokensAfter).toBeGreaterThan(3_000);
      const ids = result.report.strategies.flatMap((report) => report.offloadIds ?? []);
      expect(ids).toHaveLength(1);
      const record = await store.get(scope, ids[0]!);
      expect(record.message).toEqual(messages[3]);
    },
  );

  it('keeps exact counts and no lower-bound flag for an ordinary history', async () => {
    const counter = createTokenCounter({ model: 'gpt-4o' });
    const messages = base64Step(base64(3_000, 2));
    const result = await compact(messages, {
      budgetTokens: 1_000,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: createInMemoryOffloadStore(),
      scope,
    });
    expect(result.report.tokensBeforeIsLowerBound).toBeUndefined();
    expect(result.report.tokensBefore).toBe(counter.countMessages(messages));
  });
});

/** Rounds of six tool steps each (runs the tool-runs strategy compresses), then a question. */
function toolHeavyHistory(rounds: number): Message[] {
  const messages: Message[] = [system('You are a coding agent.')];
  for (let round = 0; round < rounds; round++) {
    messages.push(user(`task ${round}: ${filler(200, `task${round}`)}`));
    for (let step = 0; step < 6; step++) {
      const id = `r${round}s${step}`;
      messages.push(calls({ id, name: 'read_file', input: { path: `src/${id}.ts` } }));
      messages.push(results({ id, name: 'read_file', output: filler(1_500, id) }));
    }
    messages.push(assistant(`done with task ${round}`));
  }
  messages.push(user('Summarize what changed.'));
  return messages;
}

describe('compact writes the offloads its result refers to', () => {
  it('writes only what the result refers to, and every id it reports can be reloaded', async () => {
    const { store, folder } = await fileStore();
    const counter = createTokenCounter({ model: 'gpt-4o' });
    const messages = toolHeavyHistory(40);
    const events: CtxmemEvent[] = [];
    const result = await compact(messages, {
      budgetTokens: 6_000,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: store,
      scope,
      onEvent: (event) => events.push(event),
    });
    expect(
      checkCompactionInvariants(messages, result.messages, { budgetTokens: 6_000, counter }),
    ).toEqual([]);
    const offloaded = new Set(
      events.flatMap((event) => (event.type === 'strategy' ? (event.report.offloadIds ?? []) : [])),
    );
    const written = result.report.strategies.flatMap((report) => report.offloadIds ?? []);
    const referenced = new Set(
      JSON.stringify([result.messages, result.summary]).match(/off_[0-9a-f]{16}/g) ?? [],
    );
    // Messages offloaded and then summarized away were not written.
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(offloaded.size);
    expect(new Set(written)).toEqual(new Set([...offloaded].filter((id) => referenced.has(id))));
    // Written together: one pack (records and an index), no file per message.
    const files = (await readdir(join(folder, 'scopes'), { recursive: true })).map(String);
    expect(files.filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    expect(files.filter((name) => name.endsWith('.json'))).toEqual([]);
    for (const id of referenced) await expect(store.get(scope, id)).resolves.toBeDefined();
  });

  it('writes as it goes to a store whose ids are its own', async () => {
    const inner = createInMemoryOffloadStore();
    const puts: string[] = [];
    // A store of the host's: its ids may be anything, so every put is made as the strategy asks.
    const store: OffloadStore = {
      async put(putScope, message) {
        const id = `own_${puts.length}`;
        puts.push(await inner.put(putScope, message));
        return id;
      },
      get: (getScope, id) => inner.get(getScope, id),
      delete: (deleteScope, id) => inner.delete(deleteScope, id),
    };
    const counter = createTokenCounter({ model: 'gpt-4o' });
    const result = await compact(toolHeavyHistory(10), {
      budgetTokens: 6_000,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: store,
      scope,
    });
    const reported = result.report.strategies.flatMap((report) => report.offloadIds ?? []);
    expect(puts.length).toBeGreaterThan(0);
    expect(reported).toHaveLength(new Set(reported).size);
    expect(reported.every((id) => id.startsWith('own_'))).toBe(true);
  });
});
