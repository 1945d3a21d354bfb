import type { Embedder } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { createTextAnalyzer, type TextAnalyzerOptions } from '../text/index.js';
import { requireOptions } from '../validation/index.js';
import { contentHash, hash32 } from './hash-string.js';

export interface HashingEmbedderOptions {
  /**
   * Length of the vectors. More dimensions mean fewer hash collisions and more memory.
   * @default 384
   */
  dimensions?: number;
  /**
   * How words are found, stemmed and filtered, and how CJK text is split (see `createTextAnalyzer`).
   * @default {}
   */
  analysis?: TextAnalyzerOptions;
  /**
   * Character n-grams of each word (with `^`/`$` boundary marks) are hashed too, so related word
   * forms and typos still overlap; `false` hashes whole words only. CJK terms are already n-grams
   * and get none.
   * @default { min: 3, max: 5 }
   */
  characterNgrams?: { min: number; max: number } | false;
  /**
   * Weight (L2 norm) of all character n-grams of a word together, relative to the word itself (1).
   * @default 1
   */
  characterNgramWeight?: number;
  /**
   * Weight of adjacent word pairs (`summer camp`), relative to a word (1); 0 turns them off.
   * @default 0.5
   */
  wordPairWeight?: number;
  /**
   * Changes every hash: two embedders with different seeds produce unrelated vectors.
   * @default 0
   */
  seed?: number;
}

const cjkTerm = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function positiveInteger(argument: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError({
      message: `${argument} must be a positive integer, got ${value}`,
      argument,
    });
  }
}

function nonNegative(argument: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError({
      message: `${argument} must be a finite number >= 0, got ${value}`,
      argument,
    });
  }
}

/**
 * The built-in offline embedder: signed feature hashing ("the hashing trick") of stemmed words,
 * word pairs and character n-grams, with sublinear term frequency (`1 + ln tf`) and L2
 * normalisation. Deterministic, no model download, about as good as a lexical model gets — it
 * matches related word forms but not synonyms. The `id` encodes every setting, so vectors cached
 * under other settings are never reused. Text without any term embeds to the zero vector.
 */
export function createHashingEmbedder(options: HashingEmbedderOptions = {}): Embedder {
  const {
    dimensions = 384,
    analysis = {},
    characterNgrams = { min: 3, max: 5 },
    characterNgramWeight = 1,
    wordPairWeight = 0.5,
    seed = 0,
  } = requireOptions(options, 'createHashingEmbedder');
  positiveInteger('dimensions', dimensions);
  nonNegative('characterNgramWeight', characterNgramWeight);
  nonNegative('wordPairWeight', wordPairWeight);
  if (!Number.isInteger(seed)) {
    throw new InvalidArgumentError({
      message: `seed must be an integer, got ${seed}`,
      argument: 'seed',
    });
  }
  if (characterNgrams !== false) {
    const { min, max } = characterNgrams;
    if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1 || max < min) {
      throw new InvalidArgumentError({
        message: `characterNgrams must be integers with 1 <= min <= max, got min ${min} and max ${max}`,
        argument: 'characterNgrams',
      });
    }
  }
  const analyzer = createTextAnalyzer(analysis);
  const settings = JSON.stringify({
    ...analysis,
    stopWords:
      analysis.stopWords === undefined || analysis.stopWords === false
        ? analysis.stopWords
        : [...analysis.stopWords].sort(),
    characterNgrams,
    characterNgramWeight,
    wordPairWeight,
    seed,
  });
  const id = `ctxmem-hashing-v1/d${dimensions}/${contentHash(settings)}`;

  function features(text: string): Map<string, number> {
    const weights = new Map<string, number>();
    const add = (feature: string, weight: number) =>
      weights.set(feature, (weights.get(feature) ?? 0) + weight);
    const terms = analyzer(text);
    for (const [index, term] of terms.entries()) {
      add(`w:${term}`, 1);
      if (wordPairWeight > 0 && index > 0) add(`p:${terms[index - 1]} ${term}`, wordPairWeight);
      if (characterNgrams === false || characterNgramWeight === 0 || cjkTerm.test(term)) continue;
      const marked = `^${term}$`;
      const grams: string[] = [];
      for (let size = characterNgrams.min; size <= characterNgrams.max; size++) {
        for (let start = 0; start + size <= marked.length; start++) {
          grams.push(marked.slice(start, start + size));
        }
      }
      // Together a word's grams weigh `characterNgramWeight` in L2 terms, whatever its length, so
      // they count about as much as the word itself and long words do not dominate.
      for (const gram of grams) add(`c:${gram}`, characterNgramWeight / Math.sqrt(grams.length));
    }
    return weights;
  }

  function embedOne(text: string): Float32Array {
    const vector = new Float32Array(dimensions);
    for (const [feature, weight] of features(text)) {
      const hash = hash32(feature, seed);
      const sign = (hash32(feature, seed ^ 0x5bd1e995) & 1) === 0 ? 1 : -1;
      // Sublinear term frequency: the tenth repetition of a word adds little.
      vector[hash % dimensions]! += sign * (weight >= 1 ? 1 + Math.log(weight) : weight);
    }
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let index = 0; index < dimensions; index++) vector[index]! /= norm;
    return vector;
  }

  return {
    id,
    dimensions,
    // Its vectors re-encode the words, so memory search lets BM25 lead when fusing.
    kind: 'lexical',
    async embed(texts, options) {
      options?.abortSignal?.throwIfAborted();
      return texts.map(embedOne);
    },
  };
}
