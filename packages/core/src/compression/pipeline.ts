import type { CompressionStrategy, StrategyName } from '../contracts/index.js';
import { currentRoundStrategy } from './current-round.js';
import { recentOnlyStrategy, summaryOnlyStrategy } from './history-strategies.js';
import { offloadAllStrategy, offloadKeepRecentStrategy } from './offload-large-messages.js';
import { summarizeRoundsStrategy } from './summarize-rounds.js';
import { toolRunsStrategy } from './tool-runs.js';

/**
 * How history is kept: `compressed` runs the five progressive strategies;
 * `recent-only` keeps a summary plus the last `recentRounds` rounds; `summary-only` keeps a summary
 * plus the current round.
 */
export type HistoryMode = 'compressed' | 'recent-only' | 'summary-only';

export const HISTORY_MODES: readonly HistoryMode[] = ['compressed', 'recent-only', 'summary-only'];

/**
 * The strategies of a history mode, in the order they run. `recent-only` still offloads, and
 * summarizes further (keeping `minMessagesToKeep`) when the recent rounds alone are over target;
 * both summary modes end with `current-round` so an oversized current round still fits.
 */
export function compressionPipeline(history: HistoryMode = 'compressed'): CompressionStrategy[] {
  switch (history) {
    case 'compressed':
      return [
        toolRunsStrategy,
        offloadKeepRecentStrategy,
        offloadAllStrategy,
        summarizeRoundsStrategy,
        currentRoundStrategy,
      ];
    case 'recent-only':
      return [
        recentOnlyStrategy,
        offloadKeepRecentStrategy,
        offloadAllStrategy,
        summarizeRoundsStrategy,
        currentRoundStrategy,
      ];
    case 'summary-only':
      return [summaryOnlyStrategy, currentRoundStrategy];
  }
}

/**
 * The strategies that shape the history of a mode. A forced compaction (manual or message-count
 * trigger) runs them even when the prompt is already under target; the others still run only
 * when needed, so a manual compaction does not cut the current round's results.
 */
export function forcedStrategyNames(history: HistoryMode): ReadonlySet<StrategyName> {
  switch (history) {
    case 'compressed':
      return new Set<StrategyName>([
        'tool-runs',
        'offload-keep-recent',
        'offload-all',
        'summarize-rounds',
      ]);
    case 'recent-only':
      return new Set<StrategyName>(['recent-only']);
    case 'summary-only':
      return new Set<StrategyName>(['summary-only']);
  }
}
