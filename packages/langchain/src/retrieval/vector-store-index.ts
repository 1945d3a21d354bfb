import {
  InvalidArgumentError,
  type MemoryIndex,
  type MemoryIndexHit,
  type MemoryIndexItem,
} from '@ctxmem/core';
import { normalizedVector } from '@ctxmem/core/driver-kit';
import { Document } from '@langchain/core/documents';
import type { VectorStoreInterface } from '@langchain/core/vectorstores';

export interface VectorStoreIndexOptions<
  Store extends VectorStoreInterface = VectorStoreInterface,
> {
  /** Length of every vector; upserts and queries with another length are rejected. */
  dimensions: number;
  /**
   * The store's own filter that restricts a query to one scope key (metadata field `scopeKey`),
   * in its filter format: for example `(key) => ({ scopeKey: key })` for most hosted stores, or
   * `(key) => (document) => document.metadata.scopeKey === key` for `MemoryVectorStore`. Results
   * are always checked against the scope afterwards as well.
   * @default undefined (the query over-fetches and keeps the scope's results)
   */
  scopeFilter?: (scopeKey: string) => Store['FilterType'];
  /**
   * Turns the store's score into cosine similarity, for stores that return a distance.
   * @default the score as it is (stores that return cosine similarity, like `MemoryVectorStore`)
   */
  toCosine?: (score: number) => number;
  /**
   * Each query asks the store for this many times `k`, and asks again for more while results of
   * other scopes or replaced copies crowd the scope's out.
   * @default 4
   */
  overfetch?: number;
}

interface Entry {
  scopeKey: string;
  generation: number;
}

function invalid(argument: string, message: string): InvalidArgumentError {
  return new InvalidArgumentError({ message: `${argument} ${message}`, argument });
}

function checkedVector(vector: unknown, dimensions: number, argument: string): number[] {
  // Normalised, so stores that score by dot product give the cosine too.
  return Array.from(normalizedVector(vector, dimensions, argument));
}

function checkedId(id: unknown, argument: string): string {
  if (typeof id !== 'string' || id.length === 0)
    throw invalid(argument, 'must be a non-empty string');
  return id;
}

/**
 * A ctxmem `MemoryIndex` over any LangChain `VectorStore` (Chroma, Pinecone, PGVector,
 * `MemoryVectorStore`, …), for `createMemorySearch({ index })`. Each item is stored as a document
 * whose metadata holds its id and scope key; queries only ever return items of the scope key they
 * ask for. Stores that cannot delete keep replaced and removed copies, which this index skips.
 *
 * What this process upserted and removed is tracked in memory (`size()` counts it); documents
 * written by another process are still returned, since the store is the source of truth.
 */
export function vectorStoreMemoryIndex<Store extends VectorStoreInterface>(
  store: Store,
  {
    dimensions,
    scopeFilter,
    toCosine = (score) => score,
    overfetch = 4,
  }: VectorStoreIndexOptions<Store>,
): MemoryIndex {
  if (typeof store !== 'object' || store === null || typeof store.addVectors !== 'function') {
    throw invalid('store', 'must be a LangChain VectorStore (with addVectors)');
  }
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw invalid('dimensions', `must be a positive integer, got ${String(dimensions)}`);
  }
  if (!Number.isInteger(overfetch) || overfetch < 1) {
    throw invalid('overfetch', `must be an integer >= 1, got ${String(overfetch)}`);
  }
  const entries = new Map<string, Entry>();
  const removed = new Set<string>();
  let generation = 0;

  async function deleteFromStore(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await store.delete({ ids: [...ids] });
    } catch {
      // Stores without deletion keep the old copies; queries skip them by generation.
    }
  }

  return {
    dimensions,
    async upsert(items) {
      if (!Array.isArray(items)) throw invalid('items', 'must be an array');
      // Validate everything first, so a bad item leaves the index unchanged.
      const latest = new Map<string, { vector: number[]; scopeKey: string }>();
      items.forEach((item: MemoryIndexItem, position) => {
        const path = `items[${position}]`;
        if (typeof item !== 'object' || item === null) throw invalid(path, 'must be an object');
        const id = checkedId(item.id, `${path}.id`);
        if (typeof item.scopeKey !== 'string')
          throw invalid(`${path}.scopeKey`, 'must be a string');
        latest.set(id, {
          vector: checkedVector(item.vector, dimensions, `${path}.vector`),
          scopeKey: item.scopeKey,
        });
      });
      if (latest.size === 0) return;
      await deleteFromStore([...latest.keys()].filter((id) => entries.has(id)));
      const vectors: number[][] = [];
      const documents: Document[] = [];
      const next = new Map<string, Entry>();
      for (const [id, { vector, scopeKey }] of latest) {
        const entry = { scopeKey, generation: ++generation };
        next.set(id, entry);
        vectors.push(vector);
        documents.push(
          new Document({
            id,
            pageContent: id,
            metadata: { ctxmemId: id, scopeKey, generation: entry.generation },
          }),
        );
      }
      await store.addVectors(vectors, documents, { ids: [...latest.keys()] });
      for (const [id, entry] of next) {
        entries.set(id, entry);
        removed.delete(id);
      }
    },
    async remove(ids) {
      if (!Array.isArray(ids)) throw invalid('ids', 'must be an array');
      ids.forEach((id, position) => {
        checkedId(id, `ids[${position}]`);
      });
      for (const id of ids) {
        entries.delete(id);
        removed.add(id);
      }
      await deleteFromStore(ids);
    },
    async query(vector, options) {
      const query = checkedVector(vector, dimensions, 'vector');
      const { k, scopeKey } = options ?? ({} as { k: number; scopeKey: string });
      if (typeof k !== 'number' || Number.isNaN(k) || k < 0) {
        throw invalid('k', `must be a number >= 0, got ${String(k)}`);
      }
      if (typeof scopeKey !== 'string') throw invalid('scopeKey', 'must be a string');
      const wanted = Number.isFinite(k) ? Math.floor(k) : Number.MAX_SAFE_INTEGER;
      if (wanted === 0) return [];
      const filter = scopeFilter?.(scopeKey);
      // Ask for more while other scopes and stale copies crowd the scope's items out.
      let fetch = Math.min(Math.max(wanted * overfetch, wanted + 8), 10_000);
      for (;;) {
        const results = await store.similaritySearchVectorWithScore(query, fetch, filter);
        const hits = new Map<string, MemoryIndexHit>();
        for (const [document, score] of results) {
          const metadata = document.metadata as Record<string, unknown>;
          const id = metadata.ctxmemId;
          if (typeof id !== 'string' || metadata.scopeKey !== scopeKey || removed.has(id)) continue;
          const entry = entries.get(id);
          if (entry && (entry.generation !== metadata.generation || entry.scopeKey !== scopeKey)) {
            continue;
          }
          if (!hits.has(id)) hits.set(id, { id, score: toCosine(score) });
        }
        const exhausted = results.length < fetch || fetch >= 10_000 * overfetch;
        if (hits.size >= wanted || exhausted) {
          return [...hits.values()]
            .sort((left, right) =>
              left.score !== right.score
                ? right.score - left.score
                : left.id < right.id
                  ? -1
                  : left.id > right.id
                    ? 1
                    : 0,
            )
            .slice(0, wanted);
        }
        fetch *= 2;
      }
    },
    size() {
      return entries.size;
    },
  };
}
