/** The previous summary's bullets read back as candidates that compete with the new sentences. */
import type { StructuredSummary, SummarySections } from '../contracts/index.js';
import type { ContentWord } from './information-content.js';
import { readPreamble, speakerLabelOf } from './message-preamble.js';
import { SUMMARY_SECTION_TITLES } from './render-summary.js';
import type { BulletCandidate } from './select-bullets.js';
import { SECTION_WEIGHT } from './sentence-sections.js';
import { splitSentences } from './split-sentences.js';
import { comparisonKey } from './summary-text.js';

/**
 * The previous summary's bullets as candidates, oldest first, so they compete with the new
 * sentences on what they tell. The first goal is kept whatever happens. A bullet's timestamp is
 * read back (bullets without one share the one above them). Returns the speakers the bullets name.
 * `contentWords` is the summary's reader, so the bullets' words share its cache.
 */
export function addPreviousBullets(
  previous: StructuredSummary,
  add: (candidate: Omit<BulletCandidate, 'order'>, key: string) => void,
  nextGroup: () => number,
  contentWords: (text: string) => ContentWord[],
): string[] {
  const speakers = new Set<string>();
  for (const section of Object.keys(SUMMARY_SECTION_TITLES) as Array<keyof SummarySections>) {
    let timestamp: string | undefined;
    const weight = SECTION_WEIGHT[section];
    previous.sections[section].forEach((bullet, index) => {
      if (section === 'goal' || section === 'snippets' || section === 'background') {
        add(
          {
            section,
            text: bullet,
            prefix: '',
            group: nextGroup(),
            words: contentWords(bullet),
            weight,
            earlier: true,
            ...(section === 'goal' && index === 0 ? { pinned: true } : {}),
          },
          bulletKey(bullet),
        );
        return;
      }
      const dated = readPreamble({ role: 'assistant', content: '' }, bullet, new Set());
      if (dated.timestamp !== undefined) timestamp = dated.timestamp;
      const speaker = speakerLabelOf(dated.body);
      if (speaker !== undefined) speakers.add(speaker);
      const prefix = speaker === undefined ? '' : `${speaker}: `;
      const core = speaker === undefined ? dated.body : dated.body.replace(SPEAKER_PREFIX, '');
      // Sentences compete one by one, as they did when they were first kept.
      const group = nextGroup();
      for (const sentence of splitSentences(core)) {
        add(
          {
            section,
            text: sentence,
            prefix,
            group,
            words: contentWords(sentence),
            weight,
            earlier: true,
            ...(timestamp === undefined ? {} : { timestamp }),
          },
          bulletKey(sentence),
        );
      }
    });
  }
  return [...speakers].filter((speaker) => speaker !== 'User' && speaker !== 'Assistant');
}

/** A leading label ("User: ", "Next step: "): not part of what makes two bullets the same. */
const LABEL = /^[^:：\n]{1,40}[:：]\s+/u;
const SPEAKER_PREFIX = /^[^:：]+[:：]\s+/u;

export function bulletKey(text: string): string {
  return comparisonKey(text.replace(LABEL, ''));
}
