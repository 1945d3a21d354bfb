import {
  countToolDefinitions,
  createTokenCounter,
  fromOpenAIChat,
  type OpenAIChatMessage,
  SUMMARY_SYSTEM_PROMPT,
} from '@ctxmem/core';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
  summaryReply,
} from '@ctxmem/core/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentSession, demoQuestions } from './agent.js';

describe('langchain-agent example', () => {
  it('runs offline and prints each compaction as it happens', async () => {
    const lines: string[] = [];
    const session = createAgentSession({ env: {}, print: (line) => lines.push(line) });
    expect(session.real).toBe(false);
    for (const question of demoQuestions(15)) {
      const answer = await session.send(question);
      expect(answer).toContain('From the runbook');
    }
    await session.idle();
    const compactions = lines.filter((line) => line.includes('ctxmem compacted'));
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(compactions.length).toBeLessThan(15);
    // The agent state keeps the conversation as it happened; the model got the compacted view,
    // the summary folded into its one system message.
    expect(session.messages).toHaveLength(15 * 4);
    expect(session.lastPrompt[0]!.text).toContain('## Context Summary');
    expect(session.lastPrompt.length).toBeLessThan(60);
  });
});

describe('with a real model, as the README says (OPENAI_BASE_URL, OPENAI_API_KEY)', () => {
  let server: OpenAICompatibleServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('talks to an OpenAI-compatible server and keeps every request inside the window', async () => {
    const marker = SUMMARY_SYSTEM_PROMPT.slice(0, 60);
    server = await startOpenAICompatibleServer({
      handler: (request) =>
        JSON.stringify(request.body).includes(marker)
          ? summaryReply(String(request.index))
          : `Server answer ${request.index}: ${'the runbook says to check the logs first. '.repeat(40)}`,
    });
    const lines: string[] = [];
    const session = createAgentSession({
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', CTXMEM_CONTEXT_WINDOW: '4000' },
      print: (line) => lines.push(line),
    });
    expect(session.real).toBe(true);
    for (const question of demoQuestions(14)) {
      expect(await session.send(question)).toMatch(/^Server answer \d+/);
    }
    await session.idle();
    const counter = createTokenCounter();
    const answers = server.requests.filter(
      (request) => !JSON.stringify(request.body).includes(marker),
    );
    expect(answers.length).toBeGreaterThanOrEqual(14);
    for (const request of answers) {
      const messages = fromOpenAIChat(request.body.messages as OpenAIChatMessage[]);
      const tools = (request.body.tools as unknown[] | undefined) ?? [];
      expect(
        counter.countMessages(messages) + countToolDefinitions(tools, counter),
      ).toBeLessThanOrEqual(4_000);
    }
    expect(lines.some((line) => line.includes('ctxmem compacted'))).toBe(true);
  });
});
