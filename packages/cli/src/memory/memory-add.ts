/** `ctxmem memory add`: validated cards from a JSON Lines file or one text, added in batches. */
import type { MemoryCardDraft, MemoryStore, Scope } from '@ctxmem/core';
import { CtxmemError, StorageError, scopeKey } from '@ctxmem/core';
import { optionalString, parseArguments, requireOneOf } from '../arguments.js';
import { formatNumber, plural } from '../format.js';
import { chooseProgressStyle, createProgress } from '../progress.js';
import type { CliContext } from '../run-cli.js';
import { readTextInput } from '../standard-input.js';
import {
  parseCardType,
  parseStoreArguments,
  parseTags,
  STORE_OPTIONS,
  type StoreArguments,
} from './memory-arguments.js';
import { type CardDefaults, cardFromText, parseCardRecords } from './memory-records.js';
import { noPositionals, openStore, storeRoot } from './memory-store.js';

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
  requireOneOf('add', ['--jsonl', jsonl, '<file>'], ['--text', text, '"…"'], {
    needs: 'the cards: ',
  });
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
