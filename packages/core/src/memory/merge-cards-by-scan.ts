/**
 * The naive merge: every draft compared with every current card. Quadratic over a store's life,
 * so no store uses it; it is the reference the indexed merge is tested against (same outcomes)
 * and the baseline of `pnpm bench stores`. Not exported from the package.
 */
import type { MemoryCard, MemoryCardDraft } from '../contracts/index.js';
import {
  analyzeCardContent,
  type CardAnalysis,
  isNearDuplicate,
  jaccard,
  SUPERSEDING_CARD_TYPES,
  supersedes,
} from './card-analysis.js';
import type { MergeOutcome } from './card-index.js';
import { newCard } from './card-records.js';
import type { MergeCardsOptions, MergeCardsResult } from './merge-cards.js';
import { validateDrafts } from './validate-drafts.js';

export function mergeCardsByScan(
  existing: readonly MemoryCard[],
  drafts: readonly MemoryCardDraft[],
  { scope, now, generateId }: MergeCardsOptions,
  analyze: (content: string) => CardAnalysis = analyzeCardContent,
): MergeCardsResult {
  const valid = validateDrafts(drafts);
  const cards = [...existing];
  const current = new Set<number>();
  const exact = new Map<string, number>();
  cards.forEach((card, position) => {
    if (card.supersededBy !== undefined) return;
    current.add(position);
    exact.set(analyze(card.content).normalized, position);
  });
  const outcomes: MergeOutcome[] = [];
  let changed = false;
  for (const draft of valid) {
    const draftAnalysis = analyze(draft.content);
    const duplicate = exact.get(draftAnalysis.normalized);
    if (duplicate !== undefined) {
      outcomes.push({ kind: 'duplicate', cardId: cards[duplicate]!.id });
      continue;
    }
    let best: { position: number; score: number } | undefined;
    for (const position of current) {
      const analysis = analyze(cards[position]!.content);
      if (!isNearDuplicate(analysis, draftAnalysis)) continue;
      const score = jaccard(analysis.set, draftAnalysis.set);
      if (!best || score > best.score) best = { position, score };
    }
    if (best) {
      const near = cards[best.position]!;
      cards[best.position] = {
        ...near,
        tags: [...new Set([...near.tags, ...draft.tags])],
        updatedAt: now,
      };
      outcomes.push({ kind: 'near-duplicate', cardId: near.id });
      changed = true;
      continue;
    }
    const card = newCard(draft, { id: generateId(), now, scope });
    const superseded: string[] = [];
    if (SUPERSEDING_CARD_TYPES.has(draft.type)) {
      for (const position of current) {
        const older = cards[position]!;
        if (older.type !== draft.type || !supersedes(analyze(older.content), draftAnalysis))
          continue;
        cards[position] = { ...older, supersededBy: card.id, updatedAt: now };
        superseded.push(older.id);
        current.delete(position);
        const normalized = analyze(older.content).normalized;
        if (exact.get(normalized) === position) exact.delete(normalized);
      }
    }
    current.add(cards.length);
    exact.set(draftAnalysis.normalized, cards.length);
    cards.push(card);
    outcomes.push({ kind: 'added', cardId: card.id, superseded });
    changed = true;
  }
  const byId = new Map(cards.map((card) => [card.id, card]));
  return {
    cards,
    results: outcomes.map((outcome) => byId.get(outcome.cardId)!),
    outcomes,
    changed,
  };
}
