import { describe, expect, it } from 'vitest';
import type { MemoryCardDraft, Scope } from '../contracts/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createFakeClock } from '../test/clock.js';
import { createMemorySearch, type MemorySearchOptions } from './index.js';

const alice: Scope = { userId: 'alice' };

/** A store whose clock is in 2026, holding `drafts` added in one call. */
async function storeWith(drafts: MemoryCardDraft[]) {
  const store = createInMemoryMemoryStore({ clock: createFakeClock('2026-01-01T00:00:00.000Z') });
  await store.add(alice, drafts);
  return store;
}

/** Content → score of the hits, best first (BM25: the words decide, nothing else). */
async function scoresFor(
  drafts: MemoryCardDraft[],
  query: string,
  options: Partial<MemorySearchOptions> = {},
): Promise<Map<string, number>> {
  const search = createMemorySearch({ store: await storeWith(drafts), mode: 'bm25', ...options });
  const hits = await search.search(alice, query, { topK: 10 });
  return new Map(hits.map((hit) => [hit.card.content, hit.score]));
}

async function contentsFor(
  drafts: MemoryCardDraft[],
  query: string,
  options: Partial<MemorySearchOptions> = {},
): Promise<string[]> {
  return [...(await scoresFor(drafts, query, options)).keys()];
}

describe('createMemorySearch with episodes', () => {
  it('reads a transcript imported later in the order and at the dates it happened', async () => {
    // Added answer first, three years after it was said: `occurredAt` gives the order and date.
    const drafts: MemoryCardDraft[] = [
      { content: 'Six years now, it flew by!', occurredAt: '2023-05-08T10:01:00Z' },
      { content: 'Anyway, see you on the weekend.', occurredAt: '2023-05-08T10:02:00Z' },
      { content: 'How long have you lived in Porto?', occurredAt: '2023-05-08T10:00:00Z' },
      { content: 'We adopted a puppy last week.', occurredAt: '2023-08-01T09:00:00Z' },
    ].map((draft): MemoryCardDraft => ({ ...draft, type: 'episode' }));
    const answer = 'Six years now, it flew by!';
    expect(await contentsFor(drafts, 'How long have they lived in Porto?')).toContain(answer);
    // As facts, the answer shares no word with the question and nothing leads to it.
    const facts = drafts.map((draft): MemoryCardDraft => ({ ...draft, type: 'fact' }));
    expect(await contentsFor(facts, 'How long have they lived in Porto?')).not.toContain(answer);
    // The date it happened is searchable, not the date it was added.
    expect((await contentsFor(drafts, 'What happened in August 2023?'))[0]).toBe(
      'We adopted a puppy last week.',
    );
  });

  describe('speakerBoost', () => {
    const episodes: MemoryCardDraft[] = [
      { content: 'Ana: I painted the lake at dawn, the lake was calm.' },
      { content: 'Samantha: I painted a sunrise with my kids.' },
      { content: 'Dr Lee: Painting by the lake helps many patients.' },
      // Samantha speaks often, so her name alone says little to BM25.
      { content: 'Samantha: Good morning, Ana!' },
      { content: 'Samantha: Thanks, Ana, see you soon.' },
      { content: 'Samantha: That sounds great, Ana.' },
    ].map(
      (draft, minute): MemoryCardDraft => ({
        ...draft,
        type: 'episode',
        occurredAt: new Date(Date.UTC(2023, 4, 8, 10, minute * 10)).toISOString(),
      }),
    );
    const query = 'What did Samantha paint by the lake?';

    it('ranks first what the speaker a query names said, when it is an episode', async () => {
      const without = await contentsFor(episodes, query, {
        sequenceContext: { speakerBoost: 0 },
      });
      expect(without[0]).not.toMatch(/^Samantha:/);
      expect((await contentsFor(episodes, query))[0]).toBe(
        'Samantha: I painted a sunrise with my kids.',
      );
      // "Samantha's" names her as well.
      expect((await contentsFor(episodes, "Samantha's painting by the lake?"))[0]).toMatch(
        /^Samantha:/,
      );
    });

    it('multiplies by 1 + speakerBoost only when the query has every word of the label', async () => {
      const lee = 'Dr Lee: Painting by the lake helps many patients.';
      const ratio = async (question: string) => {
        const boosted = await scoresFor(episodes, question, {
          sequenceContext: { speakerBoost: 3 },
        });
        const plain = await scoresFor(episodes, question, { sequenceContext: { speakerBoost: 0 } });
        return boosted.get(lee)! / plain.get(lee)!;
      };
      expect(await ratio('Did Dr Lee paint at the lake?')).toBeCloseTo(4, 10);
      expect(await ratio('Who painted by the lake, Lee?')).toBeCloseTo(1, 10);
    });

    it('boosts the speaker the query is about: the one named first, and those joined by "and"', async () => {
      const lee = 'Dr Lee: Painting by the lake helps many patients.';
      const samantha = 'Samantha: I painted a sunrise with my kids.';
      const ratios = async (question: string) => {
        const boosted = await scoresFor(episodes, question, {
          sequenceContext: { speakerBoost: 3 },
        });
        const plain = await scoresFor(episodes, question, { sequenceContext: { speakerBoost: 0 } });
        return [lee, samantha].map((content) => boosted.get(content)! / plain.get(content)!);
      };
      const [leeFor, samanthaFor] = await ratios('What did Samantha paint by the lake for Dr Lee?');
      expect(leeFor).toBeCloseTo(1, 10);
      expect(samanthaFor).toBeCloseTo(4, 10);
      const [leeTold, samanthaTold] = await ratios('What did Dr Lee tell Samantha about the lake?');
      expect(leeTold).toBeCloseTo(4, 10);
      expect(samanthaTold).toBeCloseTo(1, 10);
      const [leeBoth, samanthaBoth] = await ratios('Where do Samantha and Dr Lee paint the lake?');
      expect(leeBoth).toBeCloseTo(4, 10);
      expect(samanthaBoth).toBeCloseTo(4, 10);
    });

    it('leaves self-contained cards alone', async () => {
      const facts = episodes.map((draft): MemoryCardDraft => ({ ...draft, type: 'fact' }));
      expect(await scoresFor(facts, query)).toEqual(
        await scoresFor(facts, query, { sequenceContext: false }),
      );
      expect((await contentsFor(facts, query))[0]).toMatch(/^Ana:/);
    });
  });

  describe('questionWeight', () => {
    // Ben's reply shares no word with the later question; Ana's question does.
    const turns: MemoryCardDraft[] = [
      { content: 'Ana: How often do you all go climbing together?' },
      { content: 'Ben: Three times a week, it keeps us on track.' },
      { content: 'Ana: I went climbing last spring.' },
      { content: 'Ben: Nice! See you soon.' },
    ].map(
      (draft, minute): MemoryCardDraft => ({
        ...draft,
        type: 'episode',
        occurredAt: new Date(Date.UTC(2023, 4, 8, 10, minute)).toISOString(),
      }),
    );
    const query = 'How often do they go climbing together?';
    const reply = 'Ben: Three times a week, it keeps us on track.';

    it('passes more from a turn that asks to the turn that answers it', async () => {
      const hitsWith = async (questionWeight: number) => {
        const search = createMemorySearch({
          store: await storeWith(turns),
          mode: 'bm25',
          sequenceContext: { weight: 0.5, questionWeight, window: 1, backwardWeight: 0 },
        });
        const hits = await search.search(alice, query, { topK: 10 });
        return new Map(hits.map((hit) => [hit.card.content, hit]));
      };
      const plain = await hitsWith(0.5);
      const asked = await hitsWith(0.9);
      const asking = plain.get('Ana: How often do you all go climbing together?')!.score;
      expect(plain.get(reply)?.context).toBeCloseTo(asking * 0.5, 10);
      expect(asked.get(reply)?.context).toBeCloseTo(asking * 0.9, 10);
      // A turn that does not ask passes `weight` to the turn after it.
      const statement = plain.get('Ana: I went climbing last spring.')!.score;
      expect(asked.get('Ben: Nice! See you soon.')?.context).toBeCloseTo(statement * 0.5, 10);
    });

    it('rejects a weight outside [0, 1]', async () => {
      for (const questionWeight of [-0.1, 1.5, Number.NaN]) {
        expect(() =>
          createMemorySearch({
            store: createInMemoryMemoryStore(),
            sequenceContext: { questionWeight },
          }),
        ).toThrow(/sequenceContext\.questionWeight/);
      }
    });
  });

  it('ranks self-contained cards exactly as without sequenceContext', async () => {
    const facts: MemoryCardDraft[] = [
      'The user prefers Python for scripts.',
      'Samantha: the deploy runs on Fridays.',
      'The staging database is PostgreSQL 16.',
      'Ana owns the billing service.',
      'Deploys need a green CI run.',
    ].map((content) => ({ content }));
    const search = createMemorySearch({ store: await storeWith(facts) });
    const off = createMemorySearch({ store: await storeWith(facts), sequenceContext: false });
    for (const query of ['When does Samantha deploy?', 'Which database?', 'python scripts']) {
      const scored = (hits: Awaited<ReturnType<typeof search.search>>) =>
        hits.map((hit) => [hit.card.content, hit.score, hit.context]);
      expect(scored(await search.search(alice, query))).toEqual(
        scored(await off.search(alice, query)),
      );
    }
  });
});
