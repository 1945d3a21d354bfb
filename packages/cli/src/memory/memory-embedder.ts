/**
 * The embedder and fusion options of `ctxmem memory search`. The model embedders live in optional
 * packages, imported only when asked for, so the CLI installs and starts without them.
 */
import {
  CtxmemError,
  type Embedder,
  InvalidArgumentError,
  MEMORY_CARD_TYPES,
  type MemorySearchOptions,
} from '@ctxmem/core';
import { OptionalPackageMissingError } from '../optional-package-missing-error.js';
import type { RetrievalArguments } from './memory-arguments.js';

/** The OpenAI embedding model used when `--embedding-model` is not given. */
export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

/** The chosen embedder is installed but does not work (the endpoint refused the first request). */
export class EmbedderSetupError extends CtxmemError {
  static override readonly errorName = 'CtxmemEmbedderSetupError';

  static override readonly isInstance = CtxmemError.markerGuard<EmbedderSetupError>(this);
}

export interface CliEmbedderOptions {
  /** Read for `OPENAI_API_KEY` and `OPENAI_BASE_URL`. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Imports a package by name. Tests pass stand-ins.
   * @default (name) => import(name)
   */
  importModule?: (name: string) => Promise<unknown>;
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    (error instanceof Error && /Cannot find (package|module)/.test(error.message))
  );
}

/** Imports every package of an option, or throws one error naming all those that are missing. */
async function importAll(
  names: readonly string[],
  option: string,
  importModule: (name: string) => Promise<unknown>,
): Promise<unknown[]> {
  const results = await Promise.allSettled(names.map((name) => importModule(name)));
  const missing = names.filter((_, position) => {
    const result = results[position]!;
    return result.status === 'rejected' && isModuleNotFound(result.reason);
  });
  if (missing.length > 0) {
    const first = results.find((result) => result.status === 'rejected');
    throw new OptionalPackageMissingError({
      packages: missing,
      option,
      cause: (first as PromiseRejectedResult).reason,
    });
  }
  return results.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}

interface LocalEmbedderModule {
  createLocalEmbedder(): Embedder;
}

interface AiSdkModules {
  aiSdkEmbedder(model: unknown, options: { dimensions: number; id?: string }): Embedder;
  createOpenAI(settings: { apiKey: string; baseURL?: string }): {
    embedding(modelId: string): unknown;
  };
  embed(options: {
    model: unknown;
    value: string;
    maxRetries?: number;
  }): Promise<{ embedding: number[] }>;
}

/**
 * The embedder `--embedder` asks for, or `undefined` for the built-in hashing embedder (the
 * search's default). `local` imports `@ctxmem/local-embedder`; `openai` imports `@ctxmem/ai-sdk`,
 * `ai` and `@ai-sdk/openai`, reads `OPENAI_API_KEY` (required) and `OPENAI_BASE_URL`, and asks
 * the endpoint once for the length of its vectors.
 */
export async function createCliEmbedder(
  { embedder, embeddingModel = DEFAULT_OPENAI_EMBEDDING_MODEL }: RetrievalArguments,
  { env, importModule = (name) => import(name) }: CliEmbedderOptions,
): Promise<Embedder | undefined> {
  if (embedder === 'hashing') return undefined;
  if (embedder === 'local') {
    const [module] = (await importAll(
      ['@ctxmem/local-embedder'],
      '--embedder local',
      importModule,
    )) as [LocalEmbedderModule];
    return module.createLocalEmbedder();
  }
  const apiKey = env.OPENAI_API_KEY?.trim();
  if (!apiKey) {
    throw new InvalidArgumentError({
      message:
        '--embedder openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible server other than OpenAI); leave out --embedder for the offline embedder',
      argument: '--embedder',
    });
  }
  const [adapter, ai, provider] = (await importAll(
    ['@ctxmem/ai-sdk', 'ai', '@ai-sdk/openai'],
    '--embedder openai',
    importModule,
  )) as [
    Pick<AiSdkModules, 'aiSdkEmbedder'>,
    Pick<AiSdkModules, 'embed'>,
    Pick<AiSdkModules, 'createOpenAI'>,
  ];
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  const model = provider
    .createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}) })
    .embedding(embeddingModel);
  // The vector length differs by model and server; one short request tells it, so the index is
  // made for the right length instead of failing at the first card.
  let embedding: number[];
  try {
    ({ embedding } = await ai.embed({ model, value: 'dimensions', maxRetries: 2 }));
  } catch (cause) {
    throw new EmbedderSetupError({
      message: `--embedder openai: the embedding endpoint ${baseURL ?? 'https://api.openai.com/v1'} did not answer for model ${embeddingModel}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    });
  }
  return adapter.aiSdkEmbedder(model, {
    dimensions: embedding.length,
    id: `openai-compatible:${baseURL ?? 'api.openai.com'}:${embeddingModel}:${embedding.length}`,
  });
}

/** The `createMemorySearch` options of the retrieval flags, given the chosen embedder. */
export function retrievalSearchOptions(
  { fusion, sequenceContext }: RetrievalArguments,
  embedder: Embedder | undefined,
): Omit<MemorySearchOptions, 'store'> {
  return {
    ...(embedder ? { embedder, timeoutMs: 30_000 } : {}),
    ...(fusion?.method === 'rrf' ? { fusion: 'rrf', weights: { bm25: 1, vector: 1 } } : {}),
    ...(fusion?.method === 'weighted'
      ? {
          fusion: 'weighted',
          ...(fusion.vectorWeight !== undefined
            ? { weights: { bm25: 1 - fusion.vectorWeight, vector: fusion.vectorWeight } }
            : {}),
        }
      : {}),
    // Episodes are read as a transcript anyway; the flag reads every card so.
    ...(sequenceContext ? { sequenceContext: { types: MEMORY_CARD_TYPES } } : {}),
  };
}
