/**
 * What `pnpm bench retrieval-locomo` chooses among: the grid of the episode path and fusion
 * settings that cross-validation tunes, the controls measured beside it, and the local embedder
 * with its vectors kept on disk between runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Embedder, MemoryCardType } from '../packages/core/src/contracts/index.js';
import { contentHash } from '../packages/core/src/retrieval/hash-string.js';
import type { MemorySearchOptions } from '../packages/core/src/retrieval/index.js';

/** One way to store and search the turns. */
export interface RetrievalCandidate {
  name: string;
  options: Omit<MemorySearchOptions, 'store'>;
  /**
   * The type of the turn cards: `episode` (a record of what was said, as a transcript import
   * should add them) or a self-contained type, which `sequenceContext` leaves out by default.
   * @default 'episode'
   */
  cardType?: MemoryCardType;
}

/**
 * The local embedder with its vectors memoised by text, so the candidates share one embedding
 * pass; with `file` they are also kept there between runs (vectors only, keyed by a hash of the
 * text; never committed).
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
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ id: embedder.id, vectors: serialised }));
      added = 0;
    },
  };
}

/** The settings the grid varies; everything else is the search's default. */
export interface GridPoint {
  /** `sequenceContext.questionWeight` (equal to `forward`: no separate weight for questions). */
  question: number;
  /** `dates.namedDateBoost`. */
  namedDate: number;
  /** `sequenceContext.weight`. */
  forward: number;
  /** `sequenceContext.backwardWeight`. */
  backward: number;
  /** The vector side's share of the weighted fusion (`weights.vector`, BM25 the rest). */
  vector: number;
}

export function gridName(point: GridPoint): string {
  return `question ${point.question}, date ${point.namedDate}, forward ${point.forward}, backward ${point.backward}, vector ${point.vector}`;
}

export function gridCandidate(embedder: Embedder, point: GridPoint): RetrievalCandidate {
  return {
    name: gridName(point),
    options: {
      embedder,
      fusion: 'weighted',
      weights: { bm25: 1 - point.vector, vector: point.vector },
      sequenceContext: {
        weight: point.forward,
        backwardWeight: point.backward,
        questionWeight: point.question,
      },
      dates: { namedDateBoost: point.namedDate },
    },
  };
}

/**
 * The grid cross-validation chooses from, for one embedder: round 2's defaults first (a tie keeps
 * them, so a change has to win), then every combination. `vectors` are the fusion shares tried,
 * the round-2 default first. Quick: round 2's defaults and `shipped` only.
 */
export function retrievalGrid(
  embedder: Embedder,
  { vectors, quick, shipped }: { vectors: readonly number[]; quick: boolean; shipped: GridPoint },
): RetrievalCandidate[] {
  const roundTwo: GridPoint = {
    question: 0.5,
    namedDate: 0,
    forward: 0.5,
    backward: 0.2,
    vector: vectors[0]!,
  };
  const points: GridPoint[] = [roundTwo];
  if (quick) points.push(shipped);
  else {
    for (const forward of [0.5, 0.4, 0.6])
      for (const question of [forward, 0.7, 0.9])
        for (const namedDate of [0, 0.5])
          for (const backward of [0.2, 0.3])
            for (const vector of vectors)
              points.push({ question, namedDate, forward, backward, vector });
  }
  const seen = new Set<string>();
  return points
    .filter((point) => {
      const name = gridName(point);
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    })
    .map((point) => gridCandidate(embedder, point));
}
