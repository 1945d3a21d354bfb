import {
  createMemorySearch,
  type Embedder,
  InvalidArgumentError,
  type MemoryCard,
  type MemoryCardType,
  type MemoryIndex,
  type MemorySearch,
  type MemorySearchQueryOptions,
  type MemoryStore,
  type Scope,
} from '@ctxmem/core';
import { requireOptions } from '@ctxmem/core/adapter-kit';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';

/**
 * What a document of `MemoryRetriever` carries as metadata: the card's fields (its content is the
 * page content) and the score.
 */
export interface MemoryDocumentMetadata extends Omit<MemoryCard, 'content'> {
  /** The search's score (see `MemorySearchQueryOptions.minScore` for its scale). */
  score: number;
}

/** Which memories a `MemoryRetriever` may return. */
export interface MemoryFilter {
  /** @default all types */
  types?: readonly MemoryCardType[];
  /** @default no tag filter */
  tags?: readonly string[];
}

export interface MemoryRetrieverInput extends BaseRetrieverInput {
  /** The memory cards to search (any core `MemoryStore`). */
  store: MemoryStore;
  /**
   * The search over `store`; pass one to share its caches with a context manager.
   * @default createMemorySearch({ store, index, embedder })
   */
  search?: MemorySearch;
  /**
   * The vector index of the default search (for example `@ctxmem/hnswlib`'s, or a LangChain
   * vector store through `vectorStoreMemoryIndex`).
   * @default the search's brute-force index
   */
  index?: MemoryIndex;
  /**
   * The embedder of the default search (a LangChain `Embeddings` through `langChainEmbedder`).
   * @default the search's lexical hashing embedder
   */
  embedder?: Embedder;
  /** Whose memories are searched. @default {} */
  scope?: Scope;
  /** Documents returned at most. @default 4 */
  k?: number;
  /** Memories scoring below this are left out. @default 0 */
  minScore?: number;
  /**
   * Only memories of these `types`, and only memories with at least one of these `tags`.
   * @default {} (no filter)
   */
  filter?: MemoryFilter;
  /** Further query options: `mode`, `mmr`, `recencyHalfLifeDays`, `typeBoosts`. @default {} */
  searchOptions?: Omit<
    MemorySearchQueryOptions,
    'topK' | 'minScore' | 'types' | 'tags' | 'abortSignal'
  >;
}

function documentOf(card: MemoryCard, score: number): Document<MemoryDocumentMetadata> {
  return new Document<MemoryDocumentMetadata>({
    id: card.id,
    pageContent: card.content,
    metadata: {
      id: card.id,
      type: card.type,
      tags: [...card.tags],
      createdAt: card.createdAt,
      updatedAt: card.updatedAt,
      ...(card.source === undefined ? {} : { source: card.source }),
      scope: { ...card.scope },
      ...(card.supersededBy === undefined ? {} : { supersededBy: card.supersededBy }),
      score,
    },
  });
}

/**
 * A LangChain retriever over ctxmem's long-term memory: hybrid (BM25 + vector) search over a core
 * memory store, in one scope, returning `Document`s whose `pageContent` is the memory and whose
 * metadata holds the card's fields and score. Use it in RAG chains, or give an agent a retriever
 * tool over it.
 *
 * @example
 * const retriever = new MemoryRetriever({ store, scope: { userId }, k: 5, filter: { types: ['preference'] } });
 * const documents = await retriever.invoke('What does the user like to eat?');
 */
export class MemoryRetriever extends BaseRetriever {
  lc_namespace = ['ctxmem', 'langchain', 'retrievers'];

  static override lc_name(): string {
    return 'MemoryRetriever';
  }

  readonly store: MemoryStore;
  readonly search: MemorySearch;
  readonly scope: Scope;
  readonly k: number;
  readonly minScore: number;
  readonly filter: MemoryFilter;
  readonly searchOptions: MemoryRetrieverInput['searchOptions'];

  constructor(fields: MemoryRetrieverInput) {
    super(requireOptions(fields, 'MemoryRetriever'));
    const {
      store,
      search,
      index,
      embedder,
      scope = {},
      k = 4,
      minScore = 0,
      filter = {},
      searchOptions = {},
    } = fields;
    if (!store || typeof store.list !== 'function') {
      throw new InvalidArgumentError({
        message: 'store must be a ctxmem MemoryStore',
        argument: 'store',
      });
    }
    if (!Number.isInteger(k) || k < 1) {
      throw new InvalidArgumentError({
        message: `k must be a positive integer, got ${String(k)}`,
        argument: 'k',
      });
    }
    if (typeof minScore !== 'number' || Number.isNaN(minScore)) {
      throw new InvalidArgumentError({
        message: 'minScore must be a number',
        argument: 'minScore',
      });
    }
    this.store = store;
    this.search =
      search ??
      createMemorySearch({
        store,
        ...(index ? { index } : {}),
        ...(embedder ? { embedder } : {}),
      });
    this.scope = scope;
    this.k = k;
    this.minScore = minScore;
    this.filter = filter;
    this.searchOptions = searchOptions;
  }

  /** The same retriever over another scope, sharing the search and its caches. */
  withScope(scope: Scope): MemoryRetriever {
    return new MemoryRetriever({
      store: this.store,
      search: this.search,
      scope,
      k: this.k,
      minScore: this.minScore,
      filter: this.filter,
      ...(this.searchOptions ? { searchOptions: this.searchOptions } : {}),
      ...(this.callbacks ? { callbacks: this.callbacks } : {}),
      ...(this.tags ? { tags: this.tags } : {}),
      ...(this.metadata ? { metadata: this.metadata } : {}),
    });
  }

  override async _getRelevantDocuments(query: string): Promise<Document<MemoryDocumentMetadata>[]> {
    if (typeof query !== 'string' || query.trim() === '') return [];
    const { types, tags } = this.filter;
    const hits = await this.search.search(this.scope, query, {
      ...this.searchOptions,
      topK: this.k,
      minScore: this.minScore,
      ...(types ? { types } : {}),
      ...(tags ? { tags } : {}),
    });
    const tagSet = tags ? new Set(tags) : undefined;
    // Checked again here, for searches that ignore filters they do not know.
    return hits
      .filter(
        ({ card, score }) =>
          score >= this.minScore &&
          (!types || types.includes(card.type)) &&
          (!tagSet || card.tags.some((tag) => tagSet.has(tag))),
      )
      .slice(0, this.k)
      .map(({ card, score }) => documentOf(card, score));
  }
}
