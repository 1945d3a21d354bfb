import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MemoryAddSummary, MemorySearchLineJson } from './memory/index.js';
import { useCliFolder } from './run-cli.test-helper.js';

const cli = useCliFolder('ctxmem-stdin');
const { run } = cli;

/** Stdin as a pipe delivers it: in chunks that may split a line (and a UTF-8 character). */
function piped(text: string): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return {
    async *[Symbol.asyncIterator]() {
      for (let start = 0; start < bytes.length; start += 7) yield bytes.slice(start, start + 7);
    },
  };
}

const cards = [
  { content: 'The deploy uses port 8080 on staging.', tags: ['ops'] },
  { content: 'Ana prefers answers in Portuguese — sempre.', type: 'preference' },
];

describe('- reads stdin in the memory commands', () => {
  it('memory add --jsonl - adds the cards piped in', async () => {
    const text = cards.map((card) => JSON.stringify(card)).join('\n');
    const result = await run(['memory', 'add', '--store', 'store', '--jsonl', '-', '--json'], {
      stdin: piped(text),
    });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as MemoryAddSummary;
    expect(summary.added).toBe(2);
    const list = await run(['memory', 'list', '--store', 'store', '--json']);
    expect(list.stdout).toContain('sempre');
  });

  it('memory search --queries - answers the queries piped in, in order', async () => {
    await writeFile(
      join(cli.directory(), 'cards.jsonl'),
      cards.map((card) => JSON.stringify(card)).join('\n'),
    );
    expect((await run(['memory', 'add', '--store', 'store', '--jsonl', 'cards.jsonl'])).code).toBe(
      0,
    );
    const result = await run(
      ['memory', 'search', '--store', 'store', '--queries', '-', '--json', '--mode', 'bm25'],
      { stdin: ['{"query":"port"}\n{"query":"Portuguese"}\n'] },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as MemorySearchLineJson);
    expect(lines.map((line) => line.query)).toEqual(['port', 'Portuguese']);
    expect(lines[0]!.results[0]!.content).toContain('8080');
  });

  it('names stdin in errors about the piped lines', async () => {
    const result = await run(['memory', 'add', '--store', 'store', '--jsonl', '-'], {
      stdin: ['{"content":"ok"}\n{"tag":"x"}\n'],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stdin.*line 2/);
  });

  it('rejects - when stdin is a terminal or absent, as a usage error naming the flag', async () => {
    const terminal = Object.assign([] as string[], { isTTY: true });
    const onTerminal = await run(['memory', 'add', '--store', 'store', '--jsonl', '-'], {
      stdin: terminal,
    });
    expect(onTerminal.code).toBe(2);
    expect(onTerminal.stderr).toMatch(
      /stdin is a terminal: pipe a file in \(ctxmem memory add --jsonl - < cards\.jsonl\)/,
    );
    const absent = await run(['memory', 'search', '--store', 'store', '--queries', '-']);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toMatch(/no stdin to read "-" from/);
  });
});
