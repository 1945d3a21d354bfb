import { describe, expect, it } from 'vitest';
import {
  dateTerms,
  isTimeQuestion,
  mentionsTime,
  resolveDateExpressions,
} from './date-expressions.js';

// A Monday.
const written = new Date(Date.UTC(2023, 4, 8, 13, 56));

describe('dateTerms', () => {
  it('names the month the text was written in', () => {
    expect(dateTerms('We planted tomatoes.', written)).toBe('May 2023');
  });

  it('resolves relative expressions against the time of writing, each month once', () => {
    expect(dateTerms('Yesterday was fun, and so was last night.', written)).toBe('May 2023');
    expect(dateTerms('We moved last year.', written)).toBe('May 2023 2022');
    expect(dateTerms('I started a couple of weeks ago.', written)).toBe('May 2023 April 2023');
    expect(dateTerms('The trip was two months ago.', written)).toBe('May 2023 March 2023');
    expect(dateTerms('The show is next month.', written)).toBe('May 2023 June 2023');
    expect(dateTerms('It closed 3 years ago.', written)).toBe('May 2023 2020');
  });

  it('crosses month and year boundaries', () => {
    const newYear = new Date(Date.UTC(2024, 0, 2));
    expect(dateTerms('I saw it last week.', newYear)).toBe('January 2024 December 2023');
    expect(dateTerms('We met last month.', newYear)).toBe('January 2024 December 2023');
  });

  it('reads numeric dates without a reference, and ignores relative ones then', () => {
    expect(dateTerms('Due on 2022-11-03, drafted yesterday.')).toBe('November 2022');
    expect(dateTerms('Released 2021-07.')).toBe('July 2021');
    expect(dateTerms('Nothing dated here.')).toBe('');
  });

  it('ignores an invalid time of writing', () => {
    expect(dateTerms('Yesterday.', new Date(Number.NaN))).toBe('');
  });
});

describe('resolveDateExpressions', () => {
  it('finds the weekday before or after the time of writing', () => {
    const [last] = resolveDateExpressions('last Friday', written);
    expect(last?.date.toISOString().slice(0, 10)).toBe('2023-05-05');
    const [sameDay] = resolveDateExpressions('last Monday', written);
    expect(sameDay?.date.toISOString().slice(0, 10)).toBe('2023-05-01');
    const [next] = resolveDateExpressions('next Wednesday', written);
    expect(next?.date.toISOString().slice(0, 10)).toBe('2023-05-10');
  });

  it('is linear on long adversarial input', () => {
    const text = `${'last '.repeat(20_000)}${'2023-'.repeat(20_000)}${'a couple of '.repeat(10_000)}`;
    const started = performance.now();
    resolveDateExpressions(text, written);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('isTimeQuestion', () => {
  it('recognises questions about when or how long', () => {
    for (const question of [
      'When did she start pottery?',
      'What year did they move?',
      'In which month was the concert?',
      'How long has he been running?',
      'since when is it open',
    ]) {
      expect(isTimeQuestion(question), question).toBe(true);
    }
  });

  it('does not take a when inside another question for one', () => {
    expect(isTimeQuestion('What did she paint when she was sad?')).toBe(false);
    expect(isTimeQuestion('Who came to the party?')).toBe(false);
  });
});

describe('mentionsTime', () => {
  it('sees relative expressions, units, weekdays, months and years', () => {
    for (const text of [
      'I went yesterday',
      'two weeks of rain',
      'on Friday',
      'In May',
      'since 2019',
    ]) {
      expect(mentionsTime(text), text).toBe(true);
    }
  });

  it('does not take the verb may for the month', () => {
    expect(mentionsTime('I may come along')).toBe(false);
  });
});
