import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createContextManager,
  createFileHistoryStore,
  createFileMemoryStore,
  createFileOffloadStore,
  createTokenCounter,
} from '@ctxmem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliContext, runCli } from '../index.js';
import { agentConversation, SCRIPT_XSS } from './fixture.test-helper.js';
import { callPoints, runInspector } from './index.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ctxmem-inspector-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function context(): CliContext & { out: () => string; err: () => string } {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    cwd: directory,
    env: {},
    out: () => stdout,
    err: () => stderr,
  };
}

async function writeConversation(): Promise<string> {
  const path = join(directory, 'session.json');
  await writeFile(path, JSON.stringify({ messages: agentConversation() }));
  return path;
}

describe('ctxmem inspect --html', () => {
  it('writes a dry-run page for a conversation file at --budget', async () => {
    await writeConversation();
    const cli = context();
    const code = await runCli(
      ['inspect', 'session.json', '--budget', '4500', '--html', 'report.html'],
      cli,
    );
    expect(cli.err()).toBe('');
    expect(code).toBe(0);
    expect(cli.out()).toMatch(
      /^wrote report\.html \(16 calls, \d+ compactions, \d+ offloaded payloads\)\n$/,
    );
    const html = await readFile(join(directory, 'report.html'), 'utf8');
    expect(html).toContain('Budget 4500 tokens for the messages (--budget)');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain(SCRIPT_XSS);
    const compactions = Number(/\((\d+) calls, (\d+) compactions/.exec(cli.out())![2]);
    expect(compactions).toBeGreaterThan(0);
    expect(html.match(/data-compaction="/g)).toHaveLength(compactions);
  });

  it('reads the conversation from stdin with - and writes the page to stdout with --html -', async () => {
    const cli = context();
    const body = JSON.stringify({ messages: agentConversation() });
    const code = await runCli(['inspect', '-', '--budget', '4500', '--html', '-'], {
      ...cli,
      stdin: [Buffer.from(body)],
    });
    expect(cli.err()).toBe('');
    expect(code).toBe(0);
    expect(cli.out()).toMatch(/^<!doctype html>/i);
    expect(cli.out()).toContain('Budget 4500 tokens for the messages (--budget)');
    expect(cli.out().match(/data-compaction="/g)?.length).toBeGreaterThan(0);

    const summary = context();
    expect(await runCli(['inspect', '-'], { ...summary, stdin: [Buffer.from(body)] })).toBe(0);
    expect(summary.out()).toMatch(/tokens/);
  });

  it('reads a stored session: the recorded calls and the recorded working state', async () => {
    const root = join(directory, 'store');
    const scope = { sessionId: 'build-42' };
    const manager = createContextManager({
      contextWindow: 6_000,
      historyStore: createFileHistoryStore({ root }),
      offloadStore: createFileOffloadStore({ root }),
    });
    const messages = agentConversation();
    const compacted: number[] = [];
    for (const end of callPoints(messages)) {
      const prepared = await manager.prepare(messages.slice(0, end), { scope });
      if (prepared.compacted) compacted.push(end);
    }
    const cli = context();
    const code = await runCli(
      ['inspect', 'build-42', '--store', 'store', '--context-window', '6000', '--html', 'out.html'],
      cli,
    );
    expect(cli.err()).toBe('');
    expect(code).toBe(0);
    const html = await readFile(join(directory, 'out.html'), 'utf8');
    const state = await createFileHistoryStore({ root }).getState(scope);
    const calls = state?.calls ?? [];
    expect(compacted.length).toBeGreaterThan(0);
    // Written with the latest compaction: the calls up to it, each compaction where it happened.
    expect(calls.at(-1)?.historyMessages).toBe(compacted.at(-1));
    expect(html).toContain('<section id="timeline" data-source="recorded">');
    expect(cli.out()).toContain(`(${calls.length} calls, ${compacted.length} compactions`);
    expect(html.match(/data-compaction="/g)).toHaveLength(compacted.length);
    expect(html).toContain('Working state recorded in the store');
    // Every payload a recorded call or the state points at can be opened from the page.
    const ids = [
      ...state!.messages.flatMap((message) => message.ctxmem?.offloadIds ?? []),
      ...calls.flatMap((call) => [...call.offloadIds, ...(call.compaction?.offloadIds ?? [])]),
    ];
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(html).toContain(`data-offload-id="${id}"`);
    expect(html).not.toContain('not found in the offload store');
  });

  it('replays a stored session that has no call records (stored by an older version)', async () => {
    const root = join(directory, 'store');
    const scope = { sessionId: 'build-42' };
    const manager = createContextManager({
      contextWindow: 6_000,
      historyStore: createFileHistoryStore({ root }),
      offloadStore: createFileOffloadStore({ root }),
      recordedCalls: 0,
    });
    const messages = agentConversation();
    for (const end of callPoints(messages)) {
      await manager.prepare(messages.slice(0, end), { scope });
    }
    const cli = context();
    const code = await runCli(
      ['inspect', 'build-42', '--store', 'store', '--context-window', '6000', '--html', 'out.html'],
      cli,
    );
    expect(cli.err()).toBe('');
    expect(code).toBe(0);
    const html = await readFile(join(directory, 'out.html'), 'utf8');
    expect(html).toContain('Working state recorded in the store');
    expect(html).toContain('<section id="timeline" data-source="replay">');
    expect(html).toContain(`replays the ${callPoints(messages).at(-1)} stored messages`);
    const state = await createFileHistoryStore({ root }).getState(scope);
    expect(state?.cycle).toBeGreaterThan(0);
    expect(html).toContain(`compaction cycle ${state!.cycle}`);
    // Every payload the recorded state points at can be opened from the page.
    const ids = state!.messages.flatMap((message) => message.ctxmem?.offloadIds ?? []);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(html).toContain(`data-offload-id="${id}"`);
    expect(html).not.toContain('not found in the offload store');
  });

  it('shows the memory cards a --memory-store search injected, with their scores', async () => {
    await writeConversation();
    const memories = join(directory, 'memories');
    await createFileMemoryStore({ root: memories }).add({}, [
      { type: 'constraint', content: 'The build deadline is Friday <b>sharp</b>' },
    ]);
    const cli = context();
    const code = await runCli(
      [
        'inspect',
        'session.json',
        '--budget',
        '4500',
        '--memory-store',
        'memories',
        '--html',
        'm.html',
      ],
      cli,
    );
    expect(cli.err()).toBe('');
    expect(code).toBe(0);
    const html = await readFile(join(directory, 'm.html'), 'utf8');
    const section = html.slice(html.indexOf('<section id="memories">'));
    expect(section).toContain('The build deadline is Friday &lt;b&gt;sharp&lt;/b&gt;');
    expect(section).toMatch(/<td class="n">\d\.\d{3}<\/td><td>constraint<\/td>/);
  });

  it('serves the page until told to stop, and says where', async () => {
    await writeConversation();
    const cli = context();
    let stop: () => void = () => {};
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = runInspector(
      {
        target: 'session.json',
        contextWindow: { tokens: 6_000, source: '(test)' },
        serve: true,
        until,
      },
      cli,
      (await import('../default-dependencies.js')).defaultDependencies,
    );
    while (!cli.out().includes('press Ctrl+C'))
      await new Promise((resolve) => setTimeout(resolve, 10));
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(cli.out())![1]!;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('ctxmem inspector');
    expect((await fetch(url.replace(/\?token=.*/, ''))).status).toBe(403);
    stop();
    expect(await running).toBe(0);
    await expect(fetch(url)).rejects.toThrow();
  });

  it('rejects page options without --html or --serve, and an unknown session', async () => {
    await writeConversation();
    const usage = context();
    expect(await runCli(['inspect', 'session.json', '--budget', '4k'], usage)).toBe(2);
    expect(usage.err()).toMatch(/--budget only applies with --html <file> or --serve/);
    const port = context();
    expect(await runCli(['inspect', 'session.json', '--serve', '--port', '70000'], port)).toBe(2);
    expect(port.err()).toMatch(/--port must be between 1 and 65535/);
    const missing = context();
    expect(await runCli(['inspect', 'nope', '--html', 'x.html'], missing)).toBe(1);
    expect(missing.err()).toMatch(/nope is neither a conversation file nor a session/);
  });
});

describe('the fixture', () => {
  it('calls the model after every user and tool message', () => {
    const counter = createTokenCounter();
    expect(callPoints(agentConversation(2))).toEqual([2, 4, 6, 8]);
    expect(counter.name).toBeTruthy();
  });
});
