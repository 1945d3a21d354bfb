import type { StructuredSummary, SummarySections } from '../contracts/index.js';
import {
  emptySections,
  SUMMARY_HEADING,
  SUMMARY_PREAMBLE,
  SUMMARY_SECTION_TITLES,
} from './render-summary.js';

const SECTION_BY_TITLE = new Map(
  (Object.entries(SUMMARY_SECTION_TITLES) as Array<[keyof SummarySections, string]>).map(
    ([key, title]) => [title.toLowerCase(), key],
  ),
);

/** Removes a leading `## Context Summary` heading, so summary text never nests a second one. */
export function stripSummaryHeading(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith(SUMMARY_HEADING)) return trimmed;
  const body = trimmed.slice(SUMMARY_HEADING.length).trim();
  return body.startsWith(SUMMARY_PREAMBLE) ? body.slice(SUMMARY_PREAMBLE.length).trim() : body;
}

/**
 * Reads a `## Context Summary` block (as `renderSummary` writes it) back into a structured summary.
 * Used when a history carries the rendered summary message but not the structured summary, so that
 * the next summary replaces it instead of nesting it. Text that is not in the rendered shape ends up
 * in `freeText`; `parseRenderedSummary(renderSummary(summary))` gives the summary back.
 */
export function parseRenderedSummary(text: string): StructuredSummary {
  const sections = emptySections();
  const lines = stripSummaryHeading(text).split('\n');
  let section: keyof SummarySections | undefined;
  let index = 0;
  for (; index < lines.length; index++) {
    const line = lines[index]!;
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const title = /^###\s+(.+)$/.exec(trimmed)?.[1];
    const titled = title === undefined ? undefined : SECTION_BY_TITLE.get(title.toLowerCase());
    if (titled) {
      section = titled;
      continue;
    }
    if (section && trimmed.startsWith('- ')) {
      sections[section].push(trimmed.slice(2).trim());
      continue;
    }
    if (section === 'snippets' && trimmed === '```') {
      const body: string[] = [];
      let closing = index + 1;
      while (closing < lines.length && lines[closing]!.trim() !== '```') {
        body.push(lines[closing]!);
        closing++;
      }
      if (closing >= lines.length) break;
      sections.snippets.push(body.join('\n'));
      index = closing;
      continue;
    }
    break;
  }
  const freeText = lines.slice(index).join('\n').trim();
  return freeText ? { sections, freeText } : { sections };
}
