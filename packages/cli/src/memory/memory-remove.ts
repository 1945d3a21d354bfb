/** `ctxmem memory remove`: cards by id, all or none. */
import { InvalidArgumentError, NotFoundError, scopeKey } from '@ctxmem/core';
import { parseArguments } from '../arguments.js';
import { formatNumber, plural } from '../format.js';
import type { CliContext } from '../run-cli.js';
import { parseStoreArguments, STORE_OPTIONS, type StoreArguments } from './memory-arguments.js';
import { openStore, storeRoot } from './memory-store.js';

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
