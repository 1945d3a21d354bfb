/**
 * What `pnpm bench retrieval-locomo` compares: the defaults, the controls, and the settings tried
 * around them (see the notes of the bench for how each default was chosen), and the local
 * embedder with its vectors memoised between variants.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Embedder } from '../packages/core/src/contracts/index.js';
import { contentHash } from '../packages/core/src/retrieval/hash-string.js';
import {
  createHashingEmbedder,
  createTextAnalyzer,
  type TextAnalyzerOptions,
} from '../packages/core/src/retrieval/index.js';
import type { Variant } from './retrieval-locomo.bench.js';

/**
 * The local embedder with its vectors memoised by text, so the variants share one embedding pass;
 * with `CTXMEM_BENCH_VECTOR_CACHE` they are also kept in that file between runs.
 */
export function createCachedEmbedder(embedder: Embedder, file: string | undefined) {
  const vectors = new Map<string, Float32Array>();
  if (file && existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as {
      id: string;
      vectors: Record<string, number[]>;
    };
    if (stored.id === embedder.id) {
      for (const [key, values] of Object.entries(stored.vectors))
        vectors.set(key, Float32Array.from(values));
    }
  }
  let added = 0;
  const cached: Embedder = {
    id: embedder.id,
    dimensions: embedder.dimensions,
    ...(embedder.kind === undefined ? {} : { kind: embedder.kind }),
    async embed(texts) {
      const missing = [...new Set(texts.filter((text) => !vectors.has(contentHash(text))))];
      if (missing.length > 0) {
        const computed = await embedder.embed(missing);
        for (const [position, text] of missing.entries()) {
          vectors.set(contentHash(text), computed[position]!);
        }
        added += missing.length;
      }
      return texts.map((text) => vectors.get(contentHash(text))!);
    },
  };
  return {
    embedder: cached,
    save() {
      if (!file || added === 0) return;
      const serialised: Record<string, number[]> = {};
      for (const [key, vector] of vectors) serialised[key] = [...vector];
      writeFileSync(file, JSON.stringify({ id: embedder.id, vectors: serialised }));
    },
  };
}

/**
 * The variants, in the order of the report: with `local`, the rows of the local embedder too;
 * `quick` keeps the main rows only.
 */
export function retrievalVariants({
  quick,
  local,
}: {
  quick: boolean;
  local?: Embedder | undefined;
}): Variant[] {
  const embedder = createHashingEmbedder();
  const variants: Variant[] = [
    { name: 'BM25', options: { mode: 'bm25', sequenceContext: false }, cardType: 'fact' },
    { name: 'vector (hashing embedder, 384 dims)', options: { mode: 'vector', embedder } },
    { name: 'hybrid (default; turns as episodes)', options: { embedder } },
    {
      name: 'hybrid, turns as facts (the default before episodes)',
      options: { embedder },
      cardType: 'fact',
    },
    { name: 'hybrid, speakerBoost 0', options: { embedder, sequenceContext: { speakerBoost: 0 } } },
    {
      name: 'hybrid, speakerBoost 0, window 2 (sequenceContext before)',
      options: { embedder, sequenceContext: { speakerBoost: 0, window: 2 } },
    },
    { name: 'hybrid, without dates', options: { embedder, dates: false } },
    {
      name: 'control: turns as facts in shuffled order (default)',
      options: { embedder },
      shuffled: true,
    },
    {
      name: 'control: turns as facts in shuffled order, sequenceContext false',
      options: { embedder, sequenceContext: false },
      shuffled: true,
    },
    {
      name: 'control: turns as episodes in shuffled order (mistyped)',
      options: { embedder },
      shuffled: true,
      cardType: 'episode',
    },
    {
      name: 'hybrid, rrf, equal weights',
      options: { embedder, fusion: 'rrf', weights: { bm25: 1, vector: 1 } },
    },
  ];
  if (local) {
    const model = local;
    variants.push(
      { name: 'local: vector (USE lite, 512 dims)', options: { mode: 'vector', embedder: model } },
      {
        name: 'local: hybrid, rrf, equal weights, turns as facts (the first default)',
        options: { embedder: model, fusion: 'rrf', weights: { bm25: 1, vector: 1 } },
        cardType: 'fact',
      },
      { name: 'local: hybrid (default; turns as episodes)', options: { embedder: model } },
      {
        name: 'local: hybrid, turns as facts (the default before episodes)',
        options: { embedder: model },
        cardType: 'fact',
      },
      {
        name: 'local: hybrid, speakerBoost 0',
        options: { embedder: model, sequenceContext: { speakerBoost: 0 } },
      },
      {
        name: 'local: hybrid, speakerBoost 0, window 2 (sequenceContext before)',
        options: { embedder: model, sequenceContext: { speakerBoost: 0, window: 2 } },
      },
      { name: 'local: hybrid, without dates', options: { embedder: model, dates: false } },
      {
        name: 'local: control: turns as facts in shuffled order (default)',
        options: { embedder: model },
        shuffled: true,
      },
      {
        name: 'local: control: turns as facts in shuffled order, sequenceContext false',
        options: { embedder: model, sequenceContext: false },
        shuffled: true,
      },
    );
    if (!quick) {
      for (const vectorWeight of [0.25, 0.45, 0.55]) {
        variants.push({
          name: `local: hybrid, weighted ${vectorWeight} vector`,
          options: {
            embedder: model,
            fusion: 'weighted',
            weights: { bm25: 1 - vectorWeight, vector: vectorWeight },
          },
        });
      }
      variants.push(
        {
          name: 'local: hybrid, speakerBoost 2',
          options: { embedder: model, sequenceContext: { speakerBoost: 2 } },
        },
        {
          name: 'local: hybrid, window 4',
          options: { embedder: model, sequenceContext: { window: 4 } },
        },
        {
          name: 'local: hybrid, 150 candidates',
          options: { embedder: model, candidates: 150 },
        },
      );
    }
  }
  if (!quick) {
    const context = (settings: NonNullable<Variant['options']['sequenceContext']>): Variant => ({
      name: `hybrid, sequenceContext ${JSON.stringify(settings)}`,
      options: { embedder, sequenceContext: settings },
    });
    variants.push(
      {
        name: 'hybrid, no time-question boost',
        options: { embedder, dates: { timeQuestionBoost: 0 } },
      },
      {
        name: 'hybrid, time-question boost 0.5',
        options: { embedder, dates: { timeQuestionBoost: 0.5 } },
      },
      { name: 'hybrid, 50 candidates', options: { embedder, candidates: 50 } },
      { name: 'hybrid, 150 candidates', options: { embedder, candidates: 150 } },
      context({ backwardWeight: 0 }),
      context({ backwardWeight: 0.1 }),
      context({ backwardWeight: 0.3 }),
      context({ speakerBoost: 0.5 }),
      context({ speakerBoost: 2 }),
      context({ window: 2 }),
      context({ window: 4 }),
      context({ weight: 0.3 }),
      context({ weight: 0.7 }),
      {
        name: 'control: hybrid, turns undated (createdAt 0)',
        options: { embedder },
        undated: true,
      },
      { name: 'BM25, turns as episodes', options: { mode: 'bm25' } },
      {
        name: 'hybrid, embedder without character n-grams',
        options: { embedder: createHashingEmbedder({ characterNgrams: false }) },
      },
      {
        name: 'hybrid, embedder without word pairs',
        options: { embedder: createHashingEmbedder({ wordPairWeight: 0 }) },
      },
      {
        name: 'hybrid, weighted 0.9/0.1',
        options: { embedder, fusion: 'weighted', weights: { bm25: 0.9, vector: 0.1 } },
      },
      {
        name: 'hybrid, rrf k 5, weights 1/0.2',
        options: { embedder, fusion: 'rrf', rrfK: 5, weights: { bm25: 1, vector: 0.2 } },
      },
    );
    const bm25 = (analysis: TextAnalyzerOptions) => ({
      mode: 'bm25' as const,
      sequenceContext: false as const,
      analyzer: createTextAnalyzer(analysis),
    });
    variants.push(
      {
        name: 'vector (hashing embedder, 4096 dims)',
        options: { mode: 'vector', embedder: createHashingEmbedder({ dimensions: 4096 }) },
      },
      {
        name: 'hybrid, weighted 0.5/0.5',
        options: { embedder, fusion: 'weighted', weights: { bm25: 0.5, vector: 0.5 } },
      },
      { name: 'BM25, no stemmer', options: bm25({ stemmer: 'none' }), cardType: 'fact' },
      {
        name: 'BM25, no irregular forms',
        options: bm25({ irregularForms: false }),
        cardType: 'fact',
      },
      { name: 'BM25, no stop words', options: bm25({ stopWords: false }), cardType: 'fact' },
      {
        name: 'BM25, textbook k1 1.2 b 0.75',
        options: { mode: 'bm25', sequenceContext: false, bm25: { k1: 1.2, b: 0.75 } },
        cardType: 'fact',
      },
      {
        name: 'BM25, turn text without speaker',
        options: { mode: 'bm25', sequenceContext: false },
        withSpeaker: false,
        cardType: 'fact',
      },
      {
        name: 'plain BM25 (no stemming, textbook k1/b, no speaker)',
        options: {
          ...bm25({ stemmer: 'none', irregularForms: false }),
          bm25: { k1: 1.2, b: 0.75 },
        },
        withSpeaker: false,
        cardType: 'fact',
      },
    );
  }
  return variants;
}
