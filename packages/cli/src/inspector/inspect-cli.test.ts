import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ContextManagerOptions,
  createContextManager,
  createFileHistoryStore,
  createFileMemoryStore,
  createFileOffloadStore,
} from '@ctxmem/core';
import { describe, expect, it } from 'vitest';
import { useCliFolder } from '../run-cli.test-helper.js';
import { agentConversation, inspectToPage, playCalls, SCRIPT_XSS } from './fixture.test-helper.js';
import { callPoints, runInspector } from './index.js';

const cli = useCliFolder('ctxmem-inspector');

async function writeConversation(): Promise<string> {
  const path = join(cli.directory(), 'session.json');
  await writeFile(path, JSON.stringify({ messages: agentConversation() }));
  return path;
}

/**
 * Plays the fixture session through a manager on a file store in the test folder, then inspects
 * it with the CLI; the results of the calls, the page and the stored working state.
 */
async function inspectStoredSession(options: Partial<ContextManagerOptions> = {}) {
  const root = join(cli.directory(), 'store');
  const scope = { sessionId: 'build-42' };
  const manager = createContextManager({
    contextWindow: 6_000,
    historyStore: createFileHistoryStore({ root }),
    offloadStore: createFileOffloadStore({ root }),
    ...options,
  });
  const results = await playCalls(manager, agentConversation(), scope);
  const { stdout, html } = await inspectToPage(cli, [
    'build-42',
    '--store',
    'store',
    '--context-window',
    '6000',
  ]);
  const state = await createFileHistoryStore({ root }).getState(scope);
  expect(html).toContain('Working state recorded in the store');
  return { results, stdout, html, state };
}

describe('ctxmem inspect --html', () => {
  it('writes a dry-run page for a conversation file at --budget', async () => {
    await writeConversation();
    const { stdout, html } = await inspectToPage(
      cli,
      ['session.json', '--budget', '4500'],
      'report.html',
    );
    expect(stdout).toMatch(
      /^wrote report\.html \(16 calls, \d+ compactions, \d+ offloaded payloads\)\n$/,
    );
    expect(html).toContain('Budget 4500 tokens for the messages (--budget)');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain(SCRIPT_XSS);
    const compactions = Number(/\((\d+) calls, (\d+) compactions/.exec(stdout)![2]);
    expect(compactions).toBeGreaterThan(0);
    expect(html.match(/data-compaction="/g)).toHaveLength(compactions);
  });

  it('reads the conversation from stdin with - and writes the page to stdout with --html -', async () => {
    const stdin = () => [Buffer.from(JSON.stringify({ messages: agentConversation() }))];
    const run = await cli.run(['inspect', '-', '--budget', '4500', '--html', '-'], {
      stdin: stdin(),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^<!doctype html>/i);
    expect(run.stdout).toContain('Budget 4500 tokens for the messages (--budget)');
    expect(run.stdout.match(/data-compaction="/g)?.length).toBeGreaterThan(0);

    const summary = await cli.run(['inspect', '-'], { stdin: stdin() });
    expect(summary.code).toBe(0);
    expect(summary.stdout).toMatch(/tokens/);
  });

  it('reads a stored session: the recorded calls and the recorded working state', async () => {
    const { results, stdout, html, state } = await inspectStoredSession();
    const calls = state?.calls ?? [];
    const compacted = callPoints(agentConversation()).filter(
      (_, index) => results[index]!.compacted,
    );
    expect(compacted.length).toBeGreaterThan(0);
    // Written with the latest compaction: the calls up to it, each compaction where it happened.
    expect(calls.at(-1)?.historyMessages).toBe(compacted.at(-1));
    expect(html).toContain('<section id="timeline" data-source="recorded">');
    expect(stdout).toContain(`(${results.length} calls, ${compacted.length} compactions`);
    expect(html.match(/data-compaction="/g)).toHaveLength(compacted.length);
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
    const { html, state } = await inspectStoredSession({ recordedCalls: 0 });
    expect(html).toContain('<section id="timeline" data-source="replay">');
    expect(html).toContain(`replays the ${callPoints(agentConversation()).at(-1)} stored messages`);
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
    const memories = join(cli.directory(), 'memories');
    await createFileMemoryStore({ root: memories }).add({}, [
      { type: 'constraint', content: 'The build deadline is Friday <b>sharp</b>' },
    ]);
    const { html } = await inspectToPage(cli, [
      'session.json',
      '--budget',
      '4500',
      '--memory-store',
      'memories',
    ]);
    const section = html.slice(html.indexOf('<section id="memories">'));
    expect(section).toContain('The build deadline is Friday &lt;b&gt;sharp&lt;/b&gt;');
    expect(section).toMatch(/<td class="n">\d\.\d{3}<\/td><td>constraint<\/td>/);
  });

  it('serves the page until told to stop, and says where', async () => {
    await writeConversation();
    let stdout = '';
    let stop: () => void = () => {};
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = runInspector(
      {
        target: 'session.json',
        contextWindow: { tokens: 6_000, source: '(test)' },
        serve: true,
        until,
      },
      {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: () => true },
        cwd: cli.directory(),
        env: {},
      },
      (await import('../default-dependencies.js')).defaultDependencies,
    );
    while (!stdout.includes('press Ctrl+C'))
      await new Promise((resolve) => setTimeout(resolve, 10));
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(stdout)![1]!;
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
    const usage = await cli.run(['inspect', 'session.json', '--budget', '4k']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--budget only applies with --html <file> or --serve/);
    const port = await cli.run(['inspect', 'session.json', '--serve', '--port', '70000']);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port must be between 1 and 65535/);
    const missing = await cli.run(['inspect', 'nope', '--html', 'x.html']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope is neither a conversation file nor a session/);
  });
});

describe('the fixture', () => {
  it('calls the model after every user and tool message', () => {
    expect(callPoints(agentConversation(2))).toEqual([2, 4, 6, 8]);
  });
});
