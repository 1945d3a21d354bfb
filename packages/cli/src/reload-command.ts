import { resolve } from 'node:path';
import { messageText, NotFoundError } from '@ctxmem/core';
import { optionalString, parseArguments, singleFile } from './arguments.js';
import { CLI_SCOPE } from './compact-command.js';
import type { CliDependencies } from './dependencies.js';
import type { CliContext } from './run-cli.js';

export interface ReloadCommandOptions {
  id: string;
  offloadDir: string;
  json: boolean;
}

export function parseReloadArguments(argv: readonly string[]): ReloadCommandOptions {
  const { values, positionals } = parseArguments(argv, {
    'offload-dir': { type: 'string' },
    json: { type: 'boolean' },
  });
  return {
    id: singleFile(positionals, 'reload', { noun: 'an offload id', placeholder: '<id>' }),
    offloadDir: optionalString(values['offload-dir'], '--offload-dir') ?? '.ctxmem/offload',
    json: values.json === true,
  };
}

/** Prints an offloaded payload: its text, or the whole stored record with `--json`. */
export async function runReload(
  options: ReloadCommandOptions,
  context: CliContext,
  dependencies: CliDependencies,
): Promise<number> {
  const store = dependencies.createFileOffloadStore({
    root: resolve(context.cwd, options.offloadDir),
  });
  try {
    const record = await store.get(CLI_SCOPE, options.id);
    context.stdout.write(
      options.json ? `${JSON.stringify(record, null, 2)}\n` : `${messageText(record.message)}\n`,
    );
    return 0;
  } catch (error) {
    if (NotFoundError.isInstance(error)) {
      throw new NotFoundError({
        message: `no offloaded payload "${options.id}" in ${options.offloadDir}`,
        id: options.id,
        cause: error,
      });
    }
    throw error;
  }
}
