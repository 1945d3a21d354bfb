import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTokenCounter, parseConversation } from '@ctxmem/core';
import { toolCallsOf } from '@ctxmem/core/adapter-kit';
import { describe, expect, it } from 'vitest';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const examples = join(repositoryRoot, 'examples/conversations');

async function readExample(name: string): Promise<unknown> {
  return JSON.parse(await readFile(join(examples, name), 'utf8'));
}

describe('the bundled example conversations', () => {
  it('are exactly what the deterministic generator produces', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'ctxmem-examples-'));
    try {
      await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(examples, 'generate.ts'), directory],
        { cwd: repositoryRoot },
      );
      for (const name of ['agent-session.json', 'ai-sdk-chat.json']) {
        expect(await readFile(join(directory, name), 'utf8')).toBe(
          await readFile(join(examples, name), 'utf8'),
        );
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('agent-session.json is a long OpenAI Chat coding-agent session with what compaction must keep', async () => {
    const { format, messages } = parseConversation(await readExample('agent-session.json'));
    expect(format).toBe('openai-chat');
    const tokens = createTokenCounter().countMessages(messages);
    expect(tokens).toBeGreaterThanOrEqual(40_000);
    expect(tokens).toBeLessThanOrEqual(80_000);
    expect(messages[0]?.role).toBe('system');
    expect(messages.at(-1)?.role).toBe('user');
    const texts = messages.map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    );
    // Early preferences and constraints, a Chinese stretch, parallel calls, huge outputs.
    expect(texts[1]).toMatch(/prefer Python/);
    expect(texts[1]).toMatch(/Never touch prod/);
    const chineseMessages = texts.filter(
      (text) => (text.match(/[\u4e00-\u9fff]/g) ?? []).length > 20,
    );
    expect(chineseMessages.length).toBeGreaterThanOrEqual(5);
    expect(messages.some((message) => toolCallsOf(message).length >= 2)).toBe(true);
    const counter = createTokenCounter();
    expect(
      messages.filter((message) => message.role === 'tool' && counter.countMessage(message) > 5000)
        .length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('ai-sdk-chat.json is a small AI SDK conversation with a tool call', async () => {
    const { format, messages } = parseConversation(await readExample('ai-sdk-chat.json'));
    expect(format).toBe('ai-sdk');
    expect(messages.some((message) => toolCallsOf(message).length > 0)).toBe(true);
    expect(messages.at(-1)?.role).toBe('user');
  });
});
