/** `ctxmem memory list`: the cards of a scope, as a table or JSON Lines. */
import { scopeKey } from '@ctxmem/core';
import { parseArguments } from '../arguments.js';
import { formatNumber, plural, preview, table } from '../format.js';
import type { CliContext } from '../run-cli.js';
import { parseStoreArguments, STORE_OPTIONS, type StoreArguments } from './memory-arguments.js';
import { noPositionals, openStore, storeRoot } from './memory-store.js';

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
