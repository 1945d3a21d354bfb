/** `ctxmem memory stats`: how many cards a scope has, by type, and the size of its file. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryCardType, Scope } from '@ctxmem/core';
import { MEMORY_CARD_TYPES, scopeKey } from '@ctxmem/core';
import { scopeFolder } from '@ctxmem/core/driver-kit';
import { parseArguments } from '../arguments.js';
import { formatBytes, formatNumber, table } from '../format.js';
import type { CliContext } from '../run-cli.js';
import { parseStoreArguments, STORE_OPTIONS, type StoreArguments } from './memory-arguments.js';
import { CARDS_FILE, noPositionals, openStore, storeRoot } from './memory-store.js';

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
