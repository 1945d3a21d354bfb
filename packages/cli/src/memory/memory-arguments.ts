import type { ParseArgsOptionsConfig } from 'node:util';
import type { MemoryCardType, RetrievalMode, Scope } from '@ctxmem/core';
import {
  InvalidArgumentError,
  InvalidIdError,
  MEMORY_CARD_TYPES,
  normalizeScope,
} from '@ctxmem/core';
import { optionalString, type ParsedArguments, parseChoice } from '../arguments.js';

/** The flags every `ctxmem memory` subcommand takes: where the store is, and whose cards. */
export const STORE_OPTIONS = {
  store: { type: 'string' },
  user: { type: 'string' },
  agent: { type: 'string' },
  session: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

export const RETRIEVAL_MODES: readonly RetrievalMode[] = ['hybrid', 'bm25', 'vector'];

export interface StoreArguments {
  /** As given on the command line (for messages); resolve it against the context's `cwd`. */
  store: string;
  scope: Scope;
}

/** `--store` (required) and the scope flags, validated the way the store validates ids. */
export function parseStoreArguments(values: ParsedArguments['values']): StoreArguments {
  if (values.store === undefined) {
    throw new InvalidArgumentError({
      message: 'memory commands need --store <dir> (the folder that holds the cards)',
      argument: '--store',
    });
  }
  const store = optionalString(values.store, '--store')!;
  return { store, scope: validateScope(parseScopeFlags(values), 'scope flags') };
}

/** The scope flags and the scope field each one sets. */
export const SCOPE_FLAGS = [
  ['user', 'userId'],
  ['agent', 'agentId'],
  ['session', 'sessionId'],
] as const;

/** The scope `--user`, `--agent` and `--session` give, not validated yet (see `validateScope`). */
export function parseScopeFlags(values: ParsedArguments['values']): Scope {
  const scope: Scope = {};
  for (const [flag, field] of SCOPE_FLAGS) {
    const value = optionalString(values[flag], `--${flag}`);
    if (value !== undefined) scope[field] = value;
  }
  return scope;
}

/**
 * The scope as the store will see it. An unsafe id (`../alice`, a path separator, a control
 * character) is the caller's mistake, so it becomes a usage error rather than a failure.
 */
export function validateScope(scope: Scope, where: string): Scope {
  try {
    return normalizeScope(scope);
  } catch (error) {
    if (!InvalidIdError.isInstance(error)) throw error;
    throw new InvalidArgumentError({
      message: `${where}: ${error.message}`,
      argument: 'scope',
      cause: error,
    });
  }
}

export function parseCardType(value: string | boolean | undefined, flag: string): MemoryCardType {
  return parseChoice(value, flag, MEMORY_CARD_TYPES);
}

/** `a,b , c` → `['a', 'b', 'c']`; empty items are dropped. */
export function parseTags(value: string | boolean | undefined): string[] {
  return String(value ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/** A whole number of 1 or more (`--top-k 0` would ask for nothing). */
export function parsePositiveCount(value: string | boolean | undefined, flag: string): number {
  const text = String(value ?? '').trim();
  const parsed = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1) {
    throw new InvalidArgumentError({
      message: `${flag} must be a whole number of 1 or more, got "${text}"`,
      argument: flag,
    });
  }
  return parsed;
}

/** A finite number of 0 or more, such as `0.25`. */
export function parseMinScore(value: string | boolean | undefined, flag: string): number {
  const text = String(value ?? '').trim();
  const parsed = /^(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(parsed)) {
    throw new InvalidArgumentError({
      message: `${flag} must be a number of 0 or more, got "${text}"`,
      argument: flag,
    });
  }
  return parsed;
}

export function parseRetrievalMode(value: string | boolean | undefined): RetrievalMode {
  return parseChoice(value, '--mode', RETRIEVAL_MODES);
}

/** The flags that choose how `memory search` embeds and ranks. */
export const RETRIEVAL_OPTIONS = {
  embedder: { type: 'string' },
  'embedding-model': { type: 'string' },
  fusion: { type: 'string' },
  'sequence-context': { type: 'boolean' },
} as const satisfies ParseArgsOptionsConfig;

export const EMBEDDER_CHOICES = ['hashing', 'local', 'openai'] as const;
/** `hashing`: built in, offline; `local`: `@ctxmem/local-embedder`; `openai`: an OpenAI-compatible endpoint. */
export type EmbedderChoice = (typeof EMBEDDER_CHOICES)[number];

export interface RetrievalArguments {
  embedder: EmbedderChoice;
  /** The endpoint's model id (only with `openai`). */
  embeddingModel?: string;
  /** Absent: the search picks the fusion from the embedder's kind. */
  fusion?: { method: 'rrf' } | { method: 'weighted'; vectorWeight?: number };
  /** Let each card score through the cards before it (for transcripts: one card per turn). */
  sequenceContext: boolean;
}

/** `--embedder`, `--embedding-model`, `--fusion rrf|weighted[:vectorWeight]`, `--sequence-context`. */
export function parseRetrievalArguments(values: ParsedArguments['values']): RetrievalArguments {
  const embedder = parseChoice(
    optionalString(values.embedder, '--embedder') ?? 'hashing',
    '--embedder',
    EMBEDDER_CHOICES,
  );
  const embeddingModel = optionalString(values['embedding-model'], '--embedding-model');
  if (embeddingModel !== undefined && embedder !== 'openai') {
    throw new InvalidArgumentError({
      message: '--embedding-model names the model of --embedder openai; add --embedder openai',
      argument: '--embedding-model',
    });
  }
  const fusionText = optionalString(values.fusion, '--fusion');
  return {
    embedder,
    ...(embeddingModel !== undefined ? { embeddingModel } : {}),
    ...(fusionText !== undefined ? { fusion: parseFusion(fusionText) } : {}),
    sequenceContext: values['sequence-context'] === true,
  };
}

function parseFusion(text: string): NonNullable<RetrievalArguments['fusion']> {
  const match = /^(rrf|weighted)(?::(\d*\.?\d+))?$/.exec(text.trim());
  const vectorWeight = match?.[2] === undefined ? undefined : Number(match[2]);
  if (
    !match ||
    (match[1] === 'rrf' && vectorWeight !== undefined) ||
    (vectorWeight !== undefined && !(vectorWeight >= 0 && vectorWeight <= 1))
  ) {
    throw new InvalidArgumentError({
      message: `--fusion must be rrf, weighted or weighted:<vector weight from 0 to 1> (such as weighted:0.35), got "${text}"`,
      argument: '--fusion',
    });
  }
  return match[1] === 'rrf'
    ? { method: 'rrf' }
    : { method: 'weighted', ...(vectorWeight !== undefined ? { vectorWeight } : {}) };
}
