/**
 * The notes the store benches write (`stores.bench.ts`, `drivers.bench.ts`, `many-writers.ts`):
 * deterministic sentences over a 40-word vocabulary, and the history messages and card drafts
 * built from them.
 */
import type { MemoryCard, MemoryCardDraft, Message } from '../packages/core/src/contracts/index.js';

/** The scope the store benches write to. */
export const scope = { userId: 'bench-user', sessionId: 'bench' };

export const WORDS = (
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar ' +
  'papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber cobalt jade onyx ' +
  'ruby slate topaz umber violet willow cedar maple birch aspen'
).split(' ');

/** A deterministic pseudo-random sentence that neither duplicates nor supersedes another. */
export function sentence(seed: number): string {
  let state = seed * 2654435761 + 1;
  const pick = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return WORDS[state % WORDS.length]!;
  };
  return `Note ${seed}: ${Array.from({ length: 8 }, pick).join(' ')}.`;
}

/** A history message of about 50 words, user and assistant in turn. */
export const historyMessage = (index: number): Message => ({
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: `${sentence(index)} ${'detail '.repeat(40)}`,
});

/** Drafts per add when a scope is filled, as `ctxmem memory add` sends them. */
export const BATCH = 1000;

/** `count` drafts of the sentences from seed `from` on. */
export const drafts = (
  from: number,
  count: number,
  type: MemoryCard['type'] = 'fact',
): MemoryCardDraft[] =>
  Array.from({ length: count }, (_, offset) => ({ content: sentence(from + offset), type }));
