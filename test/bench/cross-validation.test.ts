import { describe, expect, it } from 'vitest';
import {
  type Counts,
  foldRows,
  leaveOneConversationOut,
  type QuestionOutcome,
  remeasure,
} from '../../bench/cross-validation.js';

// Synthetic conversations: a candidate's hits per conversation and category, 10 questions each.
const hitsTable: Record<string, Record<string, Record<number, number>>> = {
  steady: {
    a: { 1: 5, 4: 5 },
    b: { 1: 5, 4: 5 },
    c: { 1: 5, 4: 5 },
  },
  // Wins on a and b only: chosen when c is held out, never measured on the data that chose it.
  lucky: {
    a: { 1: 9, 4: 9 },
    b: { 1: 9, 4: 9 },
    c: { 1: 1, 4: 1 },
  },
};

function outcomes(candidate: string, sample: string): QuestionOutcome[] {
  return Object.entries(hitsTable[candidate]![sample]!).flatMap(([category, hits]) =>
    Array.from({ length: 10 }, (_, index) => ({
      category: Number(category),
      counts: { questions: 1, hits: index < hits ? 1 : 0 },
    })),
  );
}

const rate = (counts: Counts) =>
  counts.questions ? (counts.hits ?? 0) / counts.questions : undefined;

describe('leaveOneConversationOut', () => {
  it('chooses on the other conversations and measures on the held-out one', async () => {
    const evaluated: string[] = [];
    const result = await leaveOneConversationOut({
      samples: ['a', 'b', 'c'],
      idOf: (sample) => sample,
      candidates: ['steady', 'lucky'],
      nameOf: (candidate) => candidate,
      evaluate: (candidate, sample) => {
        evaluated.push(`${candidate}/${sample}`);
        return outcomes(candidate, sample);
      },
      metric: rate,
    });
    // Each pair once, whatever the number of folds.
    expect(evaluated).toHaveLength(6);
    expect(result.folds.map((fold) => [fold.heldOut, fold.chosen, fold.overall])).toEqual([
      // Tuned on b and c: lucky (9 + 1) / 20 ties steady's 0.5, and the tie keeps steady.
      ['a', 'steady', 0.5],
      ['b', 'steady', 0.5],
      // Tuned on a and b, where lucky shines; the held-out conversation shows what it is worth.
      ['c', 'lucky', 0.1],
    ]);
    expect(result.overall.mean).toBeCloseTo((0.5 + 0.5 + 0.1) / 3);
    expect(result.overall.worst).toBe(0.1);
    expect(result.overall.worstFold).toBe('c');
    expect(result.byCategory.get(1)?.worst).toBe(0.1);
    // Category 2 has no questions: no figure rather than a zero.
    expect(result.byCategory.get(2)?.mean).toBeUndefined();
    // On all three pooled, lucky (19/30) beats steady (15/30): what a default chosen there would be.
    expect(result.chosenOnAll).toBe('lucky');
  });

  it('keeps the earlier candidate on a tie, so a change has to win', async () => {
    const result = await leaveOneConversationOut({
      samples: ['a', 'b'],
      idOf: (sample) => sample,
      candidates: ['first', 'second'],
      nameOf: (candidate) => candidate,
      evaluate: () => [{ category: 1, counts: { questions: 1, hits: 1 } }],
      metric: rate,
    });
    expect(result.folds.map((fold) => fold.chosen)).toEqual(['first', 'first']);
    expect(result.chosenOnAll).toBe('first');
  });

  it('measures the same choices with another figure', async () => {
    const result = await leaveOneConversationOut({
      samples: ['a', 'b', 'c'],
      idOf: (sample) => sample,
      candidates: ['steady', 'lucky'],
      nameOf: (candidate) => candidate,
      evaluate: (candidate, sample) => outcomes(candidate, sample),
      metric: rate,
    });
    const misses = remeasure(result, (counts) =>
      counts.questions ? 1 - (counts.hits ?? 0) / counts.questions : undefined,
    );
    expect(misses.folds.map((fold) => [fold.chosen, fold.overall])).toEqual([
      ['steady', 0.5],
      ['steady', 0.5],
      ['lucky', 0.9],
    ]);
    expect(misses.overall.worstFold).toBe('a');
  });

  it('prints a row per fold, a mean row and a worst-fold row', async () => {
    const result = await leaveOneConversationOut({
      samples: ['a', 'b', 'c'],
      idOf: (sample) => sample,
      candidates: ['steady'],
      nameOf: (candidate) => candidate,
      evaluate: (candidate, sample) => outcomes(candidate, sample),
      metric: rate,
    });
    const rows = foldRows(result, { label: 'hit', format: (value) => value.toFixed(2) });
    expect(rows.map((row) => row['held out'])).toEqual(['a', 'b', 'c', 'mean', 'worst fold']);
    expect(rows[3]).toMatchObject({ overall: '0.50', 'multi-hop': '0.50', temporal: '–' });
  });
});
