import { readFile } from 'node:fs/promises';
import type { MemoryCardDraft, MemoryCardType, Scope } from '@ctxmem/core';
import {
  InvalidArgumentError,
  InvalidIdError,
  MEMORY_CARD_TYPES,
  normalizeScope,
  StorageError,
  UnsupportedFormatError,
} from '@ctxmem/core';
import { MAX_CARD_CONTENT_LENGTH } from '@ctxmem/core/adapter-kit';
import { validateDrafts } from '@ctxmem/core/driver-kit';
import { describeFileError } from '../read-conversation.js';

/** Fields a card record may have in `memory add --jsonl`. */
const CARD_FIELDS = ['content', 'type', 'tags', 'source', 'occurredAt'] as const;
/** Fields a query record may have in `memory search --queries`. */
const QUERY_FIELDS = ['query', 'scope'] as const;
const SCOPE_FIELDS = ['userId', 'agentId', 'sessionId'] as const;

/** How many bad lines one error message lists before it only counts the rest. */
const LISTED_PROBLEMS = 3;

/** One non-blank line of a JSON Lines file, parsed. */
interface JsonLine {
  /** 1-based, counting blank lines, as an editor shows it. */
  line: number;
  value: unknown;
}

/** The defaults `memory add` applies to records that leave a field out (from the flags). */
export interface CardDefaults {
  type?: MemoryCardType;
  tags?: string[];
  source?: string;
}

export interface QueryRecord {
  query: string;
  /** Only when the line has its own `scope`; otherwise the flags' scope applies. */
  scope?: Scope;
}

/** Reads a file as UTF-8; a missing or unreadable file is a `StorageError` naming it. */
export async function readTextFile(path: string, displayName: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    throw new StorageError({
      message: `cannot read ${displayName}: ${describeFileError(cause)}`,
      path,
      cause,
    });
  }
}

/**
 * Parses card drafts from JSON Lines: one object per line with `content` (required), `type`,
 * `tags`, `source` and `occurredAt`. Every line is checked before anything is returned, so a bad line means no
 * card is added; the error names the line (and counts the other bad ones). Unknown fields are an
 * error too: a misspelt `tag` would otherwise lose its tags without a word.
 */
export function parseCardRecords(
  text: string,
  displayName: string,
  defaults: CardDefaults = {},
): MemoryCardDraft[] {
  return parseRecords<MemoryCardDraft>(text, displayName, {
    noun: ['card', 'cards'],
    example: '{"content": "…"}',
    read: (value) => {
      const problem = cardProblem(value);
      return problem !== undefined
        ? { problem }
        : { record: withDefaults(value as MemoryCardDraft, defaults) };
    },
  });
}

/** The card of `memory add --text`; a bad text is a usage error. */
export function cardFromText(text: string, defaults: CardDefaults = {}): MemoryCardDraft {
  const problem = cardProblem({ content: text });
  if (problem !== undefined) {
    throw new InvalidArgumentError({
      message: `--text ${problem.replace('"content" ', '')}`,
      argument: '--text',
    });
  }
  return withDefaults({ content: text }, defaults);
}

function withDefaults(record: MemoryCardDraft, defaults: CardDefaults): MemoryCardDraft {
  const type = record.type ?? defaults.type;
  const tags = record.tags ?? defaults.tags;
  const source = record.source ?? defaults.source;
  return {
    content: record.content,
    ...(type !== undefined ? { type } : {}),
    ...(tags !== undefined ? { tags: [...tags] } : {}),
    ...(source !== undefined ? { source } : {}),
    ...(record.occurredAt !== undefined ? { occurredAt: record.occurredAt } : {}),
  };
}

/**
 * Parses query records from JSON Lines: `{ "query": "…" }`, optionally with a `scope` object
 * (`userId`, `agentId`, `sessionId`) that replaces the scope flags for that line, so one run can
 * answer queries of several users. Checked whole before any search runs.
 */
export function parseQueryRecords(text: string, displayName: string): QueryRecord[] {
  return parseRecords<QueryRecord>(text, displayName, {
    noun: ['query', 'queries'],
    example: '{"query": "…"}',
    read: (value) => {
      const problem = queryProblem(value);
      if (problem !== undefined) return { problem };
      const record = value as { query: string; scope?: Scope };
      if (record.scope === undefined) return { record: { query: record.query } };
      try {
        return { record: { query: record.query, scope: normalizeScope(record.scope) } };
      } catch (error) {
        if (!InvalidIdError.isInstance(error)) throw error;
        return { problem: `"scope": ${lowerFirst(error.message)}` };
      }
    },
  });
}

/**
 * The records of a JSON Lines text, each read by `read`. Every line is checked before anything is
 * returned, so one bad line rejects the whole input with the first problems listed by line.
 */
function parseRecords<Record>(
  text: string,
  displayName: string,
  {
    noun: [singular, plural],
    example,
    read,
  }: {
    noun: readonly [string, string];
    example: string;
    read: (value: unknown) => { record: Record } | { problem: string };
  },
): Record[] {
  const { lines, problems } = parseJsonLines(text);
  const records: Record[] = [];
  for (const { line, value } of lines) {
    const result = read(value);
    if ('problem' in result) problems.push({ line, problem: result.problem });
    else records.push(result.record);
  }
  throwProblems(problems, displayName, singular, records.length + problems.length);
  if (records.length === 0) {
    throw new UnsupportedFormatError({
      message: `${displayName} has no ${plural} (expected one JSON object per line, such as ${example})`,
    });
  }
  return records;
}

interface Problem {
  line: number;
  problem: string;
}

function parseJsonLines(text: string): { lines: JsonLine[]; problems: Problem[] } {
  // Editors on Windows like to add a byte-order mark, which JSON.parse rejects.
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines: JsonLine[] = [];
  const problems: Problem[] = [];
  source.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '') return;
    try {
      lines.push({ line: index + 1, value: JSON.parse(trimmed) });
    } catch (cause) {
      problems.push({ line: index + 1, problem: `not valid JSON (${jsonReason(cause)})` });
    }
  });
  return { lines, problems };
}

function jsonReason(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  return lowerFirst(
    message
      .replace(/, "[\s\S]*" is not valid JSON$/, '')
      .replace(/\s*in JSON at position \d+.*$/, '')
      .replace(/\s*\(line \d+ column \d+\)$/, ''),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'object' ? 'an object' : String(value);
}

function unknownField(
  value: Record<string, unknown>,
  known: readonly string[],
): string | undefined {
  const field = Object.keys(value).find((key) => !known.includes(key));
  return field === undefined
    ? undefined
    : `unknown field ${JSON.stringify(field)} (a record has ${known.join(', ')})`;
}

function cardProblem(value: unknown): string | undefined {
  if (!isObject(value))
    return `expected an object such as {"content": "…"}, got ${describeValue(value)}`;
  const unknown = unknownField(value, CARD_FIELDS);
  if (unknown !== undefined) return unknown;
  const { content, type, tags, source } = value;
  if (content === undefined) return '"content" is missing';
  if (typeof content !== 'string' || content.trim() === '') {
    return `"content" must be a non-empty string, got ${describeValue(content)}`;
  }
  if (content.length > MAX_CARD_CONTENT_LENGTH) {
    return `"content" is ${content.length} characters, more than the ${MAX_CARD_CONTENT_LENGTH} a card may have`;
  }
  if (type !== undefined && !(MEMORY_CARD_TYPES as readonly unknown[]).includes(type)) {
    return `"type" must be one of ${MEMORY_CARD_TYPES.join(', ')}, got ${describeValue(type)}`;
  }
  if (tags !== undefined && (!Array.isArray(tags) || tags.some((tag) => typeof tag !== 'string'))) {
    return `"tags" must be an array of strings, got ${describeValue(tags)}`;
  }
  if (source !== undefined && typeof source !== 'string') {
    return `"source" must be a string, got ${describeValue(source)}`;
  }
  if (value.occurredAt !== undefined) {
    // Core's rule, so the line is named before anything is added.
    try {
      validateDrafts([{ content, occurredAt: value.occurredAt as string }]);
    } catch (error) {
      return `"occurredAt" ${(error as Error).message.replace(/^drafts\[0\]\.occurredAt /, '').replace(/\.$/, '')}`;
    }
  }
  return undefined;
}

function queryProblem(value: unknown): string | undefined {
  if (!isObject(value))
    return `expected an object such as {"query": "…"}, got ${describeValue(value)}`;
  const unknown = unknownField(value, QUERY_FIELDS);
  if (unknown !== undefined) return unknown;
  const { query, scope } = value;
  if (query === undefined) return '"query" is missing';
  if (typeof query !== 'string' || query.trim() === '') {
    return `"query" must be a non-empty string, got ${describeValue(query)}`;
  }
  if (scope === undefined) return undefined;
  if (!isObject(scope))
    return `"scope" must be an object such as {"userId": "alice"}, got ${describeValue(scope)}`;
  const unknownScopeField = Object.keys(scope).find(
    (key) => !(SCOPE_FIELDS as readonly string[]).includes(key),
  );
  if (unknownScopeField !== undefined) {
    return `unknown scope field ${JSON.stringify(unknownScopeField)} (a scope has ${SCOPE_FIELDS.join(', ')})`;
  }
  const notString = SCOPE_FIELDS.find(
    (field) => scope[field] !== undefined && typeof scope[field] !== 'string',
  );
  if (notString !== undefined) {
    return `"scope.${notString}" must be a string, got ${describeValue(scope[notString])}`;
  }
  return undefined;
}

function throwProblems(
  problems: readonly Problem[],
  displayName: string,
  noun: string,
  records: number,
): void {
  if (problems.length === 0) return;
  const sorted = [...problems].sort((left, right) => left.line - right.line);
  const listed = sorted
    .slice(0, LISTED_PROBLEMS)
    .map(({ line, problem }) => `line ${line}: ${problem}`)
    .join('; ');
  const more = sorted.length - LISTED_PROBLEMS;
  const rest = more > 0 ? `; and ${more} more bad line${more === 1 ? '' : 's'}` : '';
  throw new UnsupportedFormatError({
    message: `${displayName}: ${listed}${rest} (${sorted.length} of ${records} ${noun} lines invalid; nothing was done)`,
  });
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
