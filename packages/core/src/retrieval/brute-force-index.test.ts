import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { testMemoryIndex } from '../test/memory-index-suite.js';
import { createBruteForceIndex } from './brute-force-index.js';

testMemoryIndex('brute force', ({ dimensions }) => createBruteForceIndex({ dimensions }), {
  minimumRecall: 1,
});

describe('createBruteForceIndex', () => {
  it('rejects dimensions that are not a positive integer', () => {
    for (const dimensions of [0, -3, 2.5, Number.NaN]) {
      let caught: unknown;
      try {
        createBruteForceIndex({ dimensions });
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught)).toBe(true);
    }
  });

  it('scores a zero vector 0 instead of NaN', async () => {
    const index = createBruteForceIndex({ dimensions: 3 });
    await index.upsert([{ id: 'zero', vector: new Float32Array(3), scopeKey: 's' }]);
    const hits = await index.query(Float32Array.of(1, 0, 0), { k: 1, scopeKey: 's' });
    expect(hits).toEqual([{ id: 'zero', score: 0 }]);
  });

  it('breaks score ties by id, whatever the insertion order', async () => {
    const index = createBruteForceIndex({ dimensions: 2 });
    const vector = Float32Array.of(1, 0);
    await index.upsert(['c', 'a', 'b'].map((id) => ({ id, vector, scopeKey: 's' })));
    const hits = await index.query(vector, { k: 2, scopeKey: 's' });
    expect(hits.map((hit) => hit.id)).toEqual(['a', 'b']);
  });

  it('rejects an empty id', async () => {
    const index = createBruteForceIndex({ dimensions: 2 });
    await expect(
      index.upsert([{ id: '', vector: Float32Array.of(1, 0), scopeKey: 's' }]),
    ).rejects.toSatisfy(InvalidArgumentError.isInstance);
  });
});
