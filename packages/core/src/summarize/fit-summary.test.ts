import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StructuredSummary, SummarySections, TokenCounter } from '../contracts/index.js';
import { BudgetExceededError, InvalidArgumentError } from '../errors/index.js';
import { emptySections, fitSummary, renderSummary } from './index.js';

const counter: TokenCounter = {
  name: 'chars/4',
  promptOverhead: 3,
  countText: (text) => Math.ceil(text.length / 4),
  countMessage: () => 4,
  countMessages: (messages) => 3 + 4 * messages.length,
};

/** Not additive: joining lines costs extra, so per-line estimates undercount. */
const lumpyCounter: TokenCounter = {
  ...counter,
  name: 'lumpy',
  countText: (text) => Math.ceil(text.length / 3) + 2 * (text.match(/\n/g)?.length ?? 0),
};

const tokensOf = (summary: StructuredSummary) => counter.countText(renderSummary(summary));

function summaryOf(sections: Partial<SummarySections>, freeText?: string): StructuredSummary {
  const summary: StructuredSummary = { sections: { ...emptySections(), ...sections } };
  if (freeText !== undefined) summary.freeText = freeText;
  return summary;
}

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const bullets = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix} number ${index} with some padding text`);

describe('fitSummary', () => {
  it('returns the summary itself when it already fits', () => {
    const summary = summaryOf({ goal: ['Ship the CLI'] });
    expect(fitSummary(summary, 100, counter)).toBe(summary);
  });

  it("gives a run's timestamp to the next kept bullet when the bullet that carried it is dropped", () => {
    const summary = deepFreeze(
      summaryOf({
        keyFacts: [
          '(1 May, 2024) Alice: adopted a greyhound named Biscuit from the shelter',
          'Alice: started a pottery class',
          'Bob: ran a half marathon',
          '(2 May, 2024) Bob: moved to Leeds',
        ],
      }),
    );
    const expected = [
      '(1 May, 2024) Alice: started a pottery class',
      'Bob: ran a half marathon',
      '(2 May, 2024) Bob: moved to Leeds',
    ];
    const budget = tokensOf(summaryOf({ keyFacts: expected }));
    const fitted = fitSummary(summary, budget, counter);
    expect(fitted.sections.keyFacts).toEqual(expected);
    expect(tokensOf(fitted)).toBeLessThanOrEqual(budget);
  });

  it('drops snippets and background before constraints, decisions and the goal', () => {
    const kept = {
      goal: ['Build a CSV to JSON converter'],
      constraints: ['Never add runtime dependencies'],
      decisions: ['Use TypeScript'],
    };
    const summary = deepFreeze(
      summaryOf({ ...kept, snippets: bullets('snippet', 5), background: bullets('background', 5) }),
    );
    const budget = tokensOf(summaryOf(kept)) + 10;
    const fitted = fitSummary(summary, budget, counter);
    expect(tokensOf(fitted)).toBeLessThanOrEqual(budget);
    expect(fitted.sections.goal).toEqual(kept.goal);
    expect(fitted.sections.constraints).toEqual(kept.constraints);
    expect(fitted.sections.decisions).toEqual(kept.decisions);
    expect(fitted.sections.snippets.length + fitted.sections.background.length).toBeLessThan(10);
  });

  it('drops the oldest bullets of a section first, so the newest survive', () => {
    const summary = summaryOf({ keyFacts: bullets('fact', 10) });
    const budget = tokensOf(summaryOf({ keyFacts: bullets('fact', 10).slice(7) })) + 2;
    const fitted = fitSummary(summary, budget, counter);
    expect(fitted.sections.keyFacts).toEqual(bullets('fact', 10).slice(7));
  });

  it('takes key facts and TODOs in turn rather than emptying one of them', () => {
    const summary = summaryOf({ keyFacts: bullets('fact', 6), todos: bullets('todo', 6) });
    const fitted = fitSummary(summary, Math.floor(tokensOf(summary) / 2), counter);
    expect(fitted.sections.keyFacts.length).toBeGreaterThan(0);
    expect(fitted.sections.todos.length).toBeGreaterThan(0);
    expect(Math.abs(fitted.sections.keyFacts.length - fitted.sections.todos.length)).toBeLessThan(
      2,
    );
  });

  it('keeps the original goal longest', () => {
    const summary = summaryOf({ goal: ['The original goal', ...bullets('later goal', 4)] });
    const budget = tokensOf(summaryOf({ goal: ['The original goal'] })) + 1;
    expect(fitSummary(summary, budget, counter).sections.goal).toEqual(['The original goal']);
  });

  it('cuts free text before touching constraints', () => {
    const summary = summaryOf({ constraints: ['Must stay offline'] }, 'word '.repeat(400));
    const budget = tokensOf(summaryOf({ constraints: ['Must stay offline'] })) + 30;
    const fitted = fitSummary(summary, budget, counter);
    expect(tokensOf(fitted)).toBeLessThanOrEqual(budget);
    expect(fitted.sections.constraints).toEqual(['Must stay offline']);
    expect(fitted.freeText).toMatch(/^word word .*…$/);
  });

  it('cuts free text further before dropping the constraints and decisions kept', () => {
    const summary = summaryOf(
      { constraints: bullets('constraint', 3), decisions: bullets('decision', 3) },
      'free text '.repeat(200),
    );
    const budget = tokensOf(summaryOf(summary.sections)) + 40;
    const fitted = fitSummary(summary, budget, lumpyCounter);
    expect(lumpyCounter.countText(renderSummary(fitted))).toBeLessThanOrEqual(budget);
    expect(fitted.sections.constraints.length + fitted.sections.decisions.length).toBeGreaterThan(
      3,
    );
  });

  it('shortens the last bullet instead of dropping it when that is enough', () => {
    const summary = summaryOf({ goal: [`Build ${'a very long goal '.repeat(50)}`] });
    const fitted = fitSummary(summary, 60, counter);
    expect(tokensOf(fitted)).toBeLessThanOrEqual(60);
    expect(fitted.sections.goal).toHaveLength(1);
    expect(fitted.sections.goal[0]).toMatch(/^Build a very long goal .*…$/);
  });

  it('throws BudgetExceededError when not even the heading fits', () => {
    const summary = summaryOf({ goal: ['x'] });
    expect(() => fitSummary(summary, 2, counter)).toThrowError(
      expect.objectContaining({ name: 'CtxmemBudgetExceededError', budgetTokens: 2 }),
    );
    try {
      fitSummary(summary, 2, counter);
    } catch (error) {
      expect(BudgetExceededError.isInstance(error)).toBe(true);
    }
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])('rejects a budget of %s', (budget) => {
    expect(() => fitSummary(summaryOf({}), budget, counter)).toThrowError(
      expect.objectContaining({ argument: 'maxTokens' }),
    );
    let caught: unknown;
    try {
      fitSummary(summaryOf({}), budget, counter);
    } catch (error) {
      caught = error;
    }
    expect(InvalidArgumentError.isInstance(caught)).toBe(true);
  });

  it('always fits, keeps bullets in order, invents nothing and leaves its input alone', () => {
    const section = fc.array(fc.string({ minLength: 1, maxLength: 80 }), { maxLength: 8 });
    const sections = fc.record({
      goal: section,
      background: section,
      keyFacts: section,
      constraints: section,
      decisions: section,
      todos: section,
      snippets: section,
    });
    fc.assert(
      fc.property(
        sections,
        fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
        fc.integer({ min: 30, max: 400 }),
        fc.constantFrom(counter, lumpyCounter),
        (generated, freeText, budget, anyCounter) => {
          const summary = deepFreeze(summaryOf(generated, freeText));
          const fitted = fitSummary(summary, budget, anyCounter);
          expect(anyCounter.countText(renderSummary(fitted))).toBeLessThanOrEqual(budget);
          for (const key of Object.keys(generated) as Array<keyof SummarySections>) {
            const original = generated[key];
            let cursor = 0;
            for (const bullet of fitted.sections[key]) {
              // Each kept bullet is an original one (or, for the last one left, its shortened head).
              while (
                cursor < original.length &&
                original[cursor] !== bullet &&
                !(bullet.endsWith('…') && original[cursor]!.startsWith(bullet.slice(0, -1)))
              ) {
                cursor++;
              }
              expect(cursor).toBeLessThan(original.length);
              cursor++;
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
