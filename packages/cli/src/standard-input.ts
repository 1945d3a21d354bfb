import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError, StorageError } from '@ctxmem/core';
import { describeFileError } from './read-conversation.js';
import type { CliContext } from './run-cli.js';

/** The file argument that means stdin (for an input) or stdout (for an output). */
export const STANDARD_STREAM = '-';

/**
 * All of stdin as text, for a `-` argument. Refuses a terminal, where it would wait for typing:
 * `example` shows how to pipe a file in (`ctxmem compact - < body.json`).
 */
export async function readStandardInput(
  context: Pick<CliContext, 'stdin'>,
  { argument = 'file', example }: { argument?: string; example: string },
): Promise<string> {
  const { stdin } = context;
  if (stdin === undefined) {
    throw new InvalidArgumentError({ message: 'no stdin to read "-" from', argument });
  }
  if ((stdin as { isTTY?: boolean }).isTTY === true) {
    throw new InvalidArgumentError({
      message: `"-" reads from stdin, but stdin is a terminal: pipe a file in (${example})`,
      argument,
    });
  }
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * The text of an input argument: stdin for `-`, else the file at `argument` (relative to the
 * caller's folder). `name` is how errors refer to it: `stdin` or the path as given.
 */
export async function readTextInput(
  argument: string,
  context: Pick<CliContext, 'stdin' | 'cwd'>,
  { flag, example }: { flag: string; example: string },
): Promise<{ text: string; name: string }> {
  if (argument === STANDARD_STREAM) {
    return { text: await readStandardInput(context, { argument: flag, example }), name: 'stdin' };
  }
  const path = resolve(context.cwd, argument);
  try {
    return { text: await readFile(path, 'utf8'), name: argument };
  } catch (cause) {
    throw new StorageError({
      message: `cannot read ${argument}: ${describeFileError(cause)}`,
      path,
      cause,
    });
  }
}
