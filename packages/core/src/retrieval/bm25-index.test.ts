import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { bm25PostingAccess } from './bm25-index.js';
import { createBm25Index } from './index.js';

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createBm25Index', () => {
  const documents = {
    python: 'The user prefers Python for scripting tasks',
    deploy: 'Never deploy on Fridays',
    gpu: 'The team chose an A100 GPU for training',
    rust: 'The user is learning Rust on weekends',
  };

  function filled() {
    const index = createBm25Index();
    for (const [id, text] of Object.entries(documents)) index.upsert(id, text);
    return index;
  }

  it('finds the documents that share terms with the query, best first', () => {
    const hits = filled().search('which GPU did they pick for training?', 10);
    expect(hits.map((hit) => hit.id)).toEqual(['gpu']);
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('ranks a rare shared term above a common one', () => {
    // "user" is in two documents, "weekends" in one.
    const hits = filled().search('user weekends', 10);
    expect(hits[0]!.id).toBe('rust');
    expect(hits.map((hit) => hit.id)).toContain('python');
  });

  it('matches other word forms through stemming', () => {
    expect(
      filled()
        .search('deploying', 5)
        .map((hit) => hit.id),
    ).toEqual(['deploy']);
    expect(
      filled()
        .search('friday', 5)
        .map((hit) => hit.id),
    ).toEqual(['deploy']);
  });

  it('replaces a document on upsert and forgets it on remove', () => {
    const index = filled();
    index.upsert('python', 'The user prefers Go for scripting tasks');
    expect(index.search('python', 5)).toEqual([]);
    expect(index.search('go', 5).map((hit) => hit.id)).toEqual(['python']);
    expect(index.size).toBe(4);
    expect(index.remove('python')).toBe(true);
    expect(index.remove('python')).toBe(false);
    expect(index.has('python')).toBe(false);
    expect(index.search('scripting', 5)).toEqual([]);
    expect(index.size).toBe(3);
  });

  it('returns at most k hits and honours a filter', () => {
    const index = filled();
    expect(index.search('user', 1)).toHaveLength(1);
    expect(index.search('user', 0)).toEqual([]);
    expect(
      index.search('user', 5, { filter: (id) => id !== 'python' }).map((hit) => hit.id),
    ).toEqual(['rust']);
  });

  it('breaks ties by id, whatever the insertion order', () => {
    const index = createBm25Index();
    index.upsert('b', 'same words here');
    index.upsert('a', 'same words here');
    expect(index.search('words', 2).map((hit) => hit.id)).toEqual(['a', 'b']);
  });

  it('returns the first k of the full ranking, best first and ties by id', () => {
    const words = ['red', 'green', 'blue', 'cyan', 'gray'];
    const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 30 }),
        text,
        fc.integer({ min: 1, max: 35 }),
        (documents, query, k) => {
          const index = createBm25Index();
          for (const [position, words] of documents.entries()) {
            index.upsert(`d${position}`, words.join(' '));
          }
          const all = index.search(query.join(' '), documents.length);
          for (const [position, hit] of all.entries()) {
            const next = all[position + 1];
            if (next) {
              expect(hit.score > next.score || (hit.score === next.score && hit.id < next.id)).toBe(
                true,
              );
            }
          }
          expect(index.search(query.join(' '), k)).toEqual(all.slice(0, k));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('gives idealScore as the score of an average document holding every query term once', () => {
    const index = createBm25Index({ b: 0 });
    index.upsert('1', 'alpha beta');
    index.upsert('2', 'gamma delta');
    const [hit] = index.search('alpha beta', 1);
    expect(hit!.score).toBeCloseTo(index.idealScore('alpha beta'), 10);
    expect(index.idealScore('alpha unknown')).toBeGreaterThan(index.idealScore('alpha'));
  });

  it('rejects out-of-range parameters with InvalidArgumentError', () => {
    for (const options of [{ k1: -1 }, { k1: Number.NaN }, { b: 1.5 }, { b: -0.1 }]) {
      expect(InvalidArgumentError.isInstance(thrown(() => createBm25Index(options)))).toBe(true);
    }
    for (const k of [-1, 1.5, Number.NaN]) {
      expect(InvalidArgumentError.isInstance(thrown(() => filled().search('user', k)))).toBe(true);
    }
  });

  it('after any sequence of upserts and removes, scores like an index built from scratch', () => {
    const word = fc.constantFrom('red', 'green', 'blue', 'cat', 'dog', 'tree', 'house', 'car');
    const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('upsert' as const), id: fc.integer({ min: 0, max: 5 }), text }),
      fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 30 }), text, (operations, query) => {
        const incremental = createBm25Index();
        const final = new Map<string, string>();
        for (const step of operations) {
          const id = String(step.id);
          if (step.kind === 'upsert') {
            incremental.upsert(id, step.text);
            final.set(id, step.text);
          } else {
            incremental.remove(id);
            final.delete(id);
          }
        }
        const rebuilt = createBm25Index();
        for (const [id, body] of [...final].reverse()) rebuilt.upsert(id, body);
        const round = (hits: Array<{ id: string; score: number }>) =>
          hits.map((hit) => ({ id: hit.id, score: Math.round(hit.score * 1e9) }));
        expect(incremental.size).toBe(final.size);
        expect(round(incremental.search(query, 10))).toEqual(round(rebuilt.search(query, 10)));
      }),
      { numRuns: 150 },
    );
  });

  it('returns the smallest ids among many equal scores, whatever the insertion order', () => {
    const index = createBm25Index();
    const ids = Array.from({ length: 300 }, (_, position) => `card-${(position * 7919) % 1000}`);
    for (const id of ids) index.upsert(id, 'the same deploy note');
    index.upsert('best', 'deploy deploy note');
    const hits = index.search('deploy note', 4);
    expect(hits.map((hit) => hit.id)).toEqual(['best', ...[...ids].sort().slice(0, 3)]);
    expect(new Set(hits.slice(1).map((hit) => hit.score)).size).toBe(1);
  });

  it('stays exact through many removals and replacements (dead slots dropped in bulk)', () => {
    const word = fc.constantFrom('deploy', 'friday', 'python', 'rust', 'gpu', 'team', 'user');
    const text = fc.array(word, { minLength: 1, maxLength: 5 }).map((words) => words.join(' '));
    const operation = fc.oneof(
      fc.record({
        kind: fc.constant('upsert' as const),
        id: fc.integer({ min: 0, max: 40 }),
        text,
      }),
      fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 40 }) }),
    );
    fc.assert(
      fc.property(
        fc.array(operation, { minLength: 150, maxLength: 400 }),
        text,
        fc.integer({ min: 1, max: 8 }),
        (operations, query, k) => {
          const incremental = createBm25Index();
          const final = new Map<string, string>();
          for (const step of operations) {
            const id = `doc-${step.id}`;
            if (step.kind === 'upsert') {
              incremental.upsert(id, step.text);
              final.set(id, step.text);
            } else {
              incremental.remove(id);
              final.delete(id);
            }
          }
          const rebuilt = createBm25Index();
          for (const [id, body] of final) rebuilt.upsert(id, body);
          const round = (hits: Array<{ id: string; score: number }>) =>
            hits.map((hit) => ({ id: hit.id, score: Math.round(hit.score * 1e9) }));
          expect(incremental.size).toBe(final.size);
          expect(round(incremental.search(query, k))).toEqual(round(rebuilt.search(query, k)));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('BM25 postings saved and adopted', () => {
  const words = ['red', 'blue', 'green', 'deploy', 'service', 'failed', 'rolled', 'back'];
  const textOf = (seed: number) =>
    `Note ${seed % 7} ${words[seed % 8]} ${words[(seed * 3) % 8]} ${words[(seed * 5 + 1) % 8]}`;

  it('an adopted index scores like the original, through later replacements and removals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 59 }), fc.nat(200)), {
          maxLength: 80,
        }),
        (changes) => {
          const texts = new Map<string, string>();
          const original = createBm25Index();
          for (let seed = 0; seed < 60; seed++) {
            texts.set(`card-${seed}`, textOf(seed));
            original.upsert(`card-${seed}`, textOf(seed));
          }
          const order = [...texts.keys()].reverse();
          const saved = bm25PostingAccess(original)!.export(order);
          const adopted = createBm25Index();
          bm25PostingAccess(adopted)!.adopt(order, saved, (number) => texts.get(order[number]!)!);
          // The same changes on both: the adopted one analyses a removed text only now.
          for (const [remove, card, seed] of changes) {
            const id = `card-${card}`;
            for (const index of [original, adopted]) {
              if (remove) index.remove(id);
              else index.upsert(id, textOf(seed));
            }
          }
          expect(adopted.size).toBe(original.size);
          for (const query of ['red deploy', 'note 3 blue', 'rolled back service', 'green']) {
            expect(adopted.search(query, 10)).toEqual(original.search(query, 10));
            expect(adopted.idealScore(query)).toBe(original.idealScore(query));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('exports the terms sorted, documents numbered by the given order', () => {
    const index = createBm25Index();
    index.upsert('a', 'green tea');
    index.upsert('b', 'black tea');
    const saved = bm25PostingAccess(index)!.export(['b', 'a']);
    expect(saved.terms).toEqual([...saved.terms].sort());
    const tea = saved.terms.indexOf('tea');
    expect([...saved.documents.subarray(saved.starts[tea], saved.starts[tea + 1])].sort()).toEqual([
      0, 1,
    ]);
    expect([...saved.lengths]).toEqual([2, 2]);
  });
});
