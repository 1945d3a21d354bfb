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
  // Bytes are decoded once at the end: a string grown chunk by chunk is a rope of thousands of
  // pieces, which JSON.parse would first copy flat (a second copy of a 50 MB body).
  const pieces: string[] = [];
  let bytes: Uint8Array[] = [];
  const decodeBytes = () => {
    if (bytes.length === 0) return;
    pieces.push(Buffer.concat(bytes).toString('utf8'));
    bytes = [];
  };
  for await (const chunk of stdin) {
    if (typeof chunk === 'string') {
      decodeBytes();
      pieces.push(chunk);
    } else {
      bytes.push(chunk);
    }
  }
  decodeBytes();
  return pieces.length === 1 ? pieces[0]! : pieces.join('');
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
