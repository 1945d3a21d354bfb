import {
  MEMORY_CARD_TYPES,
  type MemoryCardDraft,
  type MemoryCardType,
  type StructuredSummary,
  type SummarySections,
} from '../contracts/index.js';
import { parseRenderedSummary } from './parse-rendered-summary.js';
import { emptySections } from './render-summary.js';
import { collapseWhitespace, comparisonKey } from './summary-text.js';

export interface ParsedModelResponse {
  summary: StructuredSummary;
  cards: MemoryCardDraft[];
  /** False when no JSON summary was found and the raw text was kept instead. */
  structured: boolean;
}

/** Keys the model may use for each section, compared lower-case without separators. */
const SECTION_ALIASES: Readonly<Record<string, keyof SummarySections>> = {
  goal: 'goal',
  goals: 'goal',
  currentgoal: 'goal',
  background: 'background',
  context: 'background',
  keyfacts: 'keyFacts',
  facts: 'keyFacts',
  keyinformation: 'keyFacts',
  constraints: 'constraints',
  constraint: 'constraints',
  requirements: 'constraints',
  preferences: 'constraints',
  decisions: 'decisions',
  decision: 'decisions',
  todos: 'todos',
  todo: 'todos',
  nextsteps: 'todos',
  todosnextsteps: 'todos',
  snippets: 'snippets',
  importantsnippets: 'snippets',
  code: 'snippets',
  codesnippets: 'snippets',
};

/**
 * Reads the model's answer tolerantly: the JSON object may sit in a code fence or between other
 * text, may have trailing commas, may put the sections at the top level, and may use string
 * bullets or aliases of the section names. When no usable JSON object is found, the raw text is
 * kept as `freeText` — read as a rendered `## Context Summary` when it has that shape,
 * so a heading is never nested. `sourceIds` maps the message numbers of the prompt to message ids.
 */
export function parseModelResponse(
  text: string,
  sourceIds: ReadonlyMap<number, string> = new Map(),
): ParsedModelResponse {
  for (const candidate of jsonCandidates(text)) {
    const value = parseJson(candidate);
    const parsed = value === undefined ? undefined : fromJson(value, sourceIds);
    if (parsed) return parsed;
  }
  // JSON with nothing we recognise ('{}', '[]', 'null', an empty summary object) is an empty
  // answer, not prose to keep: keeping it would store "{}" as the summary.
  if (parseJson(text.trim()) !== undefined) {
    return { summary: { sections: emptySections() }, cards: [], structured: false };
  }
  return { summary: parseRenderedSummary(text.trim()), cards: [], structured: false };
}

/** Places a JSON object may be: fenced blocks first, then the outermost balanced objects. */
function jsonCandidates(text: string): string[] {
  const candidates: string[] = [];
  for (const match of text.matchAll(/```(?:json|JSON)?[^\S\n]*\n?([\s\S]*?)```/g)) {
    candidates.push(match[1]!.trim());
  }
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = matchingBrace(text, start);
    if (end !== -1) {
      candidates.push(text.slice(start, end + 1));
      start = end;
    }
  }
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first !== -1 && last > first) candidates.push(text.slice(first, last + 1));
  return candidates;
}

/** Index of the `}` that closes the `{` at `start`, skipping braces inside strings; -1 if none. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
    } else if (character === '{') {
      depth++;
    } else if (character === '}') {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}

function parseJson(candidate: string): unknown {
  try {
    return JSON.parse(candidate);
  } catch {
    try {
      // The most common slip of models: a comma before a closing bracket.
      return JSON.parse(candidate.replace(/,(\s*[}\]])/g, '$1'));
    } catch {
      return undefined;
    }
  }
}

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z]/g, '');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fromJson(
  value: unknown,
  sourceIds: ReadonlyMap<number, string>,
): ParsedModelResponse | undefined {
  if (!isRecord(value)) return undefined;
  const summaryValue = isRecord(value.summary) ? value.summary : value;
  const sections = emptySections();
  let recognised = false;
  for (const [key, items] of Object.entries(summaryValue)) {
    const section = SECTION_ALIASES[normalizeKey(key)];
    if (!section) continue;
    recognised = true;
    const seen = new Set(sections[section].map(comparisonKey));
    for (const item of bulletsOf(items, section === 'snippets')) {
      const itemKey = comparisonKey(item);
      if (seen.has(itemKey)) continue;
      seen.add(itemKey);
      sections[section].push(item);
    }
  }
  const freeTextValue = summaryValue.freeText ?? summaryValue.notes;
  const freeText = typeof freeTextValue === 'string' ? freeTextValue.trim() : '';
  const memories = value.memories ?? value.memory ?? value.cards;
  if (!recognised && !freeText && !Array.isArray(memories)) return undefined;
  const summary: StructuredSummary = freeText ? { sections, freeText } : { sections };
  return { summary, cards: cardsOf(memories, sourceIds), structured: true };
}

/** Bullets from a section value: a list, or a string with one bullet per line. */
function bulletsOf(value: unknown, keepLines: boolean): string[] {
  const raw: unknown[] = Array.isArray(value) ? value : value == null ? [] : [value];
  const bullets: string[] = [];
  for (const item of raw) {
    let text: string;
    if (typeof item === 'string') text = item;
    else if (typeof item === 'number' || typeof item === 'boolean') text = String(item);
    else if (item == null) continue;
    else text = JSON.stringify(item);
    if (keepLines) {
      const trimmed = text.replace(/^\s*```[^\n]*\n?|\n?```\s*$/g, '').trim();
      if (trimmed) bullets.push(trimmed);
      continue;
    }
    const lines = Array.isArray(value) ? [text] : text.split('\n');
    for (const line of lines) {
      const bullet = collapseWhitespace(line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, ''));
      if (bullet) bullets.push(bullet);
    }
  }
  return bullets;
}

function cardsOf(value: unknown, sourceIds: ReadonlyMap<number, string>): MemoryCardDraft[] {
  if (!Array.isArray(value)) return [];
  const cards: MemoryCardDraft[] = [];
  const seen = new Set<string>();
  for (const item of value) {
    const record: Record<string, unknown> = isRecord(item) ? item : { content: item };
    const contentValue = record.content ?? record.text ?? record.memory;
    if (typeof contentValue !== 'string') continue;
    const content = collapseWhitespace(contentValue);
    const key = comparisonKey(content);
    if (!content || seen.has(key)) continue;
    seen.add(key);
    const card: MemoryCardDraft = { content, type: cardType(record.type) };
    const tags = tagsOf(record.tags);
    if (tags.length > 0) card.tags = tags;
    const source = sourceOf(record.source, sourceIds);
    if (source !== undefined) card.source = source;
    cards.push(card);
  }
  return cards;
}

function cardType(value: unknown): MemoryCardType {
  const type = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return (MEMORY_CARD_TYPES as readonly string[]).includes(type)
    ? (type as MemoryCardType)
    : 'fact';
}

function tagsOf(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  const tags: string[] = [];
  for (const tag of raw) {
    if (typeof tag !== 'string') continue;
    const clean = collapseWhitespace(tag).toLowerCase();
    if (clean && !tags.includes(clean)) tags.push(clean);
  }
  return tags;
}

function sourceOf(value: unknown, sourceIds: ReadonlyMap<number, string>): string | undefined {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string'
        ? Number(value.replace(/^\[|\]$/g, ''))
        : NaN;
  return Number.isInteger(number) ? sourceIds.get(number) : undefined;
}
