import type { SummaryDiffLine } from './inspection.js';

/**
 * Line diff of two rendered summaries. Summary bullets are facts, not prose in a fixed order, so
 * a line counts as kept when it appears anywhere in the other summary: linear with a set, where
 * a longest-common-subsequence diff would be quadratic and report moved bullets as churn.
 */
export function diffSummaries(previous: string | undefined, current: string | undefined) {
  const before = (previous ?? '').split('\n');
  const after = (current ?? '').split('\n');
  const beforeSet = new Set(before);
  const afterSet = new Set(after);
  const lines: SummaryDiffLine[] = [];
  for (const text of before) {
    if (text.trim() !== '' && !afterSet.has(text)) lines.push({ change: 'removed', text });
  }
  for (const text of after) {
    if (text.trim() === '') continue;
    lines.push({ change: beforeSet.has(text) ? 'kept' : 'added', text });
  }
  return lines;
}
