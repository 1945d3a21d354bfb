import { describe, expect, it } from 'vitest';
import { anchorRelativeDates, parseSessionDate } from './relative-dates.js';

/** Session dates as transcripts write them, and the calendar day each one names. */
const SESSIONS = {
  // A Monday.
  may: '1:56 pm on 8 May, 2023',
  // A Friday after a leap day.
  leap: '2024-03-01 10:02',
  // A Sunday at a year boundary.
  newYear: '2023年1月1日 9:00',
} as const;

const anchor = (text: string, session: keyof typeof SESSIONS) =>
  anchorRelativeDates(text, parseSessionDate(SESSIONS[session])!);

describe('parseSessionDate', () => {
  it.each([
    ['1:56 pm on 8 May, 2023', '2023-05-08'],
    ['Session 16, 2:55 pm on 31 August, 2023', '2023-08-31'],
    ['May 8th, 2023 at noon', '2023-05-08'],
    ['2024-03-01 10:02', '2024-03-01'],
    ['2023年1月1日 9:00', '2023-01-01'],
  ])('reads %s', (timestamp, day) => {
    expect(parseSessionDate(timestamp)?.toISOString().slice(0, 10)).toBe(day);
  });

  it.each(['3:31 pm', 'Monday', '31 February, 2023', 'version 2.1.0'])(
    'finds no date in %s',
    (timestamp) => {
      expect(parseSessionDate(timestamp)).toBeUndefined();
    },
  );
});

describe('anchorRelativeDates', () => {
  it.each([
    ['may', 'I went there yesterday.', 'yesterday (7 May 2023)'],
    ['may', 'Yesterday my friends and I recorded a podcast.', 'Yesterday (7 May 2023) my'],
    ['may', 'It was two days ago.', 'two days ago (6 May 2023)'],
    ['may', 'It was 3 days ago.', '3 days ago (5 May 2023)'],
    ['may', 'We met the day before yesterday.', 'the day before yesterday (6 May 2023)'],
    ['may', 'See you tomorrow.', 'tomorrow (9 May 2023)'],
    ['may', 'I started last week.', 'last week (the week before 8 May 2023)'],
    ['may', 'We hiked last weekend.', 'last weekend (the weekend before 8 May 2023)'],
    ['may', 'The show is next month.', 'next month (June 2023)'],
    ['may', 'I moved last month.', 'last month (April 2023)'],
    ['may', 'I graduated last year.', 'last year (2022)'],
    ['may', 'It happened three weeks ago.', 'three weeks ago (the week of 17 April 2023)'],
    ['may', 'We leave in two weeks.', 'in two weeks (the week of 22 May 2023)'],
    ['may', 'I bought it last Friday.', 'last Friday (5 May 2023)'],
    ['may', 'The race is next Friday.', 'next Friday (12 May 2023)'],
    ['may', 'I called her last Monday.', 'last Monday (1 May 2023)'],
    // Short weekday names, as chats write them.
    ['may', 'I went last Fri with Bo.', 'last Fri (5 May 2023) with'],
    ['may', 'We joined last Tues. at noon.', 'last Tues. (2 May 2023) at'],
    ['may', 'Last Sat we hiked.', 'Last Sat (6 May 2023) we'],
    ['may', 'Next Wed works for me.', 'Next Wed (10 May 2023) works'],
    // The week of the session, and the week or weekend just gone.
    ['may', 'I applied this week.', 'this week (the week of 8 May 2023)'],
    [
      'may',
      'The trip this past weekend was long.',
      'this past weekend (the weekend before 8 May 2023)',
    ],
    ['may', 'In the past week I ran twice.', 'past week (the week before 8 May 2023)'],
    // The weekend before last: counted from the last Saturday before the session (6 May).
    ['may', 'We camped two weekends ago.', 'two weekends ago (the weekend of 29 April 2023)'],
    ['leap', 'I arrived yesterday.', 'yesterday (29 February 2024)'],
    ['leap', 'It was two days ago.', 'two days ago (28 February 2024)'],
    ['leap', 'I quit last month.', 'last month (February 2024)'],
    ['leap', 'We met last Friday.', 'last Friday (23 February 2024)'],
    ['newYear', 'The party was yesterday.', 'yesterday (31 December 2022)'],
    ['newYear', 'I started last month.', 'last month (December 2022)'],
    ['newYear', 'The trip is next month.', 'next month (February 2023)'],
    ['newYear', 'I moved here a year ago.', 'a year ago (2022)'],
  ] as const)('%s: %s', (session, text, expected) => {
    expect(anchor(text, session)).toContain(expected);
  });

  it.each([
    ['may', '我昨天去了北京。', '昨天（2023年5月7日）'],
    ['may', '两天前我们录了播客。', '两天前（2023年5月6日）'],
    ['may', '前天下雨了。', '前天（2023年5月6日）'],
    ['may', '3天后出发。', '3天后（2023年5月11日）'],
    ['may', '上周我开始学吉他。', '上周（2023年5月8日的前一周）'],
    ['may', '下周见。', '下周（2023年5月8日的后一周）'],
    ['may', '下个月搬家。', '下个月（2023年6月）'],
    ['may', '去年毕业。', '去年（2022年）'],
    ['leap', '我昨天到的。', '昨天（2024年2月29日）'],
    ['leap', '上个月辞职了。', '上个月（2024年2月）'],
    ['newYear', '昨天是除夕。', '昨天（2022年12月31日）'],
    ['newYear', '上个月很忙。', '上个月（2022年12月）'],
    ['newYear', '下个月开学。', '下个月（2023年2月）'],
  ] as const)('%s: %s', (session, text, expected) => {
    expect(anchor(text, session)).toContain(expected);
  });

  it('leaves weekdays of a named week and unknown counts alone', () => {
    expect(anchor('上周一我们见面了。', 'may')).toBe('上周一我们见面了。');
    expect(anchor('A few days ago we met.', 'may')).toBe('A few days ago we met.');
    expect(anchor('This Friday works.', 'may')).toBe('This Friday works.');
  });

  it('leaves the words that only look like a date alone', () => {
    // A verb, not Saturday; rolling periods, not calendar ones; a weekend that may be either.
    for (const text of [
      'He last sat down by the door.',
      'The last sun in the garden faded.',
      'The past year was hard.',
      'This weekend is busy.',
      'Our last monthly report was late.',
    ]) {
      expect(anchor(text, 'may')).toBe(text);
    }
  });

  it('does not date an expression twice (a summary is rewritten on every compaction)', () => {
    const once = anchor('Yesterday I ran, and 两天前 I swam; next month I race.', 'may');
    expect(anchor(once, 'may')).toBe(once);
    expect(once).toBe(
      'Yesterday (7 May 2023) I ran, and 两天前（2023年5月6日） I swam; next month (June 2023) I race.',
    );
  });

  it('is linear on long adversarial input', () => {
    const text = 'yesterday '.repeat(20_000) + 'in in in '.repeat(20_000);
    const started = performance.now();
    const anchored = anchor(text, 'may');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(anchored.match(/\(7 May 2023\)/g)).toHaveLength(20_000);
  });
});
