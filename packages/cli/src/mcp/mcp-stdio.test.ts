import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createFileHistoryStore,
  createFileMemoryStore,
  createFileOffloadStore,
  type MemoryCardResult,
  type SearchMemoryResult,
} from '@ctxmem/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callError,
  callTool,
  readText,
  type StdioServer,
  seedConversation,
  startStdioServer,
} from './mcp.test-helper.js';

let store = '';
let alice: StdioServer;
let bob: StdioServer;
let offloadId = '';

beforeAll(async () => {
  store = await mkdtemp(join(tmpdir(), 'ctxmem-mcp-'));
  ({ offloadId } = await seedConversation(
    {
      history: createFileHistoryStore({ root: store }),
      offload: createFileOffloadStore({ root: store }),
    },
    { userId: 'alice', sessionId: 's1' },
  ));
  // Two servers on one store: Alice's scope from a flag, Bob's from the environment.
  [alice, bob] = await Promise.all([
    startStdioServer(['--store', store, '--user', 'alice']),
    startStdioServer(['--store', store], { CTXMEM_USER_ID: 'bob' }),
  ]);
});

afterAll(async () => {
  await Promise.all([alice?.close(), bob?.close()]);
  await rm(store, { recursive: true, force: true });
});

describe('ctxmem mcp over stdio', () => {
  it('lists core’s memory tools and the MEMORY.md resource', async () => {
    const { tools } = await alice.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'search_memory',
      'add_memory',
      'list_memories',
      'remove_memory',
      'recall_conversation',
      'reload_context',
    ]);
    const add = tools.find((tool) => tool.name === 'add_memory')!;
    expect(add.inputSchema.required).toEqual(['content']);
    expect(Object.keys(add.inputSchema.properties!)).toEqual([
      'content',
      'type',
      'tags',
      'source',
      'occurredAt',
      'scope',
    ]);
    expect(add.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(tools.find((tool) => tool.name === 'remove_memory')!.annotations).toMatchObject({
      destructiveHint: true,
    });
    const { resources } = await alice.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['ctxmem://memory/MEMORY.md']);
    expect(alice.stderr()).toMatch(/serving .* \(scope user:alice\) over stdio/);
  });

  it('adds, searches, lists, reads as MEMORY.md and removes a card', async () => {
    const { card } = await callTool<{ card: MemoryCardResult }>(alice.client, 'add_memory', {
      content: 'Alice deploys the billing service with Terraform',
      type: 'decision',
      tags: ['billing', 'infra'],
      source: 'standup',
      occurredAt: '2024-04-02T09:30:00+02:00',
    });
    expect(card).toMatchObject({
      type: 'decision',
      tags: ['billing', 'infra'],
      source: 'standup',
      createdAt: '2024-04-02T07:30:00.000Z',
    });

    const found = await callTool<SearchMemoryResult>(alice.client, 'search_memory', {
      query: 'how is billing deployed?',
    });
    expect(found.results[0]).toMatchObject({ id: card.id, type: 'decision' });

    const listed = await callTool<{ cards: MemoryCardResult[]; total: number }>(
      alice.client,
      'list_memories',
      { tags: ['billing'] },
    );
    expect(listed).toMatchObject({ total: 1, cards: [{ id: card.id }] });

    expect(await readText(alice.client, 'ctxmem://memory/MEMORY.md')).toContain(
      '- [decision] Alice deploys the billing service with Terraform\n',
    );

    expect(await callTool(alice.client, 'remove_memory', { ids: [card.id] })).toEqual({
      removed: [card.id],
    });
    const after = await callTool<SearchMemoryResult>(alice.client, 'search_memory', {
      query: 'billing Terraform',
    });
    expect(after.results.map((result) => result.id)).not.toContain(card.id);
    expect(await readText(alice.client, 'ctxmem://memory/MEMORY.md')).not.toContain('Terraform');
  });

  it('recalls exact turns and reloads an offloaded payload of a session', async () => {
    const session = { sessionId: 's1' };
    const recalled = await callTool(alice.client, 'recall_conversation', {
      turn_numbers: [2, 7],
      scope: session,
    });
    expect(recalled).toEqual({
      turns: [
        {
          turn: 2,
          messages: [
            { role: 'user', text: 'And production?' },
            { role: 'assistant', text: 'Production uses 5432.' },
          ],
        },
      ],
      missing: [7],
    });
    const reloaded = await callTool(alice.client, 'reload_context', {
      id: offloadId,
      scope: session,
    });
    expect(reloaded).toMatchObject({ id: offloadId, role: 'tool', page: 1, pages: 1 });
    expect((reloaded as { content: string }).content).toContain('4,000 lines of output');
    // Without the session it is another scope: nothing there.
    expect(await callError(alice.client, 'reload_context', { id: offloadId })).toMatch(
      /No offloaded content off_\w+ in this scope/,
    );
  });

  it('keeps two scopes apart: neither sees the other’s cards, by tool or resource', async () => {
    await callTool(alice.client, 'add_memory', { content: 'Alice drinks green tea' });
    await callTool(bob.client, 'add_memory', { content: 'Bob drinks black coffee' });
    // Another session of Alice's is a scope of its own too.
    await callTool(alice.client, 'add_memory', {
      content: 'Alice drinks cocoa at night',
      scope: { sessionId: 'evening' },
    });

    const drinks = async (server: StdioServer, scope?: object) =>
      (
        await callTool<SearchMemoryResult>(server.client, 'search_memory', {
          query: 'what does she or he drink? tea coffee cocoa',
          ...(scope ? { scope } : {}),
        })
      ).results.map((result) => result.content);
    expect(await drinks(alice)).toEqual(['Alice drinks green tea']);
    expect(await drinks(bob)).toEqual(['Bob drinks black coffee']);
    expect(await drinks(alice, { sessionId: 'evening' })).toEqual(['Alice drinks cocoa at night']);

    const aliceFile = await readText(alice.client, 'ctxmem://memory/MEMORY.md');
    const bobFile = await readText(bob.client, 'ctxmem://memory/MEMORY.md');
    expect(aliceFile).toContain('green tea');
    expect(aliceFile).not.toMatch(/coffee|cocoa/);
    expect(bobFile).toContain('black coffee');
    expect(bobFile).not.toMatch(/tea|cocoa/);
    expect(
      await readText(alice.client, 'ctxmem://memory/user/alice/session/evening/MEMORY.md'),
    ).toContain('cocoa');

    // Alice's server is fixed to Alice: Bob's scope is refused, by tool and by resource.
    expect(await callError(alice.client, 'list_memories', { scope: { userId: 'bob' } })).toMatch(
      /scope\.userId "bob" is not allowed.*"alice" only \(set by --user\)/,
    );
    await expect(
      alice.client.readResource({ uri: 'ctxmem://memory/user/bob/MEMORY.md' }),
    ).rejects.toThrow(/"bob" is not allowed/);
    expect(
      await callError(bob.client, 'search_memory', { query: 'tea', scope: { userId: 'alice' } }),
    ).toMatch(/set by CTXMEM_USER_ID/);
  });

  it('answers 50 malformed calls with errors naming the problem, and keeps serving', async () => {
    const many = (count: number, value: unknown) => Array.from({ length: count }, () => value);
    const cases: Array<[string, unknown, RegExp]> = [
      ['search_memory', {}, /query/],
      ['search_memory', { query: 5 }, /expected string.*query/],
      ['search_memory', { query: '' }, /query/],
      ['search_memory', { query: null }, /query/],
      ['search_memory', { query: 'x'.repeat(100_000) }, /2000.*query/],
      ['search_memory', { query: 'x', top_k: 0 }, /top_k/],
      ['search_memory', { query: 'x', top_k: 1.5 }, /int.*top_k/i],
      ['search_memory', { query: 'x', top_k: '5' }, /top_k/],
      ['search_memory', { query: 'x', top_k: 51 }, /top_k/],
      ['search_memory', { query: 'x', topk: 3 }, /topk/],
      ['search_memory', { query: 'x', scope: 'alice' }, /scope/],
      ['search_memory', { query: 'x', scope: { user: 'bob' } }, /user/],
      ['search_memory', { query: 'x', scope: { sessionId: '../etc' } }, /sessionId.*\.\./],
      ['search_memory', { query: 'x', scope: { sessionId: '' } }, /sessionId/],
      ['search_memory', { query: 'x', scope: { agentId: 'a/b' } }, /agentId.*path separator/],
      ['add_memory', {}, /content/],
      ['add_memory', { content: 5 }, /content/],
      ['add_memory', { content: '   ' }, /blank/],
      ['add_memory', { content: ['x'] }, /content/],
      ['add_memory', { content: 'x'.repeat(1_000_000) }, /10000.*content/],
      ['add_memory', { content: 'x', type: 'opinion' }, /type/],
      ['add_memory', { content: 'x', tags: 'a,b' }, /tags/],
      ['add_memory', { content: 'x', tags: [1] }, /tags/],
      ['add_memory', { content: 'x', tags: [''] }, /tags/],
      ['add_memory', { content: 'x', tags: many(21, 't') }, /tags/],
      ['add_memory', { content: 'x', tags: ['y'.repeat(101)] }, /tags/],
      ['add_memory', { content: 'x', source: '' }, /source/],
      ['add_memory', { content: 'x', occurredAt: 'yesterday' }, /ISO 8601.*occurredAt/s],
      ['add_memory', { content: 'x', occurredAt: '2023-02-30' }, /ISO 8601.*occurredAt/s],
      ['add_memory', { content: 'x', occurredAt: '2023-05-08T10:00' }, /ISO 8601.*occurredAt/s],
      ['add_memory', { content: 'x', occurredAt: 20230508 }, /occurredAt/],
      ['list_memories', { limit: 0 }, /limit/],
      ['list_memories', { limit: 1000 }, /limit/],
      ['list_memories', { offset: -1 }, /offset/],
      ['list_memories', { type: 'nope' }, /type/],
      ['list_memories', { include_superseded: 'yes' }, /include_superseded/],
      ['remove_memory', {}, /ids/],
      ['remove_memory', { ids: [] }, /ids/],
      ['remove_memory', { ids: 'abc' }, /ids/],
      ['remove_memory', { ids: [5] }, /ids/],
      ['remove_memory', { ids: many(101, 'a') }, /ids/],
      ['remove_memory', { ids: many(5_000, 'a') }, /more than the maximum of 1000 elements/],
      ['remove_memory', { ids: ['../../x'] }, /Invalid card id.*\.\./i],
      ['remove_memory', { ids: ['no-such-card'] }, /No memory with id "no-such-card"/],
      ['recall_conversation', { turn_numbers: [] }, /turn_numbers/],
      ['recall_conversation', { turn_numbers: [-1] }, /turn_numbers/],
      ['recall_conversation', { turn_numbers: ['one'] }, /turn_numbers/],
      ['recall_conversation', { turn_numbers: many(21, 1) }, /turn_numbers/],
      ['reload_context', { id: '../../etc/passwd' }, /offload id.*id/],
      ['reload_context', { id: 'off_missing' }, /Invalid offload id "off_missing"/],
      [
        'reload_context',
        { id: 'off_0000000000000000' },
        /No offloaded content off_0000000000000000 in this scope/,
      ],
      ['reload_context', { id: offloadId, page: 0, scope: { sessionId: 's1' } }, /page/],
      [
        'reload_context',
        { id: offloadId, page: 9, scope: { sessionId: 's1' } },
        /page 9 does not exist/,
      ],
      ['forget_everything', {}, /Tool forget_everything not found/],
      // Not an arguments object at all: the SDK refuses the request itself (a JSON-RPC error).
      ['add_memory', many(3, 'x'), /"arguments".*expected record, received array/s],
    ];
    expect(cases.length).toBeGreaterThanOrEqual(50);
    for (const [name, args, problem] of cases) {
      const message = await callError(alice.client, name, args);
      expect({ name, args: JSON.stringify(args).slice(0, 80), message }).toMatchObject({
        message: expect.stringMatching(problem),
      });
    }
    // Resource addresses that are not a scope's MEMORY.md: JSON-RPC errors.
    for (const uri of [
      'ctxmem://memory/planet/mars/MEMORY.md',
      'ctxmem://memory/user/MEMORY.md/x',
      'ctxmem://memory/user/%E0%A4%A/MEMORY.md',
      'ctxmem://elsewhere',
    ]) {
      await expect(alice.client.readResource({ uri })).rejects.toThrow(/MCP error/);
    }

    // Still serving, and nothing was written by the bad calls.
    const { card } = await callTool<{ card: MemoryCardResult }>(alice.client, 'add_memory', {
      content: 'Alice’s laptop runs Debian',
    });
    const { results } = await callTool<SearchMemoryResult>(alice.client, 'search_memory', {
      query: 'which operating system on the laptop',
    });
    expect(results[0]?.id).toBe(card.id);
    const all = await callTool<{ cards: MemoryCardResult[] }>(alice.client, 'list_memories', {});
    expect(all.cards.map((listed) => listed.content)).not.toContain('x');
    expect(alice.stderr()).not.toMatch(/unexpected error/);
  });
});

describe('ctxmem mcp and store faults', () => {
  it('answers a store fault with an error for that scope, and keeps serving the others', async () => {
    await callTool(alice.client, 'add_memory', {
      content: 'This card’s file will be broken',
      scope: { sessionId: 'faulty' },
    });
    const files = (await readdir(store, { recursive: true })) as string[];
    const cards = files.filter((file) => /faulty.*cards\.jsonl$/.test(file));
    expect(cards).toHaveLength(1);
    // The scope's card log becomes a folder: every read and write of it fails.
    await rm(join(store, cards[0]!));
    await mkdir(join(store, cards[0]!));

    const faulty = { scope: { sessionId: 'faulty' } };
    for (const [name, args] of [
      ['add_memory', { content: 'Another card', ...faulty }],
      ['list_memories', faulty],
      ['search_memory', { query: 'card', ...faulty }],
    ] as const) {
      expect(await callError(alice.client, name, args)).toMatch(/EISDIR|directory|cards\.jsonl/i);
    }
    await expect(
      alice.client.readResource({ uri: 'ctxmem://memory/user/alice/session/faulty/MEMORY.md' }),
    ).rejects.toThrow(/EISDIR|directory|cards\.jsonl/i);
    const { cards: own } = await callTool<{ cards: MemoryCardResult[] }>(
      alice.client,
      'list_memories',
      {},
    );
    expect(own.map((card) => card.content)).toContain('Alice drinks green tea');
  });
});

describe('ctxmem mcp shutdown', () => {
  const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
  const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));

  it('answers the requests it read, then stops when stdin ends', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', bin, 'mcp', '--store', store, '--user', 'carol'],
      { cwd: repositoryRoot, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'add_memory', arguments: { content: 'Carol writes Rust' } },
      },
      'not json at all',
    ];
    child.stdin.end(
      `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`,
    );
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result?: { isError?: boolean } });
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2]);
    expect(answers.find((answer) => answer.id === 2)!.result?.isError).toBeUndefined();
    expect(stderr).toMatch(/stopped \(stdin ended\)/);
    expect(stderr).not.toMatch(/unexpected error/);
    // The acknowledged write is in the store.
    const cards = await createFileMemoryStore({ root: store }).list({ userId: 'carol' });
    expect(cards.map((card) => card.content)).toEqual(['Carol writes Rust']);
  });
});

describe('the MCP SDK is loaded by ctxmem mcp only', () => {
  const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
  const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));
  // Counts the modules a run resolves, and those of the MCP SDK (Node's synchronous hooks).
  const countModules = `data:text/javascript,${encodeURIComponent(`
    import { registerHooks } from 'node:module';
    const urls = new Set();
    registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); urls.add(result.url); return result; } });
    process.on('exit', () => process.stderr.write('modules ' + urls.size + ', of the MCP SDK ' + [...urls].filter((url) => url.includes('@modelcontextprotocol')).length + '\\n'));
  `)}`;
  const run = async (args: string[], input: string) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', countModules, bin, ...args],
      {
        cwd: repositoryRoot,
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(input);
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const [, modules, sdk] = /modules (\d+), of the MCP SDK (\d+)/.exec(stderr)!.map(Number);
    return { modules: modules!, sdk: sdk! };
  };

  it('ctxmem compact never imports it; ctxmem mcp does', async () => {
    const [compact, mcp] = await Promise.all([
      run(['compact', '-', '--budget', '8k', '--quiet'], '[{"role":"user","content":"hi"}]'),
      run(['mcp', '--store', store, '--quiet'], ''),
    ]);
    expect(compact.modules).toBeGreaterThan(50);
    expect(compact.sdk).toBe(0);
    expect(mcp.sdk).toBeGreaterThan(0);
  });
});
