import type { CompressionStrategy } from '../contracts/index.js';
import { promptLayout } from './layout.js';
import { runStrategy } from './strategy-report.js';
import { chooseCut, evictIntoSummary, historyCuts } from './summary-eviction.js';

/**
 * Strategy d (seed 002 strategy 4, seed 000's rolling summary): evicts the oldest rounds, cut
 * only where no tool call is separated from its result, into ONE rolling `## Context Summary`
 * system message right after the leading system messages. An existing summary goes to the
 * summarizer as `previousSummary`, so summaries never stack. It keeps at least
 * `minMessagesToKeep` messages before the current round when the budget allows, and evicts enough
 * to land at about `targetTokens` so the next turn does not compress again. The summarizer's cards
 * and fallback are reported; when it throws, the state is left unchanged.
 */
export const summarizeRoundsStrategy: CompressionStrategy = {
  name: 'summarize-rounds',
  apply(state, context) {
    return runStrategy('summarize-rounds', state, context, async () => {
      const layout = promptLayout(state.messages);
      const cut = chooseCut(state, layout, context, historyCuts(state.messages, layout));
      if (cut === undefined) return {};
      return evictIntoSummary(state, layout, context, cut);
    });
  },
};
