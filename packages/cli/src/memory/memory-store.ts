/** The file memory store every `ctxmem memory` subcommand opens, and the checks they share. */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { MemoryStore } from '@ctxmem/core';
import {
  type CorruptionEvent,
  createFileMemoryStore,
  InvalidArgumentError,
  StorageError,
} from '@ctxmem/core';
import { oneLine } from '../format.js';
import { describeFileError } from '../read-conversation.js';
import type { CliContext } from '../run-cli.js';
import type { StoreArguments } from './memory-arguments.js';

/** The file each scope's cards live in, inside the scope folder (see `createFileMemoryStore`). */
export const CARDS_FILE = 'cards.jsonl';

export function noPositionals(positionals: readonly string[], subcommand: string): void {
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
export async function storeRoot(
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
export function openStore(root: string, context: CliContext): MemoryStore {
  return createFileMemoryStore({
    root,
    onCorruption: reportCorruption(context, { command: 'memory', records: 'cards' }),
  });
}

/**
 * Reports a damaged file that a file store recovered from, one line on stderr: `command` is the
 * command that read it, `records` what the file holds (`cards`).
 */
export function reportCorruption(
  context: CliContext,
  { command, records }: { command: string; records: string },
): (event: CorruptionEvent) => void {
  return (event) => {
    context.stderr.write(
      `ctxmem ${command}: warning: ${event.path} was damaged (${oneLine(event.reason)}); recovered ${event.recoveredRecords} ${records}, dropped ${event.droppedRecords}; the damaged file is kept at ${event.quarantinedPath}\n`,
    );
  };
}
