/**
 * The memory file format of versions before the log (`cards.json`: one JSON document, one card
 * per line). Read once, to migrate a scope's cards into its log (see `createFileMemoryStore`).
 */
import type { MemoryCard, Scope } from '../contracts/index.js';
import { validateStoredCard } from './card-records.js';

export const LEGACY_CARDS_FILE = 'cards.json';
const FORMAT = 'ctxmem-memory-cards';

export interface LoadedCards {
  cards: MemoryCard[];
  /** Cards or lines that could not be read; 0 for a healthy file. */
  damaged: number;
  reason?: string;
}

/** Parses a cards file, salvaging intact lines when the document as a whole is not JSON. */
export function parseLegacyCards(text: string, scope: Scope): LoadedCards {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    document = undefined;
  }
  const body = document as { format?: unknown; cards?: unknown } | undefined;
  if (body && typeof body === 'object' && body.format === FORMAT && Array.isArray(body.cards)) {
    const cards: MemoryCard[] = [];
    for (const value of body.cards) {
      const card = validateStoredCard(value, scope);
      if (card) cards.push(card);
    }
    const damaged = body.cards.length - cards.length;
    return damaged === 0
      ? { cards, damaged }
      : { cards, damaged, reason: `${damaged} card(s) are invalid or belong to another scope` };
  }
  const cards: MemoryCard[] = [];
  let damaged = 0;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim().replace(/,$/u, '');
    if (line === '' || line.startsWith(`{"format":`) || line === ']}') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      damaged++;
      continue;
    }
    const card = validateStoredCard(value, scope);
    if (card) cards.push(card);
    else damaged++;
  }
  return { cards, damaged: Math.max(damaged, 1), reason: 'the file is not valid JSON' };
}
