import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliContext, runCli } from './index.js';
import { chooseProgressStyle, createActivity, createProgress } from './progress.js';
import { deployLogBody } from './test-bodies.test-helper.js';

/** A stderr stand-in that says whether it is a terminal, as `process.stderr` does. */
function fakeStream(isTTY: boolean) {
  const stream = { text: '', isTTY, write: (chunk: string) => (stream.text += chunk) };
  return stream;
}

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ctxmem-progress-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function run(
  argv: string[],
  { isTTY, env = {} }: { isTTY: boolean; env?: CliContext['env'] },
) {
  const stderr = fakeStream(isTTY);
  let stdout = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr,
    cwd: directory,
    env,
  });
  return { code, stdout, stderr: stderr.text };
}

describe('chooseProgressStyle', () => {
  const env = {};
  it('draws on a terminal for enough items, and never with quiet, in CI or on a dumb terminal', () => {
    const terminal = { isTTY: true };
    expect(chooseProgressStyle({ stream: terminal, env, total: 500 })).toBe('bar');
    expect(chooseProgressStyle({ stream: terminal, env, total: 5 })).toBe('off');
    expect(chooseProgressStyle({ stream: terminal, env, total: 5, threshold: 1 })).toBe('bar');
    expect(chooseProgressStyle({ stream: terminal, env, total: 500, quiet: true })).toBe('off');
    expect(
      chooseProgressStyle({ stream: terminal, env, total: 500, quiet: true, forced: true }),
    ).toBe('off');
    expect(chooseProgressStyle({ stream: terminal, env: { CI: '1' }, total: 500 })).toBe('off');
    expect(chooseProgressStyle({ stream: terminal, env: { TERM: 'dumb' }, total: 500 })).toBe(
      'off',
    );
    expect(chooseProgressStyle({ stream: { isTTY: false }, env, total: 500 })).toBe('off');
    expect(chooseProgressStyle({ stream: { isTTY: false }, env, total: 5, forced: true })).toBe(
      'lines',
    );
  });
});

describe('createActivity', () => {
  it('redraws one line in place on a terminal and erases it at the end', () => {
    const stream = fakeStream(true);
    const activity = createActivity({ stream, label: 'working', style: 'bar' });
    activity.show('step one, a longer text');
    activity.show('step two');
    activity.show('step two');
    activity.finish();
    expect(stream.text).toBe(
      '\r\u001b[2Kworking: step one, a longer text\r\u001b[2Kworking: step two\r\u001b[2K',
    );
  });

  it('prints each distinct status once as a line, and nothing when off', () => {
    const lines = fakeStream(false);
    const activity = createActivity({ stream: lines, label: 'working', style: 'lines' });
    activity.show('a');
    activity.show('a');
    activity.show('b');
    activity.finish();
    expect(lines.text).toBe('working: a\nworking: b\n');
    const off = fakeStream(false);
    const silent = createActivity({ stream: off, label: 'working', style: 'off' });
    silent.show('a');
    silent.finish();
    createProgress({ stream: off, total: 10, label: 'x', style: 'off' }).update(5);
    expect(off.text).toBe('');
  });
});

/** A body of about 45,000 tokens: large enough for progress, compacted by offloading. */
function largeBody() {
  return deployLogBody('openai-chat', {
    model: 'gpt-4o',
    rows: 1200,
    tools: false,
    answer: 'The deploy succeeded.',
  });
}

describe('ctxmem compact progress', () => {
  it('shows the strategies on a terminal for a large body, and erases the line before the report', async () => {
    await writeFile(join(directory, 'big.json'), JSON.stringify(largeBody()));
    const argv = ['compact', 'big.json', '--budget', '3000', '--out', 'small.json'];
    const terminal = await run(argv, { isTTY: true });
    expect(terminal.code, terminal.stderr).toBe(0);
    expect(terminal.stderr).toMatch(/^\r\u001b\[2Kcompacting big\.json: [\d,]+ tokens/);
    expect(terminal.stderr).toMatch(/compacting big\.json: offload-all: [\d,]+ → [\d,]+ tokens/);
    // The line is erased, so the report starts at the left margin.
    expect(terminal.stderr).toMatch(/\r\u001b\[2Kctxmem compact big\.json/);

    const piped = await run(argv, { isTTY: false });
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain('\r');
    expect(piped.stderr).toMatch(/^ctxmem compact big\.json/);

    const ci = await run(argv, { isTTY: true, env: { CI: 'true' } });
    expect(ci.stderr).not.toContain('\r');
  });

  it('shows each summarizer call, the slow part with a model', async () => {
    const rounds = Array.from({ length: 300 }, (_, index) => [
      { role: 'user', content: `Question ${index}: ${'what happened in the deploy? '.repeat(6)}` },
      {
        role: 'assistant',
        content: `Answer ${index}: ${'the deploy went fine, step by step. '.repeat(6)}`,
      },
    ]).flat();
    await writeFile(
      join(directory, 'long.json'),
      JSON.stringify({ model: 'gpt-4o', messages: rounds }),
    );
    const result = await run(['compact', 'long.json', '--budget', '4000', '--out', 'out.json'], {
      isTTY: true,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/compacting long\.json: summarizing with extractive, call 1/);
  });

  it('is silent with --quiet: no progress and no report, and the output is the same', async () => {
    await writeFile(join(directory, 'big.json'), JSON.stringify(largeBody()));
    const loud = await run(['compact', 'big.json', '--budget', '3000'], { isTTY: true });
    const quiet = await run(['compact', 'big.json', '--budget', '3000', '--quiet'], {
      isTTY: true,
    });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(loud.stdout);
    expect(
      (await run(['compact', '-q', 'big.json', '--budget', '3000'], { isTTY: true })).stderr,
    ).toBe('');
  });

  it('shows nothing for a small body, even on a terminal', async () => {
    await writeFile(
      join(directory, 'small.json'),
      JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    );
    const result = await run(['compact', 'small.json', '--budget', '3000'], { isTTY: true });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('\r');
  });
});

describe('ctxmem memory search: index progress', () => {
  it('shows the index build on a terminal and erases it; silent when piped or with --quiet', async () => {
    await writeFile(join(directory, 'cards.jsonl'), '{"content":"The deploy uses port 8080."}\n');
    const add = await run(['memory', 'add', '--store', 'store', '--jsonl', 'cards.jsonl'], {
      isTTY: false,
    });
    expect(add.code, add.stderr).toBe(0);
    const argv = ['memory', 'search', '--store', 'store', '--query', 'port', '--mode', 'bm25'];
    const terminal = await run(argv, { isTTY: true });
    expect(terminal.code, terminal.stderr).toBe(0);
    expect(terminal.stderr).toBe('\r\u001b[2Kindexing memory: global…\r\u001b[2K');
    expect(terminal.stdout).toContain('8080');
    expect((await run(argv, { isTTY: false })).stderr).toBe('');
    expect((await run([...argv, '--quiet'], { isTTY: true })).stderr).toBe('');
  });
});
