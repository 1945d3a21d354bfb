import type { CompressionStrategy, MemoryCardDraft } from '../contracts/index.js';
import { currentRoundSavings } from './current-round.js';
import { promptLayout } from './layout.js';
import { runStrategy, type StrategyOutcome } from './strategy-report.js';
import { chooseCut, countKept, evictIntoSummary, historyCuts } from './summary-eviction.js';

/**
 * Summaries are estimated before they exist; when one comes out larger than estimated and the
 * prompt is still over target, more rounds are folded in, at most this many summarizer calls.
 */
const MAX_PASSES = 3;

/**
 * Strategy d, summarize past rounds into the rolling summary: evicts the oldest rounds, cut
 * only where no tool call is separated from its result, into ONE rolling `## Context Summary`
 * system message right after the leading system messages. An existing summary goes to the
 * summarizer as `previousSummary`, so summaries never stack. It keeps at least
 * `minMessagesToKeep` messages before the current round when the budget allows, and evicts enough
 * to land at about `targetTokens` so the next turn does not compress again (folding in more
 * rounds, up to three summarizer calls, when a summary comes out larger than estimated, but not
 * after a fallback while within the budget). The summarizer's cards
 * and fallback are reported; when it throws, the state is left unchanged.
 */
export const summarizeRoundsStrategy: CompressionStrategy = {
  name: 'summarize-rounds',
  apply(state, context) {
    return runStrategy('summarize-rounds', state, context, async () => {
      let current = state;
      let messagesAffected = 0;
      let summarizerCalls = 0;
      const cards: MemoryCardDraft[] = [];
      let fallback: StrategyOutcome['fallback'];
      for (let pass = 0; pass < MAX_PASSES; pass++) {
        const layout = promptLayout(current.messages);
        const cut = chooseCut(current, layout, context, historyCuts(current.messages, layout));
        if (cut === undefined) break;
        // A further pass may not break `minMessagesToKeep` unless the budget itself is at stake.
        if (
          pass > 0 &&
          countKept(current.messages, cut, layout.currentStart) <
            context.settings.minMessagesToKeep &&
          context.counter.countMessages(current.messages) -
            currentRoundSavings(current.messages, context) <=
            context.budgetTokens
        ) {
          break;
        }
        const eviction = await evictIntoSummary(current, layout, context, cut);
        summarizerCalls += eviction.summarizerCalls;
        cards.push(...eviction.cards);
        fallback = eviction.fallback ?? fallback;
        if (!eviction.state) break;
        current = eviction.state;
        messagesAffected += eviction.messagesAffected;
        const tokens = context.counter.countMessages(current.messages);
        if (tokens <= context.targetTokens) break;
        // The primary summarizer just failed: another pass would call it again (a timeout costs
        // its whole wait) only to land closer to the target. Within the budget that is not worth it.
        if (eviction.fallback && tokens <= context.budgetTokens) break;
      }
      return {
        ...(current === state ? {} : { state: current }),
        messagesAffected,
        summarizerCalls,
        cards,
        ...(fallback ? { fallback } : {}),
      };
    });
  },
};
