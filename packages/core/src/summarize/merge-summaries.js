import { emptySections, SUMMARY_SECTION_TITLES } from './render-summary.js';
import { comparisonKey } from './summary-text.js';

const SECTION_KEYS = Object.keys(SUMMARY_SECTION_TITLES);
/**
 * Folds `newer` into `older` so that summaries roll instead of stacking: each bullet appears once
 * (compared without case, spacing, speaker prefix or final punctuation). A bullet repeated later
 * moves to its newest position and section, so the newest wording survives when `fitSummary`
 * later drops the oldest bullets; goals are the exception and keep their first position, because
 * the original request is what the goal section is for. Neither input is modified.
 */
export function mergeSummaries(older, newer) {
  const entries = [];
  for (const summary of older ? [older, newer] : [newer]) {
    for (const section of SECTION_KEYS) {
      for (const text of summary.sections[section]) {
        const key = comparisonKey(text);
        if (key !== '') entries.push({ section, text, key });
      }
    }
  }
  const goalKeys = new Set();
  const lastPosition = new Map();
  entries.forEach((entry, position) => {
    if (entry.section === 'goal') goalKeys.add(entry.key);
    lastPosition.set(entry.key, position);
  });
  const sections = emptySections();
  const placedGoals = new Set();
  entries.forEach((entry, position) => {
    if (goalKeys.has(entry.key)) {
      // The first goal occurrence wins; the bullet leaves every other section.
      if (entry.section === 'goal' && !placedGoals.has(entry.key)) {
        placedGoals.add(entry.key);
        sections.goal.push(entry.text);
      }
      return;
    }
    if (lastPosition.get(entry.key) === position) sections[entry.section].push(entry.text);
  });
  const freeText = mergeFreeText(older?.freeText, newer.freeText);
  return freeText ? { sections, freeText } : { sections };
}
function mergeFreeText(older, newer) {
  const first = older?.trim();
  const second = newer?.trim();
  if (!first) return second || undefined;
  if (!second || first.includes(second)) return first;
  if (second.includes(first)) return second;
  return `${first}\n\n${second}`;
}
//# sourceMappingURL=merge-summaries.js.map
