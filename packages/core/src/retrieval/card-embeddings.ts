/**
 * The vector side's embedder work for memory search: the background job that embeds a scope's
 * new and changed cards batch by batch into the index (through the embedding cache), the query's
 * vector, the checks of what the embedder returns, and the embedder's health across scopes (a
 * wrong dimension is permanent; another failure pauses the embedder for `embedderRetryMs`). The
 * vector of a card is computed here, from the text the sync stored in its entry.
 */
import { EmbedderDimensionError } from './embedder-dimension-error.js';
import { normalizedVector } from './normalized-vector.js';
import { raceSignal } from './race-signal.js';
import { type Entry, embeddingCacheKey, type ScopeState } from './scope-state.js';
import { SearchIndexFileError } from './search-index-error.js';
import type { SearchSettings } from './search-settings.js';

/** The vector side did not answer within `timeoutMs`: not an embedder failure. */
export class VectorTimeoutError extends Error {
  constructor(milliseconds: number) {
    super(`the vector search took longer than ${milliseconds} ms`);
  }

  static isInstance(error: unknown): error is VectorTimeoutError {
    return error instanceof VectorTimeoutError;
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface CardEmbeddings {
  /** Set once the embedder returned a vector of another length: every later use throws it. */
  readonly dimensionError: EmbedderDimensionError | undefined;
  /** The message of the embedder's last failure while it is paused (within `embedderRetryMs`). */
  pausedBy(): string | undefined;
  /** Remembers a failure of the embedder (a timeout of one search is not one). */
  recordFailure(error: unknown): void;
  /** The embedder worked: it is no longer paused. */
  recovered(): void;
  /** Whether the scope has cards to embed or vectors to remove. */
  needsEmbedding(state: ScopeState): boolean;
  /** The scope's running job, or a new one; resolves to how many cards it embedded. */
  job(state: ScopeState): Promise<number>;
  /** The query's vector, checked. */
  embedQuery(query: string, signal: AbortSignal): Promise<Float32Array>;
  /** The cached vector of a card, if any. */
  cachedVector(entry: Entry): Float32Array | undefined;
  /** Normalised vectors of `entries`, from the cache or embedded now (and cached). */
  vectorsOf(entries: readonly Entry[], signal: AbortSignal): Promise<Float32Array[]>;
}

export function createCardEmbeddings({
  embedder,
  index,
  embeddingCache,
  batchSize,
  batchTimeoutMs,
  embedderRetryMs,
  now,
}: SearchSettings): CardEmbeddings {
  let dimensionError: EmbedderDimensionError | undefined;
  let failure: { at: number; message: string } | undefined;
  const cacheKey = (entry: Entry) => embeddingCacheKey(embedder.id, entry);

  function recordFailure(error: unknown): void {
    // A damaged saved card is not the embedder's fault (the search rebuilds the scope).
    if (SearchIndexFileError.isInstance(error)) return;
    if (EmbedderDimensionError.isInstance(error)) dimensionError = error;
    else if (!VectorTimeoutError.isInstance(error))
      failure = { at: now(), message: errorMessage(error) };
  }

  function checkDimensions(vector: unknown): void {
    const length = (vector as { length?: unknown } | undefined)?.length;
    if (typeof length === 'number' && length !== embedder.dimensions) {
      throw new EmbedderDimensionError({
        embedderId: embedder.id,
        expected: embedder.dimensions,
        actual: length,
      });
    }
  }

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    const vectors = await embedder.embed(texts, {
      abortSignal: AbortSignal.timeout(batchTimeoutMs),
    });
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new Error(
        `the embedder returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${texts.length} texts`,
      );
    }
    for (const vector of vectors) {
      checkDimensions(vector);
      if (!(vector instanceof Float32Array) || vector.length !== embedder.dimensions) {
        throw new Error(`the embedder returned a vector that is not ${embedder.dimensions} floats`);
      }
      // Checked before caching: a garbage vector that got cached would keep the scope on the
      // BM25 fallback even after the embedder recovers.
      if (!vector.every(Number.isFinite)) {
        throw new Error('the embedder returned a vector with non-finite values');
      }
    }
    return vectors;
  }

  /**
   * Embeds every card of the scope that has no cached vector, puts the vectors in the index and
   * removes ids that left the scope. Runs in the background, batch by batch, so a search that
   * times out does not lose the work; returns how many cards it embedded.
   */
  async function runEmbeddingJob(state: ScopeState): Promise<number> {
    let embedded = 0;
    for (;;) {
      if (state.stale.size > 0) {
        const stale = [...state.stale];
        state.stale.clear();
        await index.remove(stale);
        for (const id of stale) state.indexed.delete(id);
      }
      // The work list is a set kept up to date by the sync: a batch never rescans every card.
      const batch: Entry[] = [];
      for (const id of state.pending) {
        const entry = state.entries.get(id);
        if (!entry || state.indexed.get(id) === entry.hash) {
          state.pending.delete(id);
          continue;
        }
        batch.push(entry);
        if (batch.length === batchSize) break;
      }
      if (batch.length === 0) return embedded;
      const missing = batch.filter((entry) => !embeddingCache.get(cacheKey(entry)));
      if (missing.length > 0) {
        const vectors = await embedBatch(missing.map((entry) => entry.text));
        missing.forEach((entry, position) => {
          embeddingCache.set(cacheKey(entry), vectors[position]!);
        });
        embedded += missing.length;
      }
      const items = batch.flatMap((entry) => {
        const vector = embeddingCache.get(cacheKey(entry));
        return vector ? [{ id: entry.card.id, vector, scopeKey: state.key }] : [];
      });
      await index.upsert(items);
      state.unsaved = true;
      for (const entry of batch) {
        state.indexed.set(entry.card.id, entry.hash);
        // A card changed again while its batch was embedded stays pending.
        if (state.entries.get(entry.card.id)?.hash === entry.hash)
          state.pending.delete(entry.card.id);
      }
    }
  }

  return {
    get dimensionError() {
      return dimensionError;
    },
    pausedBy() {
      return failure && now() - failure.at < embedderRetryMs ? failure.message : undefined;
    },
    recordFailure,
    recovered() {
      failure = undefined;
    },
    needsEmbedding(state) {
      return state.pending.size > 0 || state.stale.size > 0;
    },
    job(state) {
      if (!state.job) {
        const job = runEmbeddingJob(state).finally(() => {
          if (state.job === job) state.job = undefined;
        });
        // A failed job is reported to the search that awaits it (and remembered, so the next
        // searches do not call a failing embedder again); nobody else must see a rejection.
        job.catch(recordFailure);
        state.job = job;
      }
      return state.job;
    },
    async embedQuery(query, signal) {
      const [queryVector] = await raceSignal(
        embedder.embed([query], { abortSignal: signal }),
        signal,
      );
      checkDimensions(queryVector);
      if (
        !(queryVector instanceof Float32Array) ||
        queryVector.length !== embedder.dimensions ||
        !queryVector.every(Number.isFinite)
      ) {
        throw new Error(
          `the embedder returned a query vector that is not ${embedder.dimensions} finite floats`,
        );
      }
      return queryVector;
    },
    cachedVector(entry) {
      return embeddingCache.get(cacheKey(entry));
    },
    async vectorsOf(entries, signal) {
      const vectors = entries.map((entry) => embeddingCache.get(cacheKey(entry)));
      const missing = entries.flatMap((entry, position) =>
        vectors[position] ? [] : [{ entry, position }],
      );
      for (let start = 0; start < missing.length; start += batchSize) {
        const batch = missing.slice(start, start + batchSize);
        const embedded = await raceSignal(embedBatch(batch.map(({ entry }) => entry.text)), signal);
        batch.forEach(({ entry, position }, at) => {
          const vector = normalizedVector(embedded[at]!, embedder.dimensions, 'vector');
          embeddingCache.set(cacheKey(entry), vector);
          vectors[position] = vector;
        });
      }
      return vectors as Float32Array[];
    },
  };
}
