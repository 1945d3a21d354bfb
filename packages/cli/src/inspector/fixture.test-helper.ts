import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ContextManager,
  type ContextManagerOptions,
  createContextManager,
  createInMemoryHistoryStore,
  createInMemoryOffloadStore,
  createModelSummarizer,
  createTokenCounter,
  type Message,
  type PrepareResult,
  type Scope,
  type Summarizer,
  type TokenCounter,
} from '@ctxmem/core';
import { expect } from 'vitest';
import type { useCliFolder } from '../run-cli.test-helper.js';
import { callPoints } from './inspect-conversation.js';
import { inspectSession } from './inspect-session.js';

export const SCRIPT_XSS = '<script>window.__xss = 1</script>';
export const ATTRIBUTE_XSS = '"><img src=x onerror="window.__xss = 2">';

/**
 * An agent session that outgrows a small budget: each round asks, calls a tool that answers a
 * large log (offloaded), and replies. Hostile markup sits in a user message, a tool result and a
 * tool name's input, where it must stay text.
 */
export function agentConversation(rounds = 8): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a build assistant. Answer briefly.' },
  ];
  for (let round = 1; round <= rounds; round++) {
    const id = `call_${round}`;
    const log = Array.from(
      { length: 160 },
      (_, line) => `round ${round} line ${line}: compiled module-${line} in ${line % 17} ms`,
    ).join('\n');
    messages.push(
      {
        role: 'user',
        content:
          round === 1
            ? `Why does the build fail? ${SCRIPT_XSS} ${ATTRIBUTE_XSS}`
            : `Round ${round}: check the build log again and keep the deadline of Friday in mind.`,
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_log', input: { round } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: id,
            toolName: 'read_log',
            output: { type: 'text', value: `${round === 2 ? `${ATTRIBUTE_XSS}\n` : ''}${log}` },
          },
        ],
      },
      { role: 'assistant', content: `Round ${round}: the log shows module-${round} is slow.` },
    );
  }
  return messages;
}

/** What the refusing model answers: its words must never reach the store or the page. */
export const REFUSAL = "I'm sorry, I can't help with summarizing build-42's logs.";

/** A model summarizer that refuses every time, so each compaction falls back to the extractive one. */
export function refusingSummarizer(counter: TokenCounter): Summarizer {
  return createModelSummarizer({ complete: async () => REFUSAL, counter, name: 'model' });
}

/**
 * The fixture conversation and then a short exchange too small to compact: the calls after the
 * latest compaction, whose records the store gets only with the next one.
 */
export function conversationWithLaterCalls(): Message[] {
  return [
    ...agentConversation(),
    { role: 'user', content: 'Thanks. Is module-8 the slowest one?' },
    { role: 'assistant', content: 'Yes, module-8 is the slowest.' },
    { role: 'user', content: 'Note it for Friday.' },
  ];
}

/**
 * Plays a conversation through `manager` as a host would, one call at each call point (after each
 * user and tool message); the results in order.
 */
export async function playCalls(
  manager: ContextManager,
  messages: readonly Message[],
  scope: Scope,
): Promise<PrepareResult[]> {
  const results: PrepareResult[] = [];
  for (const end of callPoints(messages)) {
    results.push(await manager.prepare(messages.slice(0, end), { scope }));
  }
  return results;
}

/**
 * Runs `ctxmem inspect <args> --html <file>` in the test folder, expects it to succeed quietly and
 * returns what it printed and the page it wrote.
 */
export async function inspectToPage(
  cli: ReturnType<typeof useCliFolder>,
  args: readonly string[],
  file = 'page.html',
): Promise<{ stdout: string; html: string }> {
  const run = await cli.run(['inspect', ...args, '--html', file]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return { stdout: run.stdout, html: await readFile(join(cli.directory(), file), 'utf8') };
}

export interface StoredSessionOptions extends Partial<ContextManagerOptions> {
  /** @default agentConversation() */
  messages?: readonly Message[];
  /** @default { sessionId: 'build-42' } */
  scope?: Scope;
  /** The window the inspector is given (recorded calls keep their own). @default 6000 */
  inspectWindow?: number;
  /** @default 'build-42 (fixture session, in-memory store)' */
  title?: string;
}

/**
 * Plays a conversation through a context manager on in-memory stores (a 6,000-token window
 * unless `contextWindow` says otherwise), then inspects the stored session.
 */
export async function inspectStoredSession({
  messages = agentConversation(),
  scope = { sessionId: 'build-42' },
  inspectWindow = 6_000,
  title = 'build-42 (fixture session, in-memory store)',
  ...options
}: StoredSessionOptions = {}) {
  const counter = options.counter ?? createTokenCounter();
  const historyStore = createInMemoryHistoryStore();
  const offloadStore = createInMemoryOffloadStore();
  const manager = createContextManager({
    contextWindow: 6_000,
    historyStore,
    offloadStore,
    ...options,
    counter,
  });
  const results = await playCalls(manager, messages, scope);
  const inspection = await inspectSession({
    historyStore,
    offloadStore,
    scope,
    counter,
    contextWindow: inspectWindow,
    title,
  });
  return { historyStore, offloadStore, results, inspection };
}
