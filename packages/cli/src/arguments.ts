import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { InvalidArgumentError } from '@ctxmem/core';
import type { HistoryMode } from './dependencies.js';

export const HISTORY_MODES: readonly HistoryMode[] = ['compressed', 'recent-only', 'summary-only'];

export interface ParsedArguments {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * `parseArgs` in strict mode, with its errors turned into `InvalidArgumentError`s that read well
 * on one line (`unknown option '--bugdet'`), so the CLI can report them as usage errors.
 */
export function parseArguments(
  argv: readonly string[],
  options: ParseArgsOptionsConfig,
): ParsedArguments {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedArguments['values'], positionals };
  } catch (error) {
    throw asUsageError(error);
  }
}

/** A `parseArgs` error as an `InvalidArgumentError` that reads well on one line; others as they are. */
export function asUsageError(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    const message = firstSentence((error as Error).message);
    return new InvalidArgumentError({ message, argument: 'argv', cause: error });
  }
  return error;
}

function firstSentence(message: string): string {
  const end = message.search(/\.\s/);
  const sentence = end === -1 ? message.replace(/\.$/, '') : message.slice(0, end);
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/**
 * A positive whole number of tokens: digits, optionally grouped with `_` or `,`, optionally with a
 * `k` suffix (`8k` = 8000). Rejects NaN, zero, negatives, fractions and trailing junk.
 */
export function parseTokenCount(value: string | boolean | undefined, flag: string): number {
  const text = String(value ?? '').trim();
  const match = /^(\d[\d_,]*)(k?)$/i.exec(text);
  const digits = match?.[1]?.replace(/[_,]/g, '');
  const parsed = digits === undefined ? Number.NaN : Number(digits) * (match?.[2] ? 1000 : 1);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) {
    throw new InvalidArgumentError({
      message: `${flag} must be a positive whole number of tokens, got "${text}"`,
      argument: flag,
    });
  }
  return parsed;
}

/** A whole number ≥ 0 (`--keep-recent 0` is meaningful: keep nothing extra). */
export function parseCount(value: string | boolean | undefined, flag: string): number {
  const text = String(value ?? '').trim();
  const parsed = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(parsed)) {
    throw new InvalidArgumentError({
      message: `${flag} must be a whole number of 0 or more, got "${text}"`,
      argument: flag,
    });
  }
  return parsed;
}

export function parseHistoryMode(value: string | boolean | undefined): HistoryMode {
  return parseChoice(value, '--history', HISTORY_MODES);
}

/** One of `choices`, as given after `flag` (leading and trailing spaces ignored). */
export function parseChoice<Choice extends string>(
  value: string | boolean | undefined,
  flag: string,
  choices: readonly Choice[],
): Choice {
  const text = String(value ?? '').trim();
  if (!(choices as readonly string[]).includes(text)) {
    throw new InvalidArgumentError({
      message: `${flag} must be one of ${choices.join(', ')}, got "${text}"`,
      argument: flag,
    });
  }
  return text as Choice;
}

/**
 * Checks that exactly one of two alternative flags was given (`--jsonl <file>` or `--text "…"`);
 * the usage error names both when neither or both were.
 */
export function requireOneOf(
  command: string,
  [firstFlag, firstValue, firstUsage]: readonly [string, string | undefined, string],
  [secondFlag, secondValue, secondUsage]: readonly [string, string | undefined, string],
  { needs = '' }: { needs?: string } = {},
): void {
  if ((firstValue === undefined) === (secondValue === undefined)) {
    const usage = `${firstFlag} ${firstUsage} or ${secondFlag} ${secondUsage}`;
    throw new InvalidArgumentError({
      message:
        firstValue === undefined
          ? `${command} needs ${needs}${usage}`
          : `${command} takes ${usage}, not both`,
      argument: firstFlag,
    });
  }
}

/** Exactly one positional argument (the input file, or the id for `reload`). */
export function singleFile(
  positionals: readonly string[],
  command: string,
  { noun = 'a conversation file', placeholder = '<file.json>' } = {},
): string {
  if (positionals.length === 0) {
    throw new InvalidArgumentError({
      message: `missing ${noun}: ctxmem ${command} ${placeholder}`,
      argument: 'file',
    });
  }
  if (positionals.length > 1) {
    throw new InvalidArgumentError({
      message: `${command} takes one ${placeholder}, got ${positionals.length}: ${positionals.join(' ')}`,
      argument: 'file',
    });
  }
  return positionals[0]!;
}

export function optionalString(
  value: string | boolean | undefined,
  flag: string,
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidArgumentError({ message: `${flag} needs a value`, argument: flag });
  }
  return value;
}
