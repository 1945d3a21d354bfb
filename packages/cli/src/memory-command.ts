/**
 * `ctxmem memory add | search | list | remove | stats`: long-term memory cards in a file store,
 * from the command line. Loaded only when `ctxmem memory` runs (it pulls in the stores and the
 * retrieval code).
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { MemoryCardDraft, MemoryCardType, MemoryStore, Scope } from '@ctxmem/core';
import {
  type CorruptionEvent,
  CtxmemError,
  createFileMemoryStore,
  createMemorySearch,
  InvalidArgumentError,
  InvalidIdError,
  MEMORY_CARD_TYPES,
  type MemorySearch,
  NotFoundError,
  type RetrievalMode,
  type RetrievedMemory,
  StorageError,
  scopeKey,
} from '@ctxmem/core';
import { scopeFolder } from '@ctxmem/core/driver-kit';
import { optionalString, parseArguments } from './arguments.js';
import { formatNumber, preview, table } from './format.js';
import {
  parseCardType,
  parseMinScore,
  parsePositiveCount,
  parseRetrievalArguments,
  parseRetrievalMode,
  parseStoreArguments,
  parseTags,
  RETRIEVAL_OPTIONS,
  type RetrievalArguments,
  STORE_OPTIONS,
  type StoreArguments,
} from './memory-arguments.js';
import { createCliEmbedder, retrievalSearchOptions } from './memory-embedder.js';
import {
  type CardDefaults,
  cardFromText,
  parseCardRecords,
  parseQueryRecords,
  type QueryRecord,
} from './memory-records.js';
import { chooseProgressStyle, createActivity, createProgress } from './progress.js';
import { describeFileError } from './read-conversation.js';
import { oneLine } from './render-report.js';
import type { CliContext } from './run-cli.js';
import { readTextInput } from './standard-input.js';

export const MEMORY_SUBCOMMANDS = ['add', 'search', 'list', 'remove', 'stats'] as const;
export type MemorySubcommand = (typeof MEMORY_SUBCOMMANDS)[number];

/** The file each scope's cards live in, inside the scope folder (see `createFileMemoryStore`). */
const CARDS_FILE = 'cards.jsonl';

/**
 * Runs `ctxmem memory <subcommand> …` and returns the exit code. Errors are thrown as typed errors
 * for `runCli` to report on one line; an unsafe id (scope flag or card id) is a usage error.
 */
export async function runMemoryCommand(
  argv: readonly string[],
  context: CliContext,
): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === undefined || subcommand.startsWith('-')) {
    throw new InvalidArgumentError({
      message: `missing subcommand: ctxmem memory <${MEMORY_SUBCOMMANDS.join('|')}>`,
      argument: 'subcommand',
    });
  }
  if (!(MEMORY_SUBCOMMANDS as readonly string[]).includes(subcommand)) {
    throw new InvalidArgumentError({
      message: `unknown subcommand "${subcommand}" (subcommands: ${MEMORY_SUBCOMMANDS.join(', ')})`,
      argument: 'subcommand',
    });
  }
  try {
    switch (subcommand as MemorySubcommand) {
      case 'add':
        return await runAdd(parseAddArguments(rest), context);
      case 'search':
        return await runSearch(parseSearchArguments(rest), context);
      case 'list':
        return await runList(parseListArguments(rest), context);
      case 'remove':
        return await runRemove(parseRemoveArguments(rest), context);
      case 'stats':
        return await runStats(parseStatsArguments(rest), context);
    }
  } catch (error) {
    if (!InvalidIdError.isInstance(error)) throw error;
    throw new InvalidArgumentError({ message: error.message, argument: 'id', cause: error });
  }
}

// ---------------------------------------------------------------------------------------------
// add

export interface MemoryAddOptions extends StoreArguments {
  /** A JSON Lines file of card records; exactly one of `jsonl` and `text`. */
  jsonl?: string;
  text?: string;
  /** Applied to records that do not set the field themselves. */
  defaults: CardDefaults;
  /** Show progress even without a terminal (as plain lines). */
  progress: boolean;
  json: boolean;
}

export function parseAddArguments(argv: readonly string[]): MemoryAddOptions {
  const { values, positionals } = parseArguments(argv, {
    ...STORE_OPTIONS,
    jsonl: { type: 'string' },
    text: { type: 'string' },
    type: { type: 'string' },
    tags: { type: 'string' },
    source: { type: 'string' },
    progress: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  noPositionals(positionals, 'add');
  const jsonl = optionalString(values.jsonl, '--jsonl');
  const text = optionalString(values.text, '--text');
  if ((jsonl === undefined) === (text === undefined)) {
    throw new InvalidArgumentError({
      message:
        jsonl === undefined
          ? 'add needs the cards: --jsonl <file> or --text "…"'
          : 'add takes --jsonl <file> or --text "…", not both',
      argument: '--jsonl',
    });
  }
  const source = optionalString(values.source, '--source');
  const defaults: CardDefaults = {
    ...(values.type !== undefined ? { type: parseCardType(values.type, '--type') } : {}),
    ...(values.tags !== undefined ? { tags: parseTags(values.tags) } : {}),
    ...(source !== undefined ? { source } : {}),
  };
  return {
    ...parseStoreArguments(values),
    ...(jsonl !== undefined ? { jsonl } : {}),
    ...(text !== undefined ? { text } : {}),
    defaults,
    progress: values.progress === true,
    json: values.json === true,
  };
}

/** What one `memory add` did. */
export interface MemoryAddSummary {
  /** New cards. */
  added: number;
  /** Records that matched a card already stored (or an earlier record) and were merged into it. */
  duplicates: number;
  /** Older cards that a new card replaced (kept, marked superseded). */
  superseded: number;
  /** For each record, in input order, the id of the card it ended up as. */
  ids: string[];
}

export async function runAdd(options: MemoryAddOptions, context: CliContext): Promise<number> {
  const input =
    options.jsonl !== undefined
      ? await readTextInput(options.jsonl, context, {
          flag: '--jsonl',
          example: 'ctxmem memory add --jsonl - < cards.jsonl',
        })
      : undefined;
  const drafts = input
    ? parseCardRecords(input.text, input.name, options.defaults)
    : [cardFromText(options.text!, options.defaults)];
  const root = await storeRoot(options, context, { mustExist: false });
  const store = openStore(root, context);
  const summary = await addInBatches(store, options.scope, drafts, {
    progress: createProgress({
      stream: context.stderr,
      total: drafts.length,
      label: 'adding cards',
      style: chooseProgressStyle({
        stream: context.stderr as { isTTY?: boolean },
        env: context.env,
        forced: options.progress,
        quiet: context.quiet === true,
        total: drafts.length,
      }),
    }),
    storeName: options.store,
  });
  if (options.json) {
    context.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  const { added, duplicates, superseded } = summary;
  context.stdout.write(
    `added ${formatNumber(added)} ${plural(added, 'card')}, merged ${formatNumber(duplicates)} as ${plural(duplicates, 'duplicate')}, superseded ${formatNumber(superseded)} older ${plural(superseded, 'card')} (${scopeKey(options.scope)} in ${options.store})\n`,
  );
  return 0;
}

/** Cards per `store.add` call: enough for few rewrites of the file, small enough for progress. */
function batchSizeFor(total: number): number {
  return Math.min(1000, Math.max(100, Math.ceil(total / 50)));
}

/**
 * Adds validated drafts batch by batch (each batch is one atomic write under the store's lock)
 * and tells what happened to them. The store returns the card each draft ended up as, so a draft
 * whose card existed before (or came from an earlier draft) was merged as a duplicate; superseded
 * cards are the stored ones whose `supersededBy` names a card this run added.
 */
async function addInBatches(
  store: MemoryStore,
  scope: Scope,
  drafts: readonly MemoryCardDraft[],
  { progress, storeName }: { progress: ReturnType<typeof createProgress>; storeName: string },
): Promise<MemoryAddSummary> {
  const known = new Set(
    (await store.list(scope, { includeSuperseded: true })).map((card) => card.id),
  );
  const addedIds = new Set<string>();
  const ids: string[] = [];
  let duplicates = 0;
  const size = batchSizeFor(drafts.length);
  progress.update(0);
  try {
    for (let start = 0; start < drafts.length; start += size) {
      const cards = await store.add(scope, drafts.slice(start, start + size));
      for (const card of cards) {
        ids.push(card.id);
        if (known.has(card.id)) {
          duplicates++;
        } else {
          known.add(card.id);
          addedIds.add(card.id);
        }
      }
      progress.update(Math.min(drafts.length, start + size));
    }
  } catch (error) {
    if (ids.length === 0) throw error;
    const reason = CtxmemError.isInstance(error)
      ? error.message
      : error instanceof Error
        ? error.message
        : String(error);
    throw new StorageError({
      message: `${reason} (${formatNumber(ids.length)} of ${formatNumber(drafts.length)} cards were stored in ${storeName} before this; running the same command again adds the rest, as stored cards merge as duplicates)`,
      path: storeName,
      cause: error,
    });
  } finally {
    progress.finish();
  }
  const after = await store.list(scope, { includeSuperseded: true });
  const superseded = after.filter(
    (card) => card.supersededBy !== undefined && addedIds.has(card.supersededBy),
  ).length;
  return { added: addedIds.size, duplicates, superseded, ids };
}

// ---------------------------------------------------------------------------------------------
// search

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
  if ((query === undefined) === (queries === undefined)) {
    throw new InvalidArgumentError({
      message:
        query === undefined
          ? 'search needs --query "…" or --queries <file.jsonl>'
          : 'search takes --query "…" or --queries <file.jsonl>, not both',
      argument: '--query',
    });
  }
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

// ---------------------------------------------------------------------------------------------
// list

export interface MemoryListCommandOptions extends StoreArguments {
  includeSuperseded: boolean;
  json: boolean;
}

export function parseListArguments(argv: readonly string[]): MemoryListCommandOptions {
  const { values, positionals } = parseArguments(argv, {
    ...STORE_OPTIONS,
    'include-superseded': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  noPositionals(positionals, 'list');
  return {
    ...parseStoreArguments(values),
    includeSuperseded: values['include-superseded'] === true,
    json: values.json === true,
  };
}

/** Prints the cards of a scope: JSON Lines of the stored cards with `--json`, else a table. */
export async function runList(
  options: MemoryListCommandOptions,
  context: CliContext,
): Promise<number> {
  const root = await storeRoot(options, context, { mustExist: true });
  const all = await openStore(root, context).list(options.scope, { includeSuperseded: true });
  const shown = options.includeSuperseded
    ? all
    : all.filter((card) => card.supersededBy === undefined);
  if (options.json) {
    context.stdout.write(shown.map((card) => `${JSON.stringify(card)}\n`).join(''));
    return 0;
  }
  const key = scopeKey(options.scope);
  const hidden = all.length - shown.length;
  const lines: string[] = [];
  if (shown.length > 0) {
    const rows = [['id', 'type', 'updated', 'content']];
    for (const card of shown) {
      const marker = card.supersededBy !== undefined ? '(superseded) ' : '';
      const tags = card.tags.length > 0 ? `  #${card.tags.join(' #')}` : '';
      rows.push([
        card.id,
        card.type,
        card.updatedAt.slice(0, 10),
        preview(`${marker}${card.content}${tags}`, 80),
      ]);
    }
    lines.push(...table(rows));
  }
  const hiddenNote =
    hidden > 0 ? ` (and ${formatNumber(hidden)} superseded; --include-superseded lists them)` : '';
  lines.push(
    `${formatNumber(shown.length)} ${plural(shown.length, 'card')} in ${key}${hiddenNote}`,
  );
  context.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// remove

export interface MemoryRemoveOptions extends StoreArguments {
  ids: string[];
}

export function parseRemoveArguments(argv: readonly string[]): MemoryRemoveOptions {
  const { values, positionals } = parseArguments(argv, { ...STORE_OPTIONS });
  if (positionals.length === 0) {
    throw new InvalidArgumentError({
      message: 'remove needs the ids of the cards: ctxmem memory remove <id…> --store <dir>',
      argument: 'id',
    });
  }
  return { ...parseStoreArguments(values), ids: [...new Set(positionals)] };
}

/**
 * Removes cards by id. Every id is checked first (a safe id, and a card of this scope), so a typo
 * removes nothing rather than some of the cards.
 */
export async function runRemove(
  options: MemoryRemoveOptions,
  context: CliContext,
): Promise<number> {
  const root = await storeRoot(options, context, { mustExist: true });
  const store = openStore(root, context);
  const missing: string[] = [];
  for (const id of options.ids) {
    try {
      await store.get(options.scope, id);
    } catch (error) {
      if (!NotFoundError.isInstance(error)) throw error;
      missing.push(id);
    }
  }
  const key = scopeKey(options.scope);
  if (missing.length > 0) {
    throw new NotFoundError({
      message: `no ${plural(missing.length, 'card')} ${missing.map((id) => JSON.stringify(id)).join(', ')} in ${key} (nothing was removed; ctxmem memory list shows the ids)`,
      id: missing[0]!,
    });
  }
  await store.remove(options.scope, options.ids);
  context.stdout.write(
    `removed ${formatNumber(options.ids.length)} ${plural(options.ids.length, 'card')} from ${key}\n`,
  );
  return 0;
}

// ---------------------------------------------------------------------------------------------
// stats

export interface MemoryStatsOptions extends StoreArguments {
  json: boolean;
}

export function parseStatsArguments(argv: readonly string[]): MemoryStatsOptions {
  const { values, positionals } = parseArguments(argv, {
    ...STORE_OPTIONS,
    json: { type: 'boolean' },
  });
  noPositionals(positionals, 'stats');
  return { ...parseStoreArguments(values), json: values.json === true };
}

/** `memory stats --json`. */
export interface MemoryStatsJson {
  scope: Scope;
  scopeKey: string;
  /** Current cards. */
  cards: number;
  superseded: number;
  /** Current cards per type; every type is present. */
  types: Record<MemoryCardType, number>;
  /** The scope's cards file and its size in bytes (0 when the scope has no file yet). */
  file: string;
  fileBytes: number;
}

export async function runStats(options: MemoryStatsOptions, context: CliContext): Promise<number> {
  const root = await storeRoot(options, context, { mustExist: true });
  const all = await openStore(root, context).list(options.scope, { includeSuperseded: true });
  const types = Object.fromEntries(MEMORY_CARD_TYPES.map((type) => [type, 0])) as Record<
    MemoryCardType,
    number
  >;
  let superseded = 0;
  for (const card of all) {
    if (card.supersededBy !== undefined) superseded++;
    else types[card.type]++;
  }
  const file = join(scopeFolder(root, options.scope), CARDS_FILE);
  const fileBytes = (await stat(file).catch(() => undefined))?.size ?? 0;
  const stats: MemoryStatsJson = {
    scope: options.scope,
    scopeKey: scopeKey(options.scope),
    cards: all.length - superseded,
    superseded,
    types,
    file,
    fileBytes,
  };
  if (options.json) {
    context.stdout.write(`${JSON.stringify(stats)}\n`);
    return 0;
  }
  const typeRows = MEMORY_CARD_TYPES.filter((type) => types[type] > 0).map((type) => [
    type,
    formatNumber(types[type]),
  ]);
  const lines = [
    `scope       ${stats.scopeKey}`,
    `cards       ${formatNumber(stats.cards)} current, ${formatNumber(superseded)} superseded`,
    ...(typeRows.length > 0 ? ['by type', ...table(typeRows, [1]).map((line) => `  ${line}`)] : []),
    `file        ${formatBytes(fileBytes)} (${file})`,
  ];
  context.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// shared

function noPositionals(positionals: readonly string[], subcommand: string): void {
  if (positionals.length === 0) return;
  throw new InvalidArgumentError({
    message: `${subcommand} takes no arguments without a flag, got: ${positionals.join(' ')}`,
    argument: 'argv',
  });
}

/**
 * The store folder, resolved. Reading commands need it to exist: a misspelt `--store` should not
 * look like an empty memory.
 */
async function storeRoot(
  { store }: StoreArguments,
  context: CliContext,
  { mustExist }: { mustExist: boolean },
): Promise<string> {
  const root = resolve(context.cwd, store);
  const info = await stat(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new StorageError({
      message: `cannot read --store ${store}: ${describeFileError(error)}`,
      path: root,
      cause: error,
    });
  });
  if (info === undefined && mustExist) {
    throw new StorageError({
      message: `no memory store at ${store} (the folder does not exist; ctxmem memory add creates it)`,
      path: root,
    });
  }
  if (info !== undefined && !info.isDirectory()) {
    throw new StorageError({ message: `--store ${store} is not a folder`, path: root });
  }
  return root;
}

/** A file store whose recoveries from damaged files are reported on stderr, one line each. */
function openStore(root: string, context: CliContext): MemoryStore {
  return createFileMemoryStore({
    root,
    onCorruption: (event: CorruptionEvent) => {
      context.stderr.write(
        `ctxmem memory: warning: ${event.path} was damaged (${oneLine(event.reason)}); recovered ${event.recoveredRecords} cards, dropped ${event.droppedRecords}; the damaged file is kept at ${event.quarantinedPath}\n`,
      );
    },
  });
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return count === 1 ? singular : pluralForm;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
