import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { createHashingEmbedder } from './index.js';

function cosine(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += left[index]! * right[index]!;
  return sum;
}

function norm(vector: Float32Array): number {
  return Math.sqrt(cosine(vector, vector));
}

async function embedOne(text: string, embedder = createHashingEmbedder()): Promise<Float32Array> {
  const [vector] = await embedder.embed([text]);
  return vector!;
}

describe('createHashingEmbedder', () => {
  it('returns one L2-normalised vector of `dimensions` floats per text', async () => {
    const embedder = createHashingEmbedder({ dimensions: 64 });
    const vectors = await embedder.embed(['first text', 'second text here']);
    expect(embedder.dimensions).toBe(64);
    expect(vectors).toHaveLength(2);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(64);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }
  });

  it('is deterministic across instances', async () => {
    const text = 'The user prefers Python for scripting';
    expect(await embedOne(text)).toEqual(await embedOne(text, createHashingEmbedder()));
  });

  it('puts texts that share words closer than unrelated ones', async () => {
    const query = await embedOne('Which language does the user prefer for scripts?');
    const related = await embedOne('The user prefers Python for scripting');
    const unrelated = await embedOne('Never deploy on Fridays');
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2);
  });

  it('relates word forms the stemmer does not merge through character n-grams', async () => {
    const query = await embedOne('roadtrip');
    const withNgrams = cosine(query, await embedOne('road trip'));
    const withoutNgrams = cosine(
      await embedOne('roadtrip', createHashingEmbedder({ characterNgrams: false })),
      await embedOne('road trip', createHashingEmbedder({ characterNgrams: false })),
    );
    expect(withoutNgrams).toBeLessThan(0.2);
    expect(withNgrams).toBeGreaterThan(withoutNgrams + 0.2);
  });

  it('relates Chinese texts through shared character n-grams', async () => {
    const query = await embedOne('上下文压缩');
    expect(cosine(query, await embedOne('上下文压缩的阈值是多少'))).toBeGreaterThan(
      cosine(query, await embedOne('今天天气很好')) + 0.3,
    );
  });

  it('embeds text without any term to the zero vector', async () => {
    const vector = await embedOne('the of and ?!');
    expect(norm(vector)).toBe(0);
  });

  it('encodes every setting in its id', () => {
    const ids = new Set([
      createHashingEmbedder().id,
      createHashingEmbedder({ dimensions: 256 }).id,
      createHashingEmbedder({ seed: 1 }).id,
      createHashingEmbedder({ characterNgrams: false }).id,
      createHashingEmbedder({ characterNgramWeight: 0.5 }).id,
      createHashingEmbedder({ wordPairWeight: 0 }).id,
      createHashingEmbedder({ analysis: { stemmer: 'none' } }).id,
      createHashingEmbedder({ analysis: { stopWords: new Set(['x']) } }).id,
    ]);
    expect(ids.size).toBe(8);
    expect(createHashingEmbedder({ dimensions: 256 }).id).toBe(
      createHashingEmbedder({ dimensions: 256 }).id,
    );
    expect(createHashingEmbedder().id).toMatch(/^ctxmem-hashing-v1\/d384\//);
  });

  it('gives unrelated vectors for different seeds', async () => {
    const text = 'The user prefers Python for scripting';
    const left = await embedOne(text, createHashingEmbedder({ seed: 1 }));
    const right = await embedOne(text, createHashingEmbedder({ seed: 2 }));
    expect(Math.abs(cosine(left, right))).toBeLessThan(0.5);
  });

  it('rejects an aborted call', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      createHashingEmbedder().embed(['text'], { abortSignal: controller.signal }),
    ).rejects.toThrow('stop');
  });

  it('rejects invalid settings with InvalidArgumentError', () => {
    for (const options of [
      { dimensions: 0 },
      { dimensions: 1.5 },
      { characterNgrams: { min: 0, max: 3 } },
      { characterNgrams: { min: 4, max: 3 } },
      { characterNgramWeight: -1 },
      { wordPairWeight: Number.NaN },
      { seed: 0.5 },
    ]) {
      let error: unknown;
      try {
        createHashingEmbedder(options);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
    }
  });
});
