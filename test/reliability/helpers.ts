/**
 * Shared fixtures of the reliability suite: conversations that carry a per-session marker (so a
 * test can tell whose content reached a prompt), temporary folders, and small assertions.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { checkToolPairing, type Message, type TokenCounter } from '@ctxmem/core';
import { lastUserMessage } from '@ctxmem/core/adapter-kit';
import { fillerText } from '@ctxmem/core/test';
import { expect } from 'vitest';

/** Runs the long variants (more iterations, 10,000 sessions) only when asked. */
export const LONG_TESTS = process.env.CTXMEM_LONG_TESTS === '1';

const WORDS =
  'budget window summary offload memory session deploy database cache index vector search tool result agent plan build test release review'.split(
    ' ',
  );

/** Deterministic filler text of `count` words. */
export function filler(seed: number, count: number): string {
  return fillerText(seed, count, WORDS);
}

/**
 * One round of a tool-using conversation whose every message carries `marker`, so that a prompt
 * built from it can be checked for content that belongs to someone else.
 */
export function markedRound(marker: string, turn: number, words = 40): Message[] {
  const callId = `call_${marker}_${turn}`;
  return [
    { role: 'user', content: `${marker} turn ${turn}: ${filler(turn, words)}?` },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `${marker} looking it up.` },
        { type: 'tool-call', toolCallId: callId, toolName: 'search', input: { query: marker } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: callId,
          toolName: 'search',
          output: { type: 'text', value: `${marker} result ${filler(turn + 1, words * 2)}` },
        },
      ],
    },
    { role: 'assistant', content: `${marker} answer ${turn}: ${filler(turn + 2, words)}.` },
  ];
}

/** A system message and `turns` rounds ending with an open user question, all marked. */
export function markedConversation(marker: string, turns: number, words = 40): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are a careful assistant.' }];
  for (let turn = 1; turn <= turns; turn++) messages.push(...markedRound(marker, turn, words));
  messages.push({ role: 'user', content: `${marker} final question?` });
  return messages;
}

/** A fresh temporary folder and a function that removes it. */
export async function temporaryFolder(
  prefix: string,
): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `ctxmem-reliability-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Every file and folder under `folder`, as paths relative to it (sorted). */
export async function listTree(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true });
  return entries.map((entry) => entry.split(sep).join('/')).sort();
}

/** True when `path` lies inside `root` (or is `root`). */
export function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return !inside.startsWith('..') && !inside.startsWith(sep) && !/^[A-Za-z]:/.test(inside);
}

/**
 * What every prompt ctxmem hands to a model must satisfy: within the budget, tool calls paired
 * with their results, and the newest user message of the history verbatim.
 */
export function expectValidPrompt(
  prompt: readonly Message[],
  history: readonly Message[],
  { budgetTokens, counter }: { budgetTokens: number; counter: TokenCounter },
): void {
  expect(counter.countMessages(prompt)).toBeLessThanOrEqual(budgetTokens);
  expect(checkToolPairing(prompt)).toEqual([]);
  expect(lastUserMessage(prompt)).toEqual(lastUserMessage(history));
}

/** The whole text of a value as JSON, for "does this marker appear anywhere" checks. */
export function textOf(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item instanceof Uint8Array ? `[${item.byteLength} bytes]` : item,
  );
}

/** A pseudo-word of six letters, different for every seed (in practice). */
function pseudoWord(seed: number): string {
  let state = (seed * 2_246_822_519 + 374_761_393) >>> 0;
  let word = '';
  for (let letter = 0; letter < 6; letter++) {
    state = Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) >>> 0;
    word += String.fromCharCode(97 + (state % 26));
  }
  return word;
}

/**
 * The content of card `index` of writer `label`: words no other card has, so that the memory
 * store's de-duplication and supersession (which merge similar sentences on purpose) never
 * merge two of them.
 */
export function distinctCardContent(label: string, index: number): string {
  const seed =
    [...label].reduce((sum, character) => sum * 31 + character.charCodeAt(0), 7) * 1_000 + index;
  return `Note ${pseudoWord(seed)} ${pseudoWord(seed + 0.25)} ${pseudoWord(seed + 0.5)} ${pseudoWord(seed + 0.75)} ${label}${index}.`;
}

/** The scope the child-process worker (`fixtures/reliability-worker.ts`) writes in. */
export const WORKER_SCOPE = { userId: 'worker-user', sessionId: 'worker-session' } as const;
