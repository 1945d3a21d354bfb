/** `ctxmem compact`'s flags, parsed and checked against each other. */
import type { CompressionSettings, TokenEncodingName } from '@ctxmem/core';
import { InvalidArgumentError } from '@ctxmem/core';
import {
  optionalString,
  parseArguments,
  parseCount,
  parseHistoryMode,
  parseTokenCount,
  singleFile,
} from '../arguments.js';
import { parseEncoding, parseMargin } from '../body-tokenizer.js';
import type { HistoryMode } from '../dependencies.js';
import type { CliContext } from '../run-cli.js';
import { STANDARD_STREAM } from '../standard-input.js';

/** How long one summary may wait for the model endpoint before the offline summarizer takes over. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface CompactCommandOptions {
  /** A path, or `-` for stdin. */
  file: string;
  budgetTokens: number;
  targetTokens?: number;
  keepRecent?: number;
  history: HistoryMode;
  /** A path, or `-` for stdout (the default). */
  out?: string;
  /** A path, or `-` for stdout when the result goes to a file. */
  reportJson?: string;
  model?: string;
  offloadDir?: string;
  /** `--encoding`: counts with this encoding whatever the body's model. */
  encoding?: TokenEncodingName;
  /** `--margin`: factor on every count. @default by the model, see `chooseTokenizer` */
  margin?: number;
  /** `--timeout`: milliseconds one summary may wait for the model endpoint. @default 30000 */
  timeoutMs: number;
  /** `--no-tools` makes it false: memory tools the output refers to are not added to `tools`. @default true */
  tools: boolean;
  /** From `OPENAI_API_KEY`, required with `model`. */
  apiKey?: string;
  /** From `OPENAI_BASE_URL`. */
  baseUrl: string;
}

/** Parses and validates `compact`'s arguments; every problem is an `InvalidArgumentError`. */
export function parseCompactArguments(
  argv: readonly string[],
  env: CliContext['env'],
): CompactCommandOptions {
  const { values, positionals } = parseArguments(argv, {
    budget: { type: 'string' },
    target: { type: 'string' },
    'keep-recent': { type: 'string' },
    history: { type: 'string' },
    out: { type: 'string' },
    'report-json': { type: 'string' },
    model: { type: 'string' },
    'offload-dir': { type: 'string' },
    encoding: { type: 'string' },
    margin: { type: 'string' },
    timeout: { type: 'string' },
    'no-tools': { type: 'boolean' },
  });
  const file = singleFile(positionals, 'compact');
  if (values.budget === undefined) {
    throw new InvalidArgumentError({
      message: 'compact needs --budget <tokens>',
      argument: '--budget',
    });
  }
  const budgetTokens = parseTokenCount(values.budget, '--budget');
  const targetTokens =
    values.target === undefined ? undefined : parseTokenCount(values.target, '--target');
  if (targetTokens !== undefined && targetTokens > budgetTokens) {
    throw new InvalidArgumentError({
      message: `--target (${targetTokens}) must not be above --budget (${budgetTokens})`,
      argument: '--target',
    });
  }
  const history = values.history === undefined ? 'compressed' : parseHistoryMode(values.history);
  const keepRecent =
    values['keep-recent'] === undefined
      ? undefined
      : parseCount(values['keep-recent'], '--keep-recent');
  if (keepRecent !== undefined && history === 'summary-only') {
    throw new InvalidArgumentError({
      message:
        '--keep-recent does nothing with --history summary-only (it keeps only the current round); use recent-only',
      argument: '--keep-recent',
    });
  }
  const model = optionalString(values.model, '--model');
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  if (model !== undefined && apiKey === undefined) {
    throw new InvalidArgumentError({
      message: `--model ${model} summarizes through an OpenAI-compatible API and needs OPENAI_API_KEY (and OPENAI_BASE_URL for other providers); leave out --model for the offline summarizer`,
      argument: '--model',
    });
  }
  const out = optionalString(values.out, '--out');
  const reportJson = optionalString(values['report-json'], '--report-json');
  const offloadDir = optionalString(values['offload-dir'], '--offload-dir');
  if (reportJson === STANDARD_STREAM && (out ?? STANDARD_STREAM) === STANDARD_STREAM) {
    throw new InvalidArgumentError({
      message: '--report-json - needs --out <file>: the compacted body already goes to stdout',
      argument: '--report-json',
    });
  }
  const encoding = values.encoding === undefined ? undefined : parseEncoding(values.encoding);
  const margin = values.margin === undefined ? undefined : parseMargin(values.margin);
  const timeoutMs =
    values.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseMilliseconds(values.timeout);
  return {
    file,
    budgetTokens,
    history,
    timeoutMs,
    tools: values['no-tools'] !== true,
    ...(encoding !== undefined ? { encoding } : {}),
    ...(margin !== undefined ? { margin } : {}),
    baseUrl: env.OPENAI_BASE_URL?.trim() || 'https://api.openai.com/v1',
    ...(targetTokens !== undefined ? { targetTokens } : {}),
    ...(keepRecent !== undefined ? { keepRecent } : {}),
    ...(out !== undefined ? { out } : {}),
    ...(reportJson !== undefined ? { reportJson } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(offloadDir !== undefined ? { offloadDir } : {}),
  };
}

/** `--timeout`: whole milliseconds, at least 1 (`30000`, `30_000`). */
function parseMilliseconds(value: string | boolean | undefined): number {
  const text = String(value ?? '').trim();
  const digits = text.replace(/_/g, '');
  const parsed = /^\d+$/.test(digits) ? Number(digits) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1) {
    throw new InvalidArgumentError({
      message: `--timeout must be a whole number of milliseconds above 0, got "${text}"`,
      argument: '--timeout',
    });
  }
  return parsed;
}

/**
 * `--keep-recent` means "messages" for the compressed history (`minMessagesToKeep`) and "rounds"
 * for recent-only (`recentRounds`), the unit each strategy keeps.
 */
export function keepRecentSettings(
  history: HistoryMode,
  keepRecent: number | undefined,
): Partial<CompressionSettings> {
  if (keepRecent === undefined) return {};
  if (history === 'compressed') return { minMessagesToKeep: keepRecent };
  if (history === 'recent-only') return { recentRounds: keepRecent };
  return {};
}
