import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import {
  BOOTSTRAP_SEPARATOR,
  bootstrapMessage,
  DEFAULT_BOOTSTRAP_FILES,
  loadBootstrapFiles,
  TRUNCATION_MARKER_PREFIX,
} from './index.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxmem-bootstrap-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write(name: string, content: string): Promise<void> {
  await writeFile(join(root, name), content, 'utf8');
}

describe('loadBootstrapFiles', () => {
  it('loads the default files in order with headings and separators', async () => {
    await write('AGENTS.md', 'Use pnpm.');
    await write('TOOLS.md', 'grep, sed');
    const result = await loadBootstrapFiles({ root });
    expect(result.text).toBe(
      `## AGENTS.md\n\nUse pnpm.${BOOTSTRAP_SEPARATOR}## TOOLS.md\n\ngrep, sed`,
    );
    expect(result.files).toEqual([
      { name: 'AGENTS.md', originalChars: 9, includedChars: 9, truncated: false },
      { name: 'TOOLS.md', originalChars: 9, includedChars: 9, truncated: false },
    ]);
    expect(result.skipped).toEqual(
      DEFAULT_BOOTSTRAP_FILES.filter((name) => name !== 'AGENTS.md' && name !== 'TOOLS.md').map(
        (name) => ({ name, reason: 'missing' }),
      ),
    );
    expect(result.estimatedTokens).toBeGreaterThan(0);
  });

  it('returns an empty text when no file exists', async () => {
    const result = await loadBootstrapFiles({ root });
    expect(result.text).toBe('');
    expect(result.files).toEqual([]);
    expect(result.estimatedTokens).toBe(0);
    expect(result.skipped.every((file) => file.reason === 'missing')).toBe(true);
  });

  it('truncates a file over maxCharsPerFile and reports it', async () => {
    await write('AGENTS.md', 'x'.repeat(30_000));
    const result = await loadBootstrapFiles({ root, files: ['AGENTS.md'] });
    const [file] = result.files;
    expect(file).toMatchObject({ name: 'AGENTS.md', originalChars: 30_000, truncated: true });
    expect(file!.includedChars).toBeLessThanOrEqual(20_000);
    expect(result.text).toContain(`${TRUNCATION_MARKER_PREFIX} `);
    expect(result.text).toContain('read AGENTS.md for full content');
    expect(result.text).toContain('x'.repeat(14_000));
  });

  it('keeps the whole text within maxTotalChars and skips files that no longer fit', async () => {
    const files = ['TEST0.md', 'TEST1.md', 'TEST2.md'];
    for (const name of files) await write(name, 'x'.repeat(15_000));
    const result = await loadBootstrapFiles({ root, files });
    expect(result.text.length).toBeLessThanOrEqual(24_000);
    expect(result.files.map((file) => [file.name, file.truncated])).toEqual([
      ['TEST0.md', false],
      ['TEST1.md', true],
      // A truncated file uses only 90% of its slot (head 70% + tail 20% + marker); the rest
      // still holds the start and end of the next file.
      ['TEST2.md', true],
    ]);

    const tight = await loadBootstrapFiles({ root, files, maxTotalChars: 15_090 });
    expect(tight.text.length).toBeLessThanOrEqual(15_090);
    expect(tight.files.map((file) => file.name)).toEqual(['TEST0.md']);
    expect(tight.skipped).toEqual([
      { name: 'TEST1.md', reason: 'budget' },
      { name: 'TEST2.md', reason: 'budget' },
    ]);
  });

  it('fills the total budget exactly, headings and separators included', async () => {
    await write('A.md', 'a'.repeat(1000));
    await write('B.md', 'b'.repeat(1000));
    const firstSection = `## A.md\n\n${'a'.repeat(1000)}`;
    const secondOverhead = `${BOOTSTRAP_SEPARATOR}## B.md\n\n`;
    const exact = firstSection.length + secondOverhead.length + 1000;

    const fits = await loadBootstrapFiles({ root, files: ['A.md', 'B.md'], maxTotalChars: exact });
    expect(fits.text.length).toBe(exact);
    expect(fits.files.every((file) => !file.truncated)).toBe(true);

    const oneShort = await loadBootstrapFiles({
      root,
      files: ['A.md', 'B.md'],
      maxTotalChars: exact - 1,
    });
    expect(oneShort.text.length).toBeLessThanOrEqual(exact - 1);
    expect(oneShort.files[1]).toMatchObject({ name: 'B.md', truncated: true });
  });

  it('skips the rest once less than minRemainingChars is left, and not one character earlier', async () => {
    await write('A.md', 'a'.repeat(100));
    await write('B.md', 'b'.repeat(500));
    await write('C.md', 'c');
    const overhead = `## A.md\n\n`.length + 100 + `${BOOTSTRAP_SEPARATOR}## B.md\n\n`.length;

    const atMinimum = await loadBootstrapFiles({
      root,
      files: ['A.md', 'B.md', 'C.md'],
      maxTotalChars: overhead + 64,
    });
    expect(atMinimum.files.map((file) => file.name)).toEqual(['A.md', 'B.md']);
    expect(atMinimum.files[1]!.includedChars).toBeLessThanOrEqual(64);
    expect(atMinimum.skipped).toEqual([{ name: 'C.md', reason: 'budget' }]);

    const belowMinimum = await loadBootstrapFiles({
      root,
      files: ['A.md', 'B.md', 'C.md'],
      maxTotalChars: overhead + 63,
    });
    expect(belowMinimum.files.map((file) => file.name)).toEqual(['A.md']);
    expect(belowMinimum.skipped).toEqual([
      { name: 'B.md', reason: 'budget' },
      { name: 'C.md', reason: 'budget' },
    ]);
  });

  it('caps each file at maxCharsPerFile exactly', async () => {
    await write('A.md', 'a'.repeat(500));
    const atLimit = await loadBootstrapFiles({ root, files: ['A.md'], maxCharsPerFile: 500 });
    expect(atLimit.files[0]).toMatchObject({ includedChars: 500, truncated: false });
    const belowLimit = await loadBootstrapFiles({ root, files: ['A.md'], maxCharsPerFile: 499 });
    expect(belowLimit.files[0]!.truncated).toBe(true);
    expect(belowLimit.files[0]!.includedChars).toBeLessThanOrEqual(499);
  });

  it('reports unreadable files without throwing and goes on with the next', async () => {
    await mkdir(join(root, 'AGENTS.md'));
    await write('USER.md', 'prefers Python');
    const result = await loadBootstrapFiles({ root });
    expect(result.skipped[0]).toMatchObject({ name: 'AGENTS.md', reason: 'unreadable' });
    expect(result.skipped[0]!.error).toMatch(/EISDIR|directory/i);
    expect(result.files.map((file) => file.name)).toEqual(['USER.md']);
    expect(result.text).toBe('## USER.md\n\nprefers Python');
  });

  it('drops a byte-order mark', async () => {
    await write('AGENTS.md', '\uFEFFhello');
    const result = await loadBootstrapFiles({ root, files: ['AGENTS.md'] });
    expect(result.text).toBe('## AGENTS.md\n\nhello');
    expect(result.files[0]!.originalChars).toBe(5);
  });

  it('counts tokens with the given counter', async () => {
    await write('AGENTS.md', 'hello world');
    const counter: TokenCounter = {
      name: 'words',
      promptOverhead: 0,
      countText: (text) => text.split(/\s+/).filter(Boolean).length,
      countMessage: () => 0,
      countMessages: () => 0,
    };
    const result = await loadBootstrapFiles({ root, files: ['AGENTS.md'], counter });
    expect(result.estimatedTokens).toBe(4); // "##", "AGENTS.md", "hello", "world"
  });

  it('estimates CJK text at no less than one token per character', async () => {
    await write('AGENTS.md', '永远不要修改生产环境');
    const result = await loadBootstrapFiles({ root, files: ['AGENTS.md'] });
    expect(result.estimatedTokens).toBeGreaterThanOrEqual(10);
    expect(result.estimatedTokens).toBeLessThan(result.text.length);
  });

  it('rejects names outside the root and bad limits', async () => {
    await expect(loadBootstrapFiles({ root, files: ['../secret.md'] })).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
    await expect(loadBootstrapFiles({ root, files: ['/etc/passwd'] })).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
    await expect(loadBootstrapFiles({ root, maxTotalChars: -1 })).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
    await expect(loadBootstrapFiles({ root, headRatio: 0.9, tailRatio: 0.5 })).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
  });

  it('allows names in sub-folders of the root', async () => {
    await mkdir(join(root, 'docs'));
    await write('docs/AGENTS.md', 'nested');
    const result = await loadBootstrapFiles({ root, files: ['docs/AGENTS.md'] });
    expect(result.text).toBe('## docs/AGENTS.md\n\nnested');
  });
});

describe('bootstrapMessage', () => {
  it('wraps the text in a system message marked as bootstrap', async () => {
    await write('AGENTS.md', 'Never touch prod.');
    const result = await loadBootstrapFiles({ root });
    expect(bootstrapMessage(result)).toEqual({
      role: 'system',
      content: '## AGENTS.md\n\nNever touch prod.',
      ctxmem: { kind: 'bootstrap' },
    });
  });
});
