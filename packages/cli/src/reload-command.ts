import { resolve } from 'node:path';
import { InvalidArgumentError, messageText, NotFoundError } from '@ctxmem/core';
import { optionalString, parseArguments, parseChoice, singleFile } from './arguments.js';
import { CLI_SCOPE } from './compact/index.js';
import type { CliDependencies, ConversationFormat } from './dependencies.js';
import type { CliContext } from './run-cli.js';

export interface ReloadCommandOptions {
  id: string;
  offloadDir: string;
  json: boolean;
  /** `--format`: print the original message in this format, ready to put back into a body. */
  format?: ConversationFormat;
}

/** The formats `--format` takes: those `compact` reads and writes. */
export const RELOAD_FORMATS: readonly ConversationFormat[] = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'ai-sdk',
];

export function parseReloadArguments(argv: readonly string[]): ReloadCommandOptions {
  const { values, positionals } = parseArguments(argv, {
    'offload-dir': { type: 'string' },
    json: { type: 'boolean' },
    format: { type: 'string' },
  });
  const formatText = optionalString(values.format, '--format');
  const format =
    formatText === undefined ? undefined : parseChoice(formatText, '--format', RELOAD_FORMATS);
  if (format !== undefined && values.json === true) {
    throw new InvalidArgumentError({
      message: '--format and --json both say how to print the payload; give one',
      argument: '--format',
    });
  }
  return {
    ...(format !== undefined ? { format: format as ConversationFormat } : {}),
    id: singleFile(positionals, 'reload', { noun: 'an offload id', placeholder: '<id>' }),
    offloadDir: optionalString(values['offload-dir'], '--offload-dir') ?? '.ctxmem/offload',
    json: values.json === true,
  };
}

/**
 * Prints an offloaded payload: its text, the whole stored record with `--json`, or the original
 * message in a body's format with `--format` (for example the `function_call_output` item of a
 * Responses body).
 */
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
    const text = options.format
      ? JSON.stringify(
          dependencies.serializeConversation([record.message], options.format),
          null,
          2,
        )
      : options.json
        ? JSON.stringify(record, null, 2)
        : messageText(record.message);
    context.stdout.write(`${text}\n`);
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
