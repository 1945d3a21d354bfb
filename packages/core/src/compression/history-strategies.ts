import type { CompressionStrategy } from '../contracts/index.js';
import { promptLayout } from './layout.js';
import { runStrategy } from './strategy-report.js';
import { evictIntoSummary, historyCuts } from './summary-eviction.js';

/**
 * The `recent-only` history: everything older than the last `recentRounds` rounds before
 * the current round goes into the rolling summary; those rounds and the current round stay
 * verbatim. When the round boundary is not pair-safe, the nearest earlier safe cut is used (more
 * is kept, never a broken pair).
 */
export const recentOnlyStrategy: CompressionStrategy = {
  name: 'recent-only',
  apply(state, context) {
    return runStrategy('recent-only', state, context, async () => {
      const layout = promptLayout(state.messages);
      const cuts = historyCuts(state.messages, layout);
      // Cuts are round starts (plus the current round's start), so the last `recentRounds` rounds
      // begin at the cut that many places from the end.
      const keptRounds = context.settings.recentRounds;
      const position = cuts.length - 1 - keptRounds;
      if (position < 0) return {};
      return evictIntoSummary(state, layout, context, cuts[position]!);
    });
  },
};

/** The `summary-only` history: the rolling summary and the current round, nothing else. */
export const summaryOnlyStrategy: CompressionStrategy = {
  name: 'summary-only',
  apply(state, context) {
    return runStrategy('summary-only', state, context, async () => {
      const layout = promptLayout(state.messages);
      const cut = historyCuts(state.messages, layout).at(-1);
      if (cut === undefined) return {};
      return evictIntoSummary(state, layout, context, cut);
    });
  },
};
