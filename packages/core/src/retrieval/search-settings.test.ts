import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createFixedEmbedder } from '../test/embedders.js';
import { createBruteForceIndex } from './brute-force-index.js';
import { createHashingEmbedder } from './hashing-embedder.js';
import {
  checkQueryOptions,
  defaultCardText,
  isLexical,
  resolveSearchOptions,
} from './search-settings.js';

const store = createInMemoryMemoryStore();

function argumentOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return InvalidArgumentError.isInstance(error) ? error.argument : 'not an InvalidArgumentError';
  }
  return undefined;
}

describe('resolveSearchOptions', () => {
  it('lets BM25 lead with a lexical embedder and the model lead otherwise', () => {
    const lexical = resolveSearchOptions({ store, embedder: createHashingEmbedder() });
    expect(lexical.weights).toEqual({ bm25: 0.95, vector: 0.05 });
    expect(lexical.cosineCalibration).toBe('none');
    expect(lexical.lexical).toBe(true);
    const semantic = resolveSearchOptions({ store, embedder: createFixedEmbedder() });
    expect(semantic.weights).toEqual({ bm25: 0.65, vector: 0.35 });
    expect(semantic.cosineCalibration).toBe('candidate-floor');
    expect(semantic.lexical).toBe(false);
  });

  it('applies the documented defaults', () => {
    const settings = resolveSearchOptions({ store });
    expect(settings).toMatchObject({
      mode: 'hybrid',
      fusion: 'weighted',
      candidates: 50,
      timeoutMs: 1000,
      batchSize: 64,
      relevanceFloor: 0.1,
      bm25: { k1: 0.9, b: 0.2 },
      sequenceCandidates: 100,
      context: {
        weight: 0.5,
        window: 3,
        backwardWeight: 0.3,
        questionWeight: 0.7,
        speakerBoost: 1,
        types: new Set(['episode']),
      },
      dates: { timeQuestionBoost: 0.2, namedDateBoost: 0.5 },
      defaultCardText: true,
    });
    // A semantic embedder's episodes pass on less, except from a turn that asks.
    expect(resolveSearchOptions({ store, embedder: createFixedEmbedder() }).context).toMatchObject({
      weight: 0.4,
      backwardWeight: 0.2,
      questionWeight: 0.9,
    });
    // What is given is kept, whatever the kind.
    expect(
      resolveSearchOptions({
        store,
        embedder: createFixedEmbedder(),
        sequenceContext: { weight: 0.6, questionWeight: 0.3, backwardWeight: 0 },
      }).context,
    ).toMatchObject({ weight: 0.6, questionWeight: 0.3, backwardWeight: 0 });
    expect(settings.index.dimensions).toBe(settings.embedder.dimensions);
    const off = resolveSearchOptions({ store, sequenceContext: false });
    expect(off).toMatchObject({ context: undefined, candidates: 50, sequenceCandidates: 50 });
    const given = resolveSearchOptions({ store, candidates: 20 });
    expect(given).toMatchObject({ candidates: 20, sequenceCandidates: 20 });
    expect(resolveSearchOptions({ store, dates: false }).dates).toBeUndefined();
    expect(resolveSearchOptions({ store, cardText: (card) => card.content }).defaultCardText).toBe(
      false,
    );
  });

  it('names the argument of every rejected option', () => {
    const embedder = createFixedEmbedder({ dimensions: 8 });
    const cases: Array<[string, () => unknown]> = [
      ['mode', () => resolveSearchOptions({ store, mode: 'fuzzy' as never })],
      ['fusion', () => resolveSearchOptions({ store, fusion: 'max' as never })],
      [
        'sequenceContext.weight',
        () => resolveSearchOptions({ store, sequenceContext: { weight: 2 } }),
      ],
      [
        'sequenceContext.backwardWeight',
        () => resolveSearchOptions({ store, sequenceContext: { backwardWeight: -0.1 } }),
      ],
      [
        'sequenceContext.questionWeight',
        () => resolveSearchOptions({ store, sequenceContext: { questionWeight: 1.5 } }),
      ],
      [
        'dates.timeQuestionBoost',
        () => resolveSearchOptions({ store, dates: { timeQuestionBoost: Number.NaN } }),
      ],
      [
        'dates.namedDateBoost',
        () => resolveSearchOptions({ store, dates: { namedDateBoost: -1 } }),
      ],
      [
        'sequenceContext.window',
        () => resolveSearchOptions({ store, sequenceContext: { window: 0 } }),
      ],
      [
        'sequenceContext.speakerBoost',
        () => resolveSearchOptions({ store, sequenceContext: { speakerBoost: -1 } }),
      ],
      [
        'sequenceContext.types',
        () => resolveSearchOptions({ store, sequenceContext: { types: ['opinion' as never] } }),
      ],
      ['weights', () => resolveSearchOptions({ store, weights: { bm25: -1, vector: 1 } })],
      ['relevanceFloor', () => resolveSearchOptions({ store, relevanceFloor: 1.5 })],
      ['timeoutMs', () => resolveSearchOptions({ store, timeoutMs: 0 })],
      [
        'index',
        () =>
          resolveSearchOptions({
            store,
            embedder,
            index: createBruteForceIndex({ dimensions: 16 }),
          }),
      ],
    ];
    for (const [argument, action] of cases) expect(argumentOf(action)).toBe(argument);
  });
});

describe('checkQueryOptions', () => {
  it('accepts the defaults and rejects out-of-range values by name', () => {
    expect(argumentOf(() => checkQueryOptions({}))).toBeUndefined();
    expect(argumentOf(() => checkQueryOptions({ topK: 0 }))).toBe('topK');
    expect(argumentOf(() => checkQueryOptions({ mmr: { lambda: 2 } }))).toBe('mmr.lambda');
    expect(argumentOf(() => checkQueryOptions({ typeBoosts: { fact: -1 } }))).toBe('typeBoosts');
  });
});

describe('card text and embedder kind', () => {
  it('indexes the content followed by the tags', () => {
    const card = {
      id: 'a',
      content: 'Berlin trip',
      type: 'fact' as const,
      tags: ['travel', 'germany'],
      createdAt: '',
      updatedAt: '',
      scope: { userId: 'u' },
    };
    expect(defaultCardText(card)).toBe('Berlin trip\ntravel germany');
    expect(defaultCardText({ ...card, tags: [] })).toBe('Berlin trip');
  });

  it('takes an embedder that does not declare its kind as semantic, unless it is ctxmem hashing', () => {
    expect(isLexical({ ...createFixedEmbedder(), kind: undefined })).toBe(false);
    expect(isLexical({ ...createFixedEmbedder(), id: 'ctxmem-hashing-v9' })).toBe(true);
    expect(isLexical({ ...createFixedEmbedder(), kind: 'lexical' })).toBe(true);
  });
});
