import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryCard, MemoryCardDraft, MemoryCardType } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import {
  contentTokens,
  createCardIndex,
  mergeCards,
  normalizeCardContent,
  SUPERSEDING_CARD_TYPES,
} from './index.js';
import { mergeCardsByScan } from './merge-cards-by-scan.js';

const scope = { userId: 'alice' };
let sequence = 0;
const options = (now = '2026-01-01T00:00:00.000Z') => ({
  scope,
  now,
  generateId: () => `card-${sequence++}`,
});

function merge(existing: readonly MemoryCard[], drafts: MemoryCardDraft[], now?: string) {
  return mergeCards(existing, drafts, options(now));
}

function current(cards: readonly MemoryCard[]): string[] {
  return cards.filter((card) => card.supersededBy === undefined).map((card) => card.content);
}

/** Adds drafts one call at a time, as a store would. */
function addAll(drafts: MemoryCardDraft[]): MemoryCard[] {
  let cards: MemoryCard[] = [];
  for (const draft of drafts) cards = merge(cards, [draft]).cards;
  return cards;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

describe('normalizeCardContent', () => {
  it('folds case, whitespace, sentence punctuation and full-width forms', () => {
    expect(normalizeCardContent('  Use PNPM,   not npm! ')).toBe('use pnpm not npm');
    expect(normalizeCardContent('Ｕｓｅ　ｐｎｐｍ，ｎｏｔ　ｎｐｍ！')).toBe('use pnpm not npm');
    expect(normalizeCardContent('我们用 pnpm。')).toBe('我们用 pnpm');
    expect(normalizeCardContent("Don't deploy on Fridays")).toBe('do not deploy on fridays');
  });

  it('keeps the symbols that carry meaning', () => {
    expect(normalizeCardContent('I prefer C#')).not.toBe(normalizeCardContent('I prefer C'));
    expect(normalizeCardContent('Use C++ 20')).not.toBe(normalizeCardContent('Use C 20'));
  });

  it('turns CJK runs into bigrams and drops English stop words', () => {
    expect(contentTokens(normalizeCardContent('用户喜欢深色主题'))).toEqual([
      '用户',
      '户喜',
      '喜欢',
      '欢深',
      '深色',
      '色主',
      '主题',
    ]);
    expect(contentTokens('i prefer python for scripts')).toEqual(['prefer', 'python', 'script']);
  });

  it('stems words as search does and keeps the stop words that change a statement', () => {
    expect(contentTokens('the backup copies ran')).toEqual(['backup', 'copi', 'ran']);
    expect(contentTokens('deploy before the tests')).toEqual(['deploi', 'befor', 'test']);
    expect(contentTokens('do not deploy')).toEqual(['not', 'deploi']);
  });
});

describe('mergeCards', () => {
  it('returns the existing card for an exact duplicate, even of another type', () => {
    const first = merge([], [{ content: 'Use pnpm, not npm.', tags: ['tooling'] }]);
    const second = merge(
      first.cards,
      [{ content: 'use PNPM not npm', type: 'decision' }],
      '2026-02-01T00:00:00.000Z',
    );
    expect(second.changed).toBe(false);
    expect(second.outcomes).toEqual([{ kind: 'duplicate', cardId: first.results[0]!.id }]);
    expect(second.results).toEqual(first.results);
    expect(second.cards).toEqual(first.cards);
  });

  it('merges a near duplicate into the existing card', () => {
    const first = merge(
      [],
      [
        {
          content: 'The nightly backup job copies the production database to the eu-west bucket',
          tags: ['ops'],
        },
      ],
    );
    const second = merge(
      first.cards,
      [
        {
          content: 'The nightly backup jobs copy the production database to the eu-west buckets',
          tags: ['backup'],
        },
      ],
      '2026-03-01T00:00:00.000Z',
    );
    expect(second.outcomes[0]!.kind).toBe('near-duplicate');
    expect(second.cards).toHaveLength(1);
    expect(second.cards[0]).toMatchObject({
      id: first.cards[0]!.id,
      content: first.cards[0]!.content,
      tags: ['ops', 'backup'],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-03-01T00:00:00.000Z',
    });
  });

  it('never merges sentences that differ by a negation, however long', () => {
    const cards = addAll([
      {
        content: 'The user wants to receive the weekly product newsletter by email on Mondays',
        type: 'todo',
      },
      {
        content:
          'The user does not want to receive the weekly product newsletter by email on Mondays',
        type: 'todo',
      },
    ]);
    expect(cards).toHaveLength(2);
    expect(current(cards)).toHaveLength(2);
  });

  it('never merges sentences that differ by the order of events', () => {
    const cards = addAll([
      { content: 'Run the database migration before the nightly backup job starts', type: 'todo' },
      { content: 'Run the database migration after the nightly backup job starts', type: 'todo' },
    ]);
    expect(current(cards)).toHaveLength(2);
  });

  it('never merges sentences that replace a detail, however long', () => {
    const cards = addAll([
      {
        content:
          'Deploy the backend service to the production cluster in region eu-west-1 every Tuesday',
        type: 'todo',
      },
      {
        content:
          'Deploy the backend service to the production cluster in region us-east-1 every Tuesday',
        type: 'todo',
      },
    ]);
    expect(current(cards)).toHaveLength(2);
  });

  it('supersedes a contradicted preference, decision or constraint', () => {
    const cases: Array<[MemoryCardType, string, string]> = [
      ['preference', 'I prefer Python for scripts', 'I prefer Rust for scripts'],
      ['decision', 'We decided to host the API on AWS', 'We decided to host the API on GCP'],
      [
        'constraint',
        'The API rate limit is 100 requests per minute',
        'The API rate limit is 200 requests per minute',
      ],
      ['preference', 'I like cilantro', "I don't like cilantro"],
      ['preference', '我喜欢用Python写脚本', '我喜欢用Rust写脚本'],
      ['preference', '我喜欢香菜', '我不喜欢香菜'],
    ];
    for (const [type, older, newer] of cases) {
      const cards = addAll([
        { content: older, type },
        { content: newer, type },
      ]);
      expect(current(cards), `${older} → ${newer}`).toEqual([newer]);
      expect(cards[0]!.supersededBy).toBe(cards[1]!.id);
    }
  });

  it('leaves cards alone that are of another type, of a non-superseding type, or about something else', () => {
    const pairs: Array<[MemoryCardDraft, MemoryCardDraft]> = [
      [
        { content: 'I prefer Python for scripts', type: 'preference' },
        { content: 'I prefer Rust for scripts', type: 'decision' },
      ],
      [
        { content: 'Write the migration script in Python', type: 'todo' },
        { content: 'Write the migration script in Rust', type: 'todo' },
      ],
      [
        { content: 'Ship the beta in March', type: 'goal' },
        { content: 'Ship the beta in April', type: 'goal' },
      ],
      [
        { content: 'I prefer Python for scripts', type: 'preference' },
        { content: 'I prefer tea in the morning', type: 'preference' },
      ],
      [
        { content: 'We use Postgres for the main database', type: 'decision' },
        { content: 'We use Redis for caching sessions', type: 'decision' },
      ],
      [
        { content: 'The user lives in Berlin', type: 'fact' },
        { content: 'The user has two cats and a dog', type: 'fact' },
      ],
    ];
    for (const [older, newer] of pairs) {
      const cards = addAll([older, newer]);
      expect(current(cards), `${older.content} / ${newer.content}`).toHaveLength(2);
    }
  });

  it('never supersedes records: facts, conversation turns, todos, goals and code stay current', () => {
    expect([...SUPERSEDING_CARD_TYPES].sort()).toEqual(['constraint', 'decision', 'preference']);
    const turns: MemoryCardDraft[] = [
      { content: 'Ana: I went to the climbing gym yesterday', source: 'turn 1' },
      { content: 'Ana: I went to the choir rehearsal yesterday', source: 'turn 7' },
      { content: "The user's name is Alice", type: 'fact' },
      { content: "The user's name is Bob", type: 'fact' },
      { content: 'Samantha: I like painting sunsets', source: 'turn 9' },
      { content: "Samantha: I don't like painting sunsets", source: 'turn 12' },
      { content: 'Refactor the parser in Python', type: 'todo' },
      { content: 'Refactor the parser in Rust', type: 'todo' },
      { content: 'const port = 8080', type: 'code' },
      { content: 'const port = 9090', type: 'code' },
    ];
    const cards = addAll(turns);
    expect(current(cards)).toHaveLength(turns.length);
    // The same pair as a preference is a change of mind.
    const preferences = addAll([
      { content: 'Samantha: I like painting sunsets', type: 'preference' },
      { content: "Samantha: I don't like painting sunsets", type: 'preference' },
    ]);
    expect(current(preferences)).toEqual(["Samantha: I don't like painting sunsets"]);
  });

  it('compares only current cards: stating the old preference again makes it current again', () => {
    const cards = addAll([
      { content: 'I prefer Python for scripts', type: 'preference' },
      { content: 'I prefer Rust for scripts', type: 'preference' },
      { content: 'I prefer Python for scripts', type: 'preference' },
    ]);
    expect(cards).toHaveLength(3);
    expect(current(cards)).toEqual(['I prefer Python for scripts']);
    expect(cards[1]!.supersededBy).toBe(cards[2]!.id);
  });

  it('processes a batch in order and reports each draft as it ends up', () => {
    const result = merge(
      [],
      [
        { content: 'I prefer Python for scripts', type: 'preference' },
        { content: 'i prefer python for scripts.' },
        { content: 'I prefer Rust for scripts', type: 'preference' },
      ],
    );
    expect(result.outcomes.map((outcome) => outcome.kind)).toEqual(['added', 'duplicate', 'added']);
    // The first two results are the same card, which the third draft superseded.
    expect(result.results[0]!.supersededBy).toBe(result.results[2]!.id);
    expect(result.results[1]).toEqual(result.results[0]);
    expect(result.outcomes[2]).toMatchObject({ superseded: [result.results[0]!.id] });
  });

  it('stamps new cards with trimmed content, defaults, cleaned tags, the source and the scope', () => {
    const { results } = merge(
      [],
      [{ content: '  Tabs, not spaces.  ', tags: [' style ', '', 'style'], source: 'turn 2' }],
    );
    expect(results[0]).toEqual({
      id: expect.any(String),
      content: 'Tabs, not spaces.',
      type: 'fact',
      tags: ['style'],
      source: 'turn 2',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      scope: { userId: 'alice' },
    });
  });

  it('never mutates its input', () => {
    const existing = deepFreeze(
      addAll([
        { content: 'I prefer Python for scripts', type: 'preference' },
        {
          content: 'The nightly backup job copies the production database to the eu-west bucket',
          tags: ['ops'],
        },
      ]),
    );
    const drafts = deepFreeze([
      { content: 'I prefer Rust for scripts', type: 'preference' as const },
      {
        content: 'The nightly backup jobs copy the production database to the eu-west buckets',
        tags: ['new'],
      },
    ]);
    const snapshot = JSON.stringify(existing);
    const result = merge(existing, drafts);
    expect(JSON.stringify(existing)).toBe(snapshot);
    expect(result.cards).not.toBe(existing);
    expect(current(result.cards)).toHaveLength(2);
  });

  it('rejects malformed drafts with InvalidArgumentError', () => {
    const bad = [
      { content: '' },
      { content: 'x'.repeat(10_001) },
      { content: 'x', type: 'belief' },
      { content: 'x', tags: [1] },
      { content: 'x', source: 5 },
    ] as unknown as MemoryCardDraft[];
    for (const draft of bad) {
      let error: unknown;
      try {
        merge([], [draft]);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error), JSON.stringify(draft).slice(0, 60)).toBe(true);
    }
  });

  it('keeps its invariants for any sequence of drafts', () => {
    const words = [
      'python',
      'rust',
      'scripts',
      'prefer',
      'deploy',
      'friday',
      'not',
      'we',
      'the',
      '用户',
      '喜欢',
      'api',
    ];
    const draft = fc.record({
      content: fc
        .array(fc.constantFrom(...words), { minLength: 1, maxLength: 7 })
        .map((list) => list.join(' ')),
      type: fc.constantFrom<MemoryCardType>('preference', 'decision', 'fact', 'todo'),
    });
    fc.assert(
      fc.property(fc.array(draft, { maxLength: 12 }), (drafts) => {
        const result = merge([], drafts);
        const ids = new Set(result.cards.map((card) => card.id));
        expect(ids.size).toBe(result.cards.length);
        expect(result.results).toHaveLength(drafts.length);
        for (const card of result.results) expect(ids.has(card.id)).toBe(true);
        for (const card of result.cards) {
          if (card.supersededBy !== undefined) expect(ids.has(card.supersededBy)).toBe(true);
        }
        // No two current cards are exact duplicates of each other.
        const normalized = result.cards
          .filter((card) => card.supersededBy === undefined)
          .map((card) => normalizeCardContent(card.content));
        expect(new Set(normalized).size).toBe(normalized.length);
        // Adding the current cards again changes nothing.
        const again = merge(
          result.cards,
          result.cards
            .filter((card) => card.supersededBy === undefined)
            .map(({ content, type, tags }) => ({ content, type, tags })),
        );
        expect(again.changed).toBe(false);
      }),
      { numRuns: 150 },
    );
  });
});

describe('createCardIndex', () => {
  const words = ['python', 'rust', 'go', 'scripts', 'prefer', 'deploy', 'friday', 'monday'];
  const extra = ['not', 'we', 'the', 'api', 'tests', 'always', 'use', 'for', '喜欢', '用户'];
  const draft = fc.record({
    content: fc
      .array(fc.constantFrom(...words, ...extra), { minLength: 1, maxLength: 8 })
      .map((list) => list.join(' ')),
    type: fc.constantFrom<MemoryCardType>('preference', 'decision', 'constraint', 'fact'),
    tags: fc.array(fc.constantFrom('a', 'b'), { maxLength: 1 }),
  });

  it('finds exactly what comparing with every card finds, batch after batch', () => {
    fc.assert(
      fc.property(fc.array(fc.array(draft, { maxLength: 8 }), { maxLength: 6 }), (batches) => {
        let indexedId = 0;
        let scannedId = 0;
        const index = createCardIndex();
        let scanned: MemoryCard[] = [];
        for (const batch of batches) {
          const indexed = index.merge(batch, {
            scope,
            now: 'now',
            generateId: () => `card-${indexedId++}`,
          });
          const reference = mergeCardsByScan(scanned, batch, {
            scope,
            now: 'now',
            generateId: () => `card-${scannedId++}`,
          });
          scanned = reference.cards;
          expect(indexed.outcomes).toEqual(reference.outcomes);
          expect(indexed.results).toEqual(reference.results);
          expect(indexed.changed).toBe(reference.changed);
          expect(index.cards()).toEqual(reference.cards);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds the near duplicates comparing with every card finds', () => {
    const vocabulary =
      'alpha bravo charlie delta echo golf hotel india kilo lima mike oscar papa'.split(' ');
    const sentence = fc.uniqueArray(fc.constantFrom(...vocabulary), {
      minLength: 6,
      maxLength: 10,
    });
    // Variants of a few sentences, each missing at most one word: near duplicates of each other.
    const variants = fc.tuple(
      fc.array(sentence, { minLength: 1, maxLength: 3 }),
      fc.array(fc.tuple(fc.nat(2), fc.integer({ min: -1, max: 9 })), { maxLength: 12 }),
    );
    fc.assert(
      fc.property(variants, ([sentences, picks]) => {
        const drafts = picks.map(([which, dropped]) => ({
          content: sentences[which % sentences.length]!.filter((_, at) => at !== dropped).join(' '),
          tags: [`t${dropped}`],
        }));
        let indexedId = 0;
        let scannedId = 0;
        const indexed = createCardIndex().merge(drafts, {
          scope,
          now: 'now',
          generateId: () => `card-${indexedId++}`,
        });
        const reference = mergeCardsByScan([], drafts, {
          scope,
          now: 'now',
          generateId: () => `card-${scannedId++}`,
        });
        expect(indexed.outcomes).toEqual(reference.outcomes);
        expect(indexed.results).toEqual(reference.results);
      }),
      { numRuns: 300 },
    );
  });

  it('stays consistent after removals', () => {
    const index = createCardIndex();
    const merged = index.merge(
      [
        { content: 'I prefer Python for scripts', type: 'preference' },
        { content: 'The deploy runs on Fridays' },
      ],
      options(),
    );
    expect(index.remove([merged.results[0]!.id, 'missing'])).toBe(true);
    expect(index.remove(['missing'])).toBe(false);
    // The removed card is no longer a duplicate, nor superseded by its replacement.
    const again = index.merge(
      [
        { content: 'I prefer Python for scripts', type: 'preference' },
        { content: 'The deploy runs on Fridays.' },
      ],
      options(),
    );
    expect(again.outcomes.map((outcome) => outcome.kind)).toEqual(['added', 'duplicate']);
    expect(index.size).toBe(2);
  });

  it('is left as it was when a merge throws midway', () => {
    const index = createCardIndex();
    index.merge([{ content: 'I prefer Python for scripts', type: 'preference' }], options());
    const before = index.cards();
    let calls = 0;
    expect(() =>
      index.merge(
        [
          { content: 'I prefer Rust for scripts', type: 'preference' },
          { content: 'The backup runs nightly', tags: ['ops'] },
        ],
        {
          scope,
          now: 'later',
          generateId: () => {
            calls++;
            if (calls === 2) throw new Error('no more ids');
            return `generated-${calls}`;
          },
        },
      ),
    ).toThrow('no more ids');
    expect(index.cards()).toEqual(before);
    // The look-ups were rolled back too: the old preference is still current and supersedable.
    const retry = index.merge(
      [{ content: 'I prefer Rust for scripts', type: 'preference' }],
      options(),
    );
    expect(retry.outcomes[0]).toMatchObject({ kind: 'added', superseded: [before[0]!.id] });
  });
});
