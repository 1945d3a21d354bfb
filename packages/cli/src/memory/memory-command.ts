/**
 * `ctxmem memory add | search | list | remove | stats`: long-term memory cards in a file store,
 * from the command line. Loaded only when `ctxmem memory` runs (it pulls in the stores and the
 * retrieval code).
 */
import { InvalidArgumentError, InvalidIdError } from '@ctxmem/core';
import type { CliContext } from '../run-cli.js';
import { parseAddArguments, runAdd } from './memory-add.js';
import { parseListArguments, runList } from './memory-list.js';
import { parseRemoveArguments, runRemove } from './memory-remove.js';
import { parseSearchArguments, runSearch } from './memory-search.js';
import { parseStatsArguments, runStats } from './memory-stats.js';

export const MEMORY_SUBCOMMANDS = ['add', 'search', 'list', 'remove', 'stats'] as const;
export type MemorySubcommand = (typeof MEMORY_SUBCOMMANDS)[number];

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
