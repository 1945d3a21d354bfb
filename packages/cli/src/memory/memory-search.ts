/** `ctxmem memory search`: one query or a JSON Lines file of them, against the cards of a scope. */
import type { MemoryCardType, Scope } from '@ctxmem/core';
import {
  createMemorySearch,
  type MemorySearch,
  type RetrievalMode,
  type RetrievedMemory,
  scopeKey,
} from '@ctxmem/core';
import { optionalString, parseArguments, requireOneOf } from '../arguments.js';
import { formatNumber, oneLine, plural } from '../format.js';
import { chooseProgressStyle, createActivity } from '../progress.js';
import type { CliContext } from '../run-cli.js';
import { readTextInput } from '../standard-input.js';
import {
  parseMinScore,
  parsePositiveCount,
  parseRetrievalArguments,
  parseRetrievalMode,
  parseStoreArguments,
  RETRIEVAL_OPTIONS,
  type RetrievalArguments,
  STORE_OPTIONS,
  type StoreArguments,
} from './memory-arguments.js';
import { createCliEmbedder, retrievalSearchOptions } from './memory-embedder.js';
import { parseQueryRecords, type QueryRecord } from './memory-records.js';
import { noPositionals, openStore, storeRoot } from './memory-store.js';

export interface MemorySearchCommandOptions extends StoreArguments {
  /** Exactly one of `query` and `queries` (a JSON Lines file). */
  query?: string;
  queries?: string;
  topK: number;
  minScore: number;
  mode: RetrievalMode;
  /** `--embedder`, `--fusion`, `--sequence-context`. @default the built-in hashing embedder */
  retrieval?: RetrievalArguments;
  json: boolean;
}

export function parseSearchArguments(argv: readonly string[]): MemorySearchCommandOptions {
  const { values, positionals } = parseArguments(argv, {
    ...STORE_OPTIONS,
    query: { type: 'string' },
    queries: { type: 'string' },
    'top-k': { type: 'string' },
    'min-score': { type: 'string' },
    mode: { type: 'string' },
    ...RETRIEVAL_OPTIONS,
    json: { type: 'boolean' },
  });
  noPositionals(positionals, 'search');
  const query = optionalString(values.query, '--query');
  const queries = optionalString(values.queries, '--queries');
  requireOneOf('search', ['--query', query, '"…"'], ['--queries', queries, '<file.jsonl>']);
  return {
    ...parseStoreArguments(values),
    ...(query !== undefined ? { query } : {}),
    ...(queries !== undefined ? { queries } : {}),
    topK: values['top-k'] === undefined ? 5 : parsePositiveCount(values['top-k'], '--top-k'),
    minScore:
      values['min-score'] === undefined ? 0 : parseMinScore(values['min-score'], '--min-score'),
    mode: values.mode === undefined ? 'hybrid' : parseRetrievalMode(values.mode),
    retrieval: parseRetrievalArguments(values),
    json: values.json === true,
  };
}

/** One result of `memory search --json`: the card's fields exactly as stored, and its score. */
export interface MemorySearchResultJson {
  id: string;
  content: string;
  score: number;
  type: MemoryCardType;
  tags: string[];
  /** `null` when the card has none. */
  source: string | null;
}

/** One line of `memory search --json`: the query as given and its results, best first. */
export interface MemorySearchLineJson {
  query: string;
  results: MemorySearchResultJson[];
}

export async function runSearch(
  options: MemorySearchCommandOptions,
  context: CliContext,
): Promise<number> {
  const queries =
    options.queries !== undefined
      ? await readTextInput(options.queries, context, {
          flag: '--queries',
          example: 'ctxmem memory search --queries - < queries.jsonl',
        })
      : undefined;
  const records: QueryRecord[] = queries
    ? parseQueryRecords(queries.text, queries.name)
    : [{ query: options.query! }];
  const root = await storeRoot(options, context, { mustExist: true });
  const retrieval = options.retrieval ?? { embedder: 'hashing', sequenceContext: false };
  const embedder = await createCliEmbedder(retrieval, { env: context.env });
  const search = createMemorySearch({
    store: openStore(root, context),
    mode: options.mode,
    ...retrievalSearchOptions(retrieval, embedder),
  });

  // Index every scope once, up front and without the per-search time limit, so that each query
  // is only a lookup (and a large store is not answered from BM25 alone because embedding it
  // took longer than one search may wait).
  const scopes = new Map<string, Scope>();
  for (const record of records) {
    const scope = record.scope ?? options.scope;
    scopes.set(scopeKey(scope), scope);
  }
  for (const [key, scope] of scopes) {
    const report = await syncWithActivity(search, scope, key, context);
    if (report.vectorError !== undefined) {
      context.stderr.write(
        `ctxmem memory: warning: vectors unavailable for ${key}, searching with BM25 only: ${oneLine(report.vectorError)}\n`,
      );
    }
  }

  const fallbacks = new Map<string, number>();
  for (const record of records) {
    const hits = await searchOne(
      search,
      record.scope ?? options.scope,
      record.query,
      options,
      fallbacks,
    );
    context.stdout.write(
      options.json
        ? `${JSON.stringify(searchLineJson(record.query, hits))}\n`
        : renderSearch(record.query, hits, options.queries !== undefined),
    );
  }
  for (const [message, count] of fallbacks) {
    context.stderr.write(
      `ctxmem memory: warning: ${formatNumber(count)} ${plural(count, 'query', 'queries')} fell back to BM25: ${oneLine(message)}\n`,
    );
  }
  return 0;
}

/** `search.sync` (the index build) with a status line on a terminal: embedding can take minutes. */
async function syncWithActivity(
  search: MemorySearch,
  scope: Scope,
  key: string,
  context: CliContext,
): ReturnType<MemorySearch['sync']> {
  const style = chooseProgressStyle({
    stream: context.stderr as { isTTY?: boolean },
    env: context.env,
    quiet: context.quiet === true,
    total: 1,
    threshold: 1,
  });
  const activity = createActivity({ stream: context.stderr, label: 'indexing memory', style });
  activity.show(`${key}…`);
  try {
    return await search.sync(scope);
  } finally {
    activity.finish();
  }
}

async function searchOne(
  search: MemorySearch,
  scope: Scope,
  query: string,
  options: MemorySearchCommandOptions,
  fallbacks: Map<string, number>,
): Promise<RetrievedMemory[]> {
  const { hits, report } = await search.searchWithReport(scope, query, {
    topK: options.topK,
    minScore: options.minScore,
  });
  if (report.fallback) {
    fallbacks.set(report.fallback.message, (fallbacks.get(report.fallback.message) ?? 0) + 1);
  }
  return hits;
}

function searchLineJson(query: string, hits: readonly RetrievedMemory[]): MemorySearchLineJson {
  return {
    query,
    results: hits.map(({ card, score }) => ({
      id: card.id,
      content: card.content,
      score,
      type: card.type,
      tags: card.tags,
      source: card.source ?? null,
    })),
  };
}

function renderSearch(query: string, hits: readonly RetrievedMemory[], withQuery: boolean): string {
  const lines: string[] = [];
  if (withQuery) {
    lines.push(`${JSON.stringify(query)}: ${hits.length} ${plural(hits.length, 'result')}`);
  }
  if (hits.length === 0 && !withQuery) lines.push('no results');
  hits.forEach(({ card, score }, position) => {
    const indent = withQuery ? '  ' : '';
    const number = `${position + 1}.`;
    const details = [`id ${card.id}`];
    if (card.tags.length > 0) details.push(`tags ${card.tags.join(', ')}`);
    if (card.source !== undefined) details.push(`source ${card.source}`);
    const continuation = `${indent}${' '.repeat(number.length + 1)}`;
    lines.push(
      `${indent}${number} ${score.toFixed(3)} [${card.type}] ${card.content.replace(/\n/g, `\n${continuation}`)}`,
      `${continuation}${details.join(' · ')}`,
    );
  });
  return `${lines.join('\n')}\n`;
}
