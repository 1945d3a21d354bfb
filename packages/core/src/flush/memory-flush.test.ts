import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message, TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createScriptedComplete } from '../test/summarizers.js';
import {
  buildFlushPrompt,
  flushThresholdTokens,
  importMemoryFiles,
  memoryFilesFolder,
  parseFlushReply,
  requestFlushNotes,
  writeFlushNotes,
} from './index.js';

const counter: TokenCounter = {
  name: 'chars',
  promptOverhead: 0,
  countText: (text) => Math.ceil(text.length / 4),
  countMessage: (message) => 4 + Math.ceil(JSON.stringify(message.content).length / 4),
  countMessages(messages) {
    return messages.reduce((sum, message) => sum + this.countMessage(message), 0);
  },
};

describe('flushThresholdTokens', () => {
  it('uses window − 20,000 − 4,000 when compaction comes later (20k reserve floor, 4k soft threshold)', () => {
    expect(flushThresholdTokens({ contextWindow: 200_000, triggerTokens: 190_000 })).toBe(176_000);
  });

  it('runs before ctxmem’s own compaction point when that comes first', () => {
    expect(flushThresholdTokens({ contextWindow: 200_000, triggerTokens: 160_000 })).toBe(156_000);
  });

  it('scales the reserve and soft threshold down for small windows', () => {
    // 10% and 5% of an 8k window instead of 20,000 and 4,000 tokens.
    expect(flushThresholdTokens({ contextWindow: 8_000, triggerTokens: 6_400 })).toBe(6_000);
  });

  it('rejects nonsense windows', () => {
    expect(() => flushThresholdTokens({ contextWindow: 0, triggerTokens: 10 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => flushThresholdTokens({ contextWindow: Number.NaN, triggerTokens: 10 })).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('parseFlushReply', () => {
  it('treats NO_REPLY and empty answers as nothing to store', () => {
    expect(parseFlushReply('NO_REPLY', 's')).toBeUndefined();
    expect(parseFlushReply('  no_reply\n', 's')).toBeUndefined();
    expect(parseFlushReply('', 's')).toBeUndefined();
  });

  it('reads the JSON notes, with unknown types falling back to fact', () => {
    const notes = parseFlushReply(
      'Here you go: {"long_term":[{"content":"User prefers Python for scripts","type":"preference","tags":["language"]},{"content":"Uses Postgres","type":"weird"}],"daily":["Set up CI"]}',
      'flush',
    );
    expect(notes).toEqual({
      longTerm: [
        {
          content: 'User prefers Python for scripts',
          type: 'preference',
          tags: ['language'],
          source: 'flush',
        },
        { content: 'Uses Postgres', type: 'fact', tags: [], source: 'flush' },
      ],
      daily: ['Set up CI'],
    });
  });

  it('keeps non-JSON text as daily notes only, never as durable memories', () => {
    expect(parseFlushReply('- decided to use Rust\n- met Alice', 's')).toEqual({
      longTerm: [],
      daily: ['decided to use Rust', 'met Alice'],
    });
  });
});

describe('buildFlushPrompt', () => {
  it('keeps the newest messages that fit and leaves out system text and injections', () => {
    const messages: Message[] = [
      { role: 'system', content: 'SECRET SYSTEM' },
      { role: 'user', content: 'old '.repeat(500) },
      { role: 'user', content: 'memories', ctxmem: { kind: 'memory-injection' } },
      { role: 'user', content: 'remember: I prefer Python' },
    ];
    const prompt = buildFlushPrompt(messages, { counter, maxInputTokens: 50 });
    expect(prompt).toContain('user: remember: I prefer Python');
    expect(prompt).not.toContain('SECRET SYSTEM');
    expect(prompt).not.toContain('old old');
    expect(prompt).not.toContain('memories\n');
  });
});

describe('flush files', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'ctxmem-flush-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes MEMORY.md and the daily file once, and indexes them back as cards', async () => {
    const complete = createScriptedComplete([
      '{"long_term":[{"content":"User prefers Python for scripts","type":"preference"}],"daily":["Discussed the CLI"]}',
    ]);
    const notes = await requestFlushNotes({
      complete,
      messages: [{ role: 'user', content: 'remember: I prefer Python for scripts' }],
      counter,
      maxInputTokens: 1_000,
      source: 'memory-flush',
    });
    expect(complete.requests[0]!.system).toContain('Store durable memories');
    const date = new Date('2026-11-22T10:00:00Z');
    expect(await writeFlushNotes({ root, scope: {}, notes: notes!, date })).toEqual({
      memoryLines: 1,
      dailyLines: 1,
    });
    // A second flush with the same notes adds nothing.
    expect(await writeFlushNotes({ root, scope: {}, notes: notes!, date })).toEqual({
      memoryLines: 0,
      dailyLines: 0,
    });
    const memory = await readFile(join(root, 'MEMORY.md'), 'utf8');
    expect(memory).toContain('- [preference] User prefers Python for scripts');
    expect(await readFile(join(root, 'memory', '2026-11-22.md'), 'utf8')).toContain(
      '- Discussed the CLI',
    );

    await writeFile(join(root, 'MEMORY.md'), `${memory}- [constraint] Never touch prod\n`);
    const store = createInMemoryMemoryStore();
    expect(await importMemoryFiles({ root, scope: {}, store })).toBe(3);
    const cards = await store.list({});
    expect(cards.map((card) => [card.type, card.content, card.source])).toEqual(
      expect.arrayContaining([
        ['preference', 'User prefers Python for scripts', 'MEMORY.md'],
        ['constraint', 'Never touch prod', 'MEMORY.md'],
        ['fact', 'Discussed the CLI', 'memory/2026-11-22.md'],
      ]),
    );
  });

  it('keeps each user’s files apart', async () => {
    const notes = {
      longTerm: [{ content: 'Alice likes tea', type: 'preference' as const }],
      daily: [],
    };
    await writeFlushNotes({ root, scope: { userId: 'alice' }, notes });
    const aliceFolder = memoryFilesFolder(root, { userId: 'alice' });
    expect(aliceFolder).not.toBe(memoryFilesFolder(root, { userId: 'bob' }));
    expect(await readFile(join(aliceFolder, 'MEMORY.md'), 'utf8')).toContain('Alice likes tea');
    const store = createInMemoryMemoryStore();
    expect(await importMemoryFiles({ root, scope: { userId: 'bob' }, store })).toBe(0);
  });
});
