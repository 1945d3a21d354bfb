import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryCard } from '@ctxmem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliContext, runCli } from '../index.js';
import type { MemoryAddSummary, MemorySearchLineJson, MemoryStatsJson } from './index.js';

/** `ctxmem memory <subcommand> --store store …`: the arguments of a command on the test's store. */
const inStore = (subcommand: string, ...rest: string[]): string[] => [
  'memory',
  subcommand,
  '--store',
  'store',
  ...rest,
];

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ctxmem-memory-cli-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(
  argv: string[],
  { stderrIsTTY, env = {} }: { stderrIsTTY?: boolean; env?: CliContext['env'] } = {},
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: {
      write: (text: string) => (stderr += text),
      ...(stderrIsTTY !== undefined ? { isTTY: stderrIsTTY } : {}),
    } as CliContext['stderr'],
    cwd: directory,
    env,
  });
  return { code, stdout, stderr };
}

/** A failure is exactly one line on stderr, nothing on stdout. */
function expectOneLineFailure(result: Run, code: number, pattern: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

async function writeJsonLines(name: string, records: readonly unknown[]): Promise<string> {
  await writeFile(
    join(directory, name),
    records.map((record) => JSON.stringify(record)).join('\n'),
  );
  return name;
}

async function listCards(scopeFlags: string[] = [], extra: string[] = []): Promise<MemoryCard[]> {
  const result = await run(inStore('list', ...scopeFlags, '--json', ...extra));
  expect(result.code).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as MemoryCard);
}

const CARDS = [
  { content: 'I prefer Python for scripts.', type: 'preference', tags: ['lang'], source: 'chat-1' },
  { content: 'The deploy target is Kubernetes on GCP.', type: 'decision' },
  {
    content: 'Rotate the API keys every 90 days.',
    type: 'todo',
    tags: ['security', 'ops'],
    source: 'turn:7',
  },
  // Supersedes the first card: the same statement with one detail changed.
  { content: 'I prefer Rust for scripts.', type: 'preference', source: 'chat-9' },
  // An exact duplicate of the card just added (normalized: case and final punctuation).
  { content: 'i prefer rust for scripts', type: 'preference' },
];

describe('ctxmem memory (help and usage)', () => {
  it('lists memory in the main help and prints its own help', async () => {
    expect((await run(['--help'])).stdout).toMatch(/memory\s+Add, search, list/);
    const help = await run(['memory', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: ctxmem memory <subcommand>');
    expect((await run(['help', 'memory'])).stdout).toBe(help.stdout);
    expect((await run(['memory', 'search', '-h'])).stdout).toBe(help.stdout);
  });

  it('rejects a missing or unknown subcommand as a usage error', async () => {
    expectOneLineFailure(await run(['memory']), 2, /missing subcommand.*add\|search/);
    expectOneLineFailure(await run(inStore('forget')), 2, /unknown subcommand "forget"/);
  });

  it('requires --store for every subcommand', async () => {
    for (const argv of [
      ['add', '--text', 'a fact'],
      ['search', '--query', 'fact'],
      ['list'],
      ['remove', 'some-id'],
      ['stats'],
    ]) {
      expectOneLineFailure(
        await run(['memory', ...argv]),
        2,
        /^ctxmem memory: memory commands need --store <dir>.*\(see: ctxmem memory --help\)$/,
      );
    }
  });

  it('rejects bad option values as usage errors, before touching the store', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['add', '--text', 'x', '--type', 'opinion'], /--type must be one of goal, .*"opinion"/],
      [['add'], /add needs the cards: --jsonl <file> or --text/],
      [['add', '--text', 'x', '--jsonl', 'cards.jsonl'], /not both/],
      [['add', '--text', '   '], /--text needs a value/],
      [['add', '--text', 'x'.repeat(10_001)], /--text is 10001 characters, more than the 10000/],
      [['search', '--query', 'x', '--top-k', '0'], /--top-k must be a whole number of 1 or more/],
      [['search', '--query', 'x', '--top-k', 'five'], /--top-k .* got "five"/],
      [['search', '--query', 'x', '--top-k', '2.5'], /--top-k .* got "2.5"/],
      [['search', '--query', 'x', '--min-score=-1'], /--min-score must be a number of 0/],
      [['search', '--query', 'x', '--mode', 'fuzzy'], /--mode must be one of hybrid, bm25, vector/],
      [['search'], /search needs --query/],
      [['search', '--query', 'x', '--queries', 'q.jsonl'], /not both/],
      [['list', '--bogus'], /unknown option '--bogus'/],
      [['list', 'extra'], /list takes no arguments/],
      [['remove'], /remove needs the ids/],
      [
        ['list', '--user', '../alice'],
        /Invalid userId "\.\.\/alice": it contains a path separator/,
      ],
      [['stats', '--session', 'a\u0000b'], /Invalid sessionId .*control character/],
    ];
    for (const [argv, pattern] of cases) {
      expectOneLineFailure(await run(['memory', ...argv, '--store', 'store']), 2, pattern);
    }
    // Nothing was created by any of them.
    await expect(stat(join(directory, 'store'))).rejects.toThrow();
  });
});

describe('ctxmem memory add', () => {
  it('adds one card from --text with the flags as its fields', async () => {
    const result = await run(
      inStore(
        'add',
        '--text',
        'The staging database is Postgres 16.',
        '--type',
        'fact',
        '--tags',
        'db, infra,,',
        '--source',
        'notes.md',
        '--user',
        'alice',
        '--session',
        's1',
      ),
    );
    expect(result).toEqual({
      code: 0,
      stdout:
        'added 1 card, merged 0 as duplicates, superseded 0 older cards (user:alice|session:s1 in store)\n',
      stderr: '',
    });
    const [card, ...others] = await listCards(['--user', 'alice', '--session', 's1']);
    expect(others).toEqual([]);
    expect(card).toMatchObject({
      content: 'The staging database is Postgres 16.',
      type: 'fact',
      tags: ['db', 'infra'],
      source: 'notes.md',
      scope: { userId: 'alice', sessionId: 's1' },
    });
  });

  it('adds JSONL records and counts added, duplicate and superseded cards', async () => {
    const file = await writeJsonLines('cards.jsonl', CARDS);
    const result = await run(inStore('add', '--jsonl', file, '--json'));
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const summary = JSON.parse(result.stdout) as MemoryAddSummary;
    expect(summary).toMatchObject({ added: 4, duplicates: 1, superseded: 1 });
    expect(summary.ids).toHaveLength(5);
    // The duplicate record ended up as the card of the record it repeats.
    expect(summary.ids[4]).toBe(summary.ids[3]);

    const current = await listCards();
    expect(current.map((card) => card.content)).toEqual([
      'The deploy target is Kubernetes on GCP.',
      'Rotate the API keys every 90 days.',
      'I prefer Rust for scripts.',
    ]);
    const all = await listCards([], ['--include-superseded']);
    expect(all.find((card) => card.id === summary.ids[0])?.supersededBy).toBe(summary.ids[3]);

    // Records of cards already stored merge into them: adding twice does not duplicate.
    const again = await writeJsonLines('again.jsonl', CARDS.slice(1, 3));
    const second = await run(inStore('add', '--jsonl', again));
    expect(second.stdout).toMatch(/^added 0 cards, merged 2 as duplicates, superseded 0 older/);
    expect(await listCards()).toEqual(current);
  });

  it('applies --type, --tags and --source only to records without the field', async () => {
    const file = await writeJsonLines('cards.jsonl', [
      { content: 'Ship the beta by Friday.' },
      { content: 'Use tabs in the Makefile.', type: 'constraint', tags: [], source: 'review' },
    ]);
    const result = await run(
      inStore(
        'add',
        '--jsonl',
        file,
        '--type',
        'goal',
        '--tags',
        'planning',
        '--source',
        'standup',
      ),
    );
    expect(result.code).toBe(0);
    const cards = await listCards();
    expect(cards.map(({ type, tags, source }) => ({ type, tags, source }))).toEqual([
      { type: 'goal', tags: ['planning'], source: 'standup' },
      { type: 'constraint', tags: [], source: 'review' },
    ]);
  });

  it('dates an episode record by its occurredAt', async () => {
    const file = await writeJsonLines('turns.jsonl', [
      {
        content: 'Ana: How long have you lived in Porto?',
        type: 'episode',
        occurredAt: '2023-05-08T13:56:00Z',
      },
      { content: 'Samantha: Six years now!', type: 'episode', occurredAt: '2023-05-08' },
    ]);
    expect((await run(inStore('add', '--jsonl', file))).code).toBe(0);
    expect((await listCards()).map(({ type, createdAt }) => ({ type, createdAt }))).toEqual([
      { type: 'episode', createdAt: '2023-05-08T13:56:00.000Z' },
      { type: 'episode', createdAt: '2023-05-08T00:00:00.000Z' },
    ]);
  });

  it('names the line of an invalid record and adds nothing', async () => {
    const lines = [
      JSON.stringify({ content: 'A valid first card.' }),
      '',
      '{"content": "broken',
      JSON.stringify({ content: 'Another valid card.' }),
    ];
    await writeFile(join(directory, 'cards.jsonl'), lines.join('\n'));
    const result = await run(inStore('add', '--jsonl', 'cards.jsonl'));
    expectOneLineFailure(
      result,
      1,
      /^ctxmem memory: cards\.jsonl: line 3: not valid JSON \(.+\) \(1 of 3 card lines invalid; nothing was done\)$/,
    );
    await expect(stat(join(directory, 'store'))).rejects.toThrow();
  });

  it('explains each kind of bad record, lists the first three and counts the rest', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ content: 'x', type: 'opinion' }, /line 1: "type" must be one of goal, .* got "opinion"/],
      [{ type: 'fact' }, /line 1: "content" is missing/],
      [{ content: '  ' }, /line 1: "content" must be a non-empty string, got " +"/],
      [{ content: 42 }, /line 1: "content" must be a non-empty string, got 42/],
      [{ content: 'x', tags: 'a,b' }, /line 1: "tags" must be an array of strings/],
      [{ content: 'x', tag: ['a'] }, /line 1: unknown field "tag" \(a record has content, type/],
      [{ content: 'x', source: 7 }, /line 1: "source" must be a string, got 7/],
      [{ content: 'x', occurredAt: 'May 8' }, /line 1: "occurredAt" must be an ISO 8601 date/],
      [['x'], /line 1: expected an object such as \{"content": "…"\}, got an array/],
    ];
    for (const [record, pattern] of cases) {
      await writeJsonLines('bad.jsonl', [record]);
      expectOneLineFailure(await run(inStore('add', '--jsonl', 'bad.jsonl')), 1, pattern);
    }
    await writeJsonLines('bad.jsonl', [
      { content: 'fine' },
      { content: 1 },
      { content: 2 },
      { content: 'fine too' },
      { content: 3 },
      { content: 4 },
      { content: 5 },
    ]);
    expectOneLineFailure(
      await run(inStore('add', '--jsonl', 'bad.jsonl')),
      1,
      /line 2: .*; line 3: .*; line 5: .*; and 2 more bad lines \(5 of 7 card lines invalid/,
    );
    await writeFile(join(directory, 'empty.jsonl'), '\n\n');
    expectOneLineFailure(
      await run(inStore('add', '--jsonl', 'empty.jsonl')),
      1,
      /empty\.jsonl has no cards/,
    );
  });

  it('fails on one line when the JSONL file cannot be read or --store is a file', async () => {
    expectOneLineFailure(
      await run(inStore('add', '--jsonl', 'missing.jsonl')),
      1,
      /^ctxmem memory: cannot read missing\.jsonl: no such file$/,
    );
    expectOneLineFailure(
      await run(inStore('add', '--jsonl', '.')),
      1,
      /cannot read \.: it is a directory/,
    );
    await writeFile(join(directory, 'not-a-folder'), 'x');
    expectOneLineFailure(
      await run(['memory', 'add', '--store', 'not-a-folder', '--text', 'a fact']),
      1,
      /--store not-a-folder is not a folder/,
    );
  });

  it('adds 1,000 cards from JSONL, with progress lines when --progress is given', async () => {
    const records = Array.from({ length: 1000 }, (_, index) => ({
      content: `Entry ${index} mentions alpha${index} beta${index} gamma${index} delta${index}.`,
      source: `line-${index}`,
    }));
    await writeJsonLines('many.jsonl', records);
    const result = await run(inStore('add', '--jsonl', 'many.jsonl', '--progress'));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^added 1,000 cards, merged 0 as duplicates, superseded 0/);
    // Without a terminal: plain lines (no carriage returns), one per tenth at most.
    expect(result.stderr).not.toContain('\r');
    const progress = result.stderr.trimEnd().split('\n');
    expect(progress[0]).toBe('adding cards: 0/1,000 (0%)');
    expect(progress.at(-1)).toBe('adding cards: 1,000/1,000 (100%)');
    expect(progress.length).toBeLessThanOrEqual(11);

    const cards = await listCards();
    expect(cards).toHaveLength(1000);
    expect(cards.map((card) => card.source)).toEqual(records.map((record) => record.source));
  });

  it('draws a bar on a terminal and erases it, and stays silent in CI or for few cards', async () => {
    const records = Array.from({ length: 250 }, (_, index) => ({
      content: `Item ${index} concerns zeta${index} eta${index} theta${index} iota${index}.`,
    }));
    await writeJsonLines('many.jsonl', records);
    const argv = inStore('add', '--jsonl', 'many.jsonl');

    const terminal = await run(argv, { stderrIsTTY: true });
    expect(terminal.code).toBe(0);
    expect(terminal.stderr).toMatch(/^\radding cards /);
    expect(terminal.stderr).toContain('250/250 (100%)');
    expect(terminal.stderr.endsWith('\r\u001b[2K')).toBe(true);
    expect(terminal.stderr).not.toContain('\n');

    expect((await run(argv, { stderrIsTTY: true, env: { CI: 'true' } })).stderr).toBe('');
    expect((await run(argv, { stderrIsTTY: false })).stderr).toBe('');
    expect((await run(inStore('add', '--text', 'one'), { stderrIsTTY: true })).stderr).toBe('');
  });
});

describe('ctxmem memory search', () => {
  beforeEach(async () => {
    const file = await writeJsonLines('cards.jsonl', CARDS);
    expect((await run(inStore('add', '--jsonl', file))).code).toBe(0);
  });

  it('prints a readable list of the best cards', async () => {
    const result = await run(
      inStore('search', '--query', 'which language do I prefer for scripts?'),
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const [first, details] = result.stdout.split('\n');
    expect(first).toMatch(/^1\. \d\.\d{3} \[preference\] I prefer Rust for scripts\.$/);
    expect(details).toMatch(/^ {3}id [\w-]+ · source chat-9$/);
    expect(result.stdout).not.toContain('Python');

    const none = await run(inStore('search', '--query', 'zebra migration', '--mode', 'bm25'));
    expect(none).toEqual({ code: 0, stdout: 'no results\n', stderr: '' });
  });

  it('answers --queries in input order, one JSON line each, with fields exactly as stored', async () => {
    const stored = await listCards();
    await writeJsonLines('queries.jsonl', [
      { query: 'API keys rotation' },
      { query: 'zebra migration' },
      { query: 'deploy target Kubernetes' },
      { query: 'API keys rotation' },
    ]);
    const result = await run(
      inStore('search', '--queries', 'queries.jsonl', '--top-k', '2', '--mode', 'bm25', '--json'),
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as MemorySearchLineJson);
    expect(lines.map((line) => line.query)).toEqual([
      'API keys rotation',
      'zebra migration',
      'deploy target Kubernetes',
      'API keys rotation',
    ]);
    expect(lines[1]!.results).toEqual([]);
    expect(lines[0]).toEqual(lines[3]);
    for (const line of lines) {
      expect(line.results.length).toBeLessThanOrEqual(2);
      for (const result of line.results) {
        expect(Object.keys(result).sort()).toEqual(
          ['content', 'id', 'score', 'source', 'tags', 'type'].sort(),
        );
        const card = stored.find((candidate) => candidate.id === result.id)!;
        expect(result).toEqual({
          id: card.id,
          content: card.content,
          score: expect.any(Number),
          type: card.type,
          tags: card.tags,
          source: card.source ?? null,
        });
      }
      const scores = line.results.map((result) => result.score);
      expect(scores).toEqual([...scores].sort((left, right) => right - left));
    }
    expect(lines[0]!.results[0]).toMatchObject({
      content: 'Rotate the API keys every 90 days.',
      type: 'todo',
      tags: ['security', 'ops'],
      source: 'turn:7',
    });
    expect(lines[2]!.results[0]).toMatchObject({
      content: 'The deploy target is Kubernetes on GCP.',
      source: null,
    });
  });

  it('prints readable results per query for --queries without --json', async () => {
    await writeJsonLines('queries.jsonl', [{ query: 'API keys' }, { query: 'zebra' }]);
    const result = await run(inStore('search', '--queries', 'queries.jsonl', '--mode', 'bm25'));
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('"API keys": 1 result');
    expect(lines[1]).toMatch(/^ {2}1\. \d\.\d{3} \[todo\] Rotate the API keys every 90 days\.$/);
    expect(lines[2]).toMatch(/^ {5}id [\w-]+ · tags security, ops · source turn:7$/);
    expect(lines[3]).toBe('"zebra": 0 results');
  });

  it('keeps scopes apart: a card added for alice is not found for bob', async () => {
    const add = await run(inStore('add', '--text', 'My locker code is 4711.', '--user', 'alice'));
    expect(add.code).toBe(0);
    const search = (flags: string[]) =>
      run(inStore('search', '--query', 'locker code', '--json', ...flags));
    const resultsOf = (result: Run) =>
      (JSON.parse(result.stdout) as MemorySearchLineJson).results.map((hit) => hit.content);

    expect(resultsOf(await search(['--user', 'alice']))).toEqual(['My locker code is 4711.']);
    expect(resultsOf(await search(['--user', 'bob']))).toEqual([]);
    // The global scope has cards of its own (they may match weakly), but never alice's.
    expect(resultsOf(await search([]))).not.toContain('My locker code is 4711.');
    expect(resultsOf(await search(['--user', 'alice', '--session', 's1']))).toEqual([]);
    expect(await listCards(['--user', 'bob'])).toEqual([]);

    // A query line's own scope replaces the flags' scope for that line only.
    await writeJsonLines('queries.jsonl', [
      { query: 'locker code', scope: { userId: 'alice' } },
      { query: 'locker code' },
      { query: 'locker code', scope: {} },
    ]);
    const batch = await run(
      inStore('search', '--queries', 'queries.jsonl', '--user', 'bob', '--json'),
    );
    const contents = batch.stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as MemorySearchLineJson).results.map((hit) => hit.content));
    expect(contents[0]).toEqual(['My locker code is 4711.']);
    expect(contents[1]).toEqual([]);
    expect(contents[2]).not.toContain('My locker code is 4711.');
    expect(contents[2]!.length).toBeGreaterThan(0);
  });

  it('honours --min-score, --top-k and every --mode', async () => {
    const base = inStore('search', '--query', 'prefer scripts', '--json');
    const count = async (flags: string[]) => {
      const result = await run([...base, ...flags]);
      expect(result.code).toBe(0);
      return (JSON.parse(result.stdout) as MemorySearchLineJson).results.length;
    };
    expect(await count([])).toBeGreaterThan(0);
    expect(await count(['--min-score', '1000'])).toBe(0);
    expect(await count(['--top-k', '1'])).toBe(1);
    for (const mode of ['hybrid', 'bm25', 'vector']) {
      const result = await run([...base, '--mode', mode, '--top-k', '1']);
      expect(result.stderr).toBe('');
      const [hit] = (JSON.parse(result.stdout) as MemorySearchLineJson).results;
      expect(hit?.content).toBe('I prefer Rust for scripts.');
    }
  });

  it('names the line of a bad query record and answers none', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ question: 'x' }, /line 1: unknown field "question" \(a record has query, scope\)/],
      [{}, /line 1: "query" is missing/],
      [{ query: '' }, /line 1: "query" must be a non-empty string/],
      [{ query: 'x', scope: 'alice' }, /line 1: "scope" must be an object/],
      [{ query: 'x', scope: { user: 'a' } }, /line 1: unknown scope field "user"/],
      [{ query: 'x', scope: { userId: 1 } }, /line 1: "scope\.userId" must be a string/],
      [{ query: 'x', scope: { userId: '../a' } }, /line 1: "scope": invalid userId/],
    ];
    for (const [record, pattern] of cases) {
      await writeJsonLines('queries.jsonl', [record]);
      expectOneLineFailure(await run(inStore('search', '--queries', 'queries.jsonl')), 1, pattern);
    }
    await writeFile(join(directory, 'queries.jsonl'), '{"query": "fine"}\nnot json\n');
    expectOneLineFailure(
      await run(inStore('search', '--queries', 'queries.jsonl', '--json')),
      1,
      /queries\.jsonl: line 2: not valid JSON/,
    );
    expectOneLineFailure(
      await run(inStore('search', '--queries', 'nope.jsonl')),
      1,
      /cannot read nope\.jsonl: no such file/,
    );
  });

  it('refuses a store folder that does not exist instead of finding nothing', async () => {
    for (const argv of [['search', '--query', 'x'], ['list'], ['stats'], ['remove', 'some-id']]) {
      expectOneLineFailure(
        await run(['memory', ...argv, '--store', 'no-such-store']),
        1,
        /no memory store at no-such-store \(the folder does not exist/,
      );
    }
  });
});

describe('ctxmem memory list, remove and stats', () => {
  beforeEach(async () => {
    const file = await writeJsonLines('cards.jsonl', CARDS);
    expect((await run(inStore('add', '--jsonl', file))).code).toBe(0);
  });

  it('lists current cards as a table, superseded ones only on request', async () => {
    const result = await run(inStore('list'));
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+type\s+updated\s+content$/);
    expect(lines.slice(1, -1)).toHaveLength(3);
    expect(lines[3]).toMatch(/^[\w-]+\s+preference\s+\d{4}-\d{2}-\d{2}\s+I prefer Rust/);
    expect(lines[2]).toContain('Rotate the API keys every 90 days. #security #ops');
    expect(lines.at(-1)).toBe(
      '3 cards in global (and 1 superseded; --include-superseded lists them)',
    );

    const all = await run(inStore('list', '--include-superseded'));
    expect(all.stdout).toContain('(superseded) I prefer Python for scripts.');
    expect(all.stdout.trimEnd().split('\n').at(-1)).toBe('4 cards in global');

    const empty = await run(inStore('list', '--agent', 'helper'));
    expect(empty).toEqual({ code: 0, stdout: '0 cards in agent:helper\n', stderr: '' });
  });

  it('lists every stored field with --json', async () => {
    const cards = await listCards([], ['--include-superseded']);
    expect(cards).toHaveLength(4);
    expect(cards[0]).toEqual({
      id: expect.any(String),
      content: 'I prefer Python for scripts.',
      type: 'preference',
      tags: ['lang'],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      source: 'chat-1',
      scope: {},
      supersededBy: cards[3]!.id,
    });
  });

  it('removes cards by id, and removes none when one id is unknown or unsafe', async () => {
    const [first, second, third] = await listCards();
    const failed = await run(['memory', 'remove', first!.id, 'no-such-card', '--store', 'store']);
    expectOneLineFailure(failed, 1, /no card "no-such-card" in global \(nothing was removed/);
    expectOneLineFailure(
      await run(['memory', 'remove', first!.id, '../etc/passwd', '--store', 'store']),
      2,
      /Invalid card id "\.\.\/etc\/passwd": it contains a path separator/,
    );
    // The card exists, but in another scope.
    expectOneLineFailure(
      await run(['memory', 'remove', first!.id, '--store', 'store', '--user', 'bob']),
      1,
      /no card .* in user:bob/,
    );
    expect(await listCards()).toHaveLength(3);

    const removed = await run(['memory', 'remove', first!.id, second!.id, '--store', 'store']);
    expect(removed).toEqual({ code: 0, stdout: 'removed 2 cards from global\n', stderr: '' });
    expect((await listCards()).map((card) => card.id)).toEqual([third!.id]);
  });

  it('counts cards per type and superseded cards, and measures the file', async () => {
    const result = await run(inStore('stats', '--json'));
    expect(result.code).toBe(0);
    const stats = JSON.parse(result.stdout) as MemoryStatsJson;
    expect(stats).toMatchObject({
      scope: {},
      scopeKey: 'global',
      cards: 3,
      superseded: 1,
      types: { goal: 0, decision: 1, constraint: 0, todo: 1, code: 0, fact: 0, preference: 1 },
    });
    expect(stats.fileBytes).toBe((await stat(stats.file)).size);
    expect(stats.fileBytes).toBeGreaterThan(0);

    const readable = await run(inStore('stats'));
    expect(readable.stdout).toMatch(/cards\s+3 current, 1 superseded/);
    expect(readable.stdout).toMatch(/by type\n {2}decision\s+1\n/);

    const other = JSON.parse(
      (await run(inStore('stats', '--user', 'bob', '--json'))).stdout,
    ) as MemoryStatsJson;
    expect(other).toMatchObject({ cards: 0, superseded: 0, fileBytes: 0 });
  });

  it('recovers a damaged cards file with a one-line warning instead of failing', async () => {
    const { file } = JSON.parse((await run(inStore('stats', '--json'))).stdout) as MemoryStatsJson;
    const text = await readFile(file, 'utf8');
    const lines = text.split('\n');
    // Break the second card (the log's first change holds all four): the others can still be read.
    lines[1] = lines[1]!.replace('"type":"decision"', '"type":"broken"');
    await writeFile(file, lines.join('\n'));

    const result = await run(inStore('list', '--include-superseded'));
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('3 cards in global');
    expect(result.stderr).toMatch(
      /^ctxmem memory: warning: .*cards\.jsonl was damaged .* recovered 3 cards, dropped 1; the damaged file is kept at .*corrupt/,
    );
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    const folder = join(file, '..');
    expect((await readdir(folder)).some((name) => name.includes('.corrupt-'))).toBe(true);
  });
});
