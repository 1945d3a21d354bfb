import { describe, expect, it } from 'vitest';
import {
  dateTerms,
  fallsInDateRanges,
  isTimeQuestion,
  mentionsTime,
  type QuestionDateRange,
  questionDateRanges,
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

/** A range as ISO days ("2023-05-08..2023-05-09", end exclusive), or "month 4" for any May. */
function shown(ranges: QuestionDateRange[]): string[] {
  const day = (time: number) => new Date(time).toISOString().slice(0, 10);
  return ranges.map((range) =>
    range.month === undefined ? `${day(range.start)}..${day(range.end)}` : `month ${range.month}`,
  );
}

describe('questionDateRanges', () => {
  it('reads a day written in the usual ways', () => {
    for (const question of [
      'What did Ana cook on 9 November, 2022?',
      'What did Ana cook on the 9th of November 2022?',
      'What did Ana cook on November 9, 2022?',
      'What did Ana cook on Nov. 9th,2022?',
      'What did Ana cook on 2022-11-09?',
    ]) {
      expect(shown(questionDateRanges(question)), question).toEqual(['2022-11-09..2022-11-10']);
    }
  });

  it('reads the week before or after a day as that week, the day included', () => {
    expect(shown(questionDateRanges('Where was Ana the week before 16 November 2023?'))).toEqual([
      '2023-11-09..2023-11-17',
    ]);
    expect(shown(questionDateRanges('What did Ana do the weekend after May 6, 2023?'))).toEqual([
      '2023-05-06..2023-05-14',
    ]);
  });

  it('reads a month with its year, a month alone after a preposition, and a year', () => {
    expect(shown(questionDateRanges('Which race did Ana run in May 2023?'))).toEqual([
      '2023-05-01..2023-06-01',
    ]);
    expect(shown(questionDateRanges('What did Ana win at the end of December, 2022?'))).toEqual([
      '2022-12-01..2023-01-01',
    ]);
    expect(shown(questionDateRanges('When did Ana go camping in June?'))).toEqual(['month 5']);
    expect(shown(questionDateRanges('How often did Ana swim in 2023?'))).toEqual([
      '2023-01-01..2024-01-01',
    ]);
  });

  it('resolves relative expressions against now, and only with it', () => {
    const now = new Date(Date.UTC(2023, 4, 8, 13, 56));
    const resolved = (question: string) => shown(questionDateRanges(question, now));
    expect(resolved('What did we talk about yesterday?')).toEqual(['2023-05-07..2023-05-08']);
    expect(resolved('What did I cook last Friday?')).toEqual(['2023-05-05..2023-05-06']);
    expect(resolved('What did I do last week?')).toEqual(['2023-05-01..2023-05-09']);
    expect(resolved('What happened three weeks ago?')).toEqual(['2023-04-14..2023-04-21']);
    expect(resolved('What did I buy last month?')).toEqual(['2023-04-01..2023-05-01']);
    expect(resolved('Where did I travel last year?')).toEqual(['2022-01-01..2023-01-01']);
    expect(questionDateRanges('What did I do last week?')).toEqual([]);
    expect(questionDateRanges('What did I do last week?', new Date(Number.NaN))).toEqual([]);
  });

  it('finds nothing in "may" the verb, or dates that do not exist', () => {
    expect(questionDateRanges('May I ask what Ana may like?')).toEqual([]);
    expect(questionDateRanges('What happened on 31 February 2023?')).toEqual([]);
    expect(questionDateRanges('How many of the 3000 runners finished?')).toEqual([]);
  });

  it('reads every date a question names', () => {
    expect(shown(questionDateRanges('Did Ana move between March 2022 and 2023-01-15?'))).toEqual([
      '2022-03-01..2022-04-01',
      '2023-01-15..2023-01-16',
    ]);
  });

  it('keeps the first 16 dates, and is linear on long input that almost names one', () => {
    expect(questionDateRanges('in 2023 '.repeat(100))).toHaveLength(16);
    const text = `${'before 1 of '.repeat(20_000)}${'in Mayo '.repeat(20_000)}${'May 1, 20 '.repeat(20_000)}`;
    const started = performance.now();
    expect(questionDateRanges(text)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('fallsInDateRanges', () => {
  const day = (year: number, month: number, date: number) => Date.UTC(year, month, date, 15, 30);

  it('matches a card written within a range', () => {
    const ranges = questionDateRanges('What did Ana say on 8 May, 2023?');
    expect(fallsInDateRanges(ranges, day(2023, 4, 8), '')).toBe(true);
    expect(fallsInDateRanges(ranges, day(2023, 4, 9), '')).toBe(false);
  });

  it('matches a card whose text points to a month or year within a range, not one wider', () => {
    const april = questionDateRanges('What did Ana do in April 2023?');
    // Written in May about "last month".
    expect(fallsInDateRanges(april, day(2023, 4, 8), 'May 2023 April 2023')).toBe(true);
    expect(fallsInDateRanges(april, day(2023, 4, 8), 'May 2023 2023')).toBe(false);
    const year = questionDateRanges('What did Ana do in 2022?');
    expect(fallsInDateRanges(year, day(2023, 4, 8), 'May 2023 2022')).toBe(true);
    expect(fallsInDateRanges(year, day(2023, 4, 8), 'May 2023 December 2022')).toBe(true);
  });

  it('matches a month named without a year in any year, and nothing without a date', () => {
    const june = questionDateRanges('Where did Ana go in June?');
    expect(fallsInDateRanges(june, day(2021, 5, 30), '')).toBe(true);
    expect(fallsInDateRanges(june, day(2021, 6, 1), '')).toBe(false);
    expect(fallsInDateRanges(june, 0, '')).toBe(false);
  });
});
