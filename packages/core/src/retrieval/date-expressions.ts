/**
 * Dates for retrieval: a card is indexed with the month it was written in and the months or
 * years its relative expressions point to ("yesterday", "last year", "two weeks ago"), so a
 * question naming a month ("in May 2023") finds cards written then, and a question about when
 * something happened prefers cards that say when. Relative expressions are resolved by the rules
 * summaries use (`anchorRelativeDates`: English and Chinese); dates are calendar days in UTC, and
 * every pattern is a single pass without nested repetition, so the cost is linear in the text.
 */
import {
  anchorRelativeDates,
  MONTH_NAMES,
  monthIndex,
  parseSessionDate,
} from '../summarize/relative-dates.js';

/** A point a text refers to, and how precisely: a year-wide reference names only the year. */
export interface DateMention {
  date: Date;
  precision: 'day' | 'month' | 'year';
}

const DAY_MS = 86_400_000;

/** "2023-05-08" and "2023-05": numeric dates, read as year-month(-day). */
const NUMERIC_DATE = /\b((?:19|20)\d\d)-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?\b/g;

/**
 * The absolute dates `anchorRelativeDates` writes after relative expressions: "(7 May 2023)",
 * "(June 2023)", "(2022)", "(the week before 8 May 2023)", "(the week of 24 April 2023)".
 */
const ANCHORED =
  /\((?:the (?:week|weekend) (before|after) |the week of )?(?:(\d{1,2}) )?([A-Z][a-z]+) (\d{4})\)|\((\d{4})\)/g;
/** The same in Chinese: "（2023年5月6日）", "（2023年6月）", "（2022年）", "（2023年5月8日的前一周）". */
const ANCHORED_CHINESE =
  /（(\d{4})年(?:(\d{1,2})月(?:(\d{1,2})日)?)?(?:的(前|后)一(?:周|个周末)|那一周)?）/gu;

function utcDay(year: number, month: number, day: number): Date {
  return new Date(Date.UTC(year, month, day));
}

/** What `anchorRelativeDates` resolved, read back from the text it wrote. */
function anchoredMentions(anchored: string): DateMention[] {
  const mentions: DateMention[] = [];
  for (const [, direction, day, month, year, onlyYear] of anchored.matchAll(ANCHORED)) {
    if (onlyYear !== undefined) {
      mentions.push({ date: utcDay(Number(onlyYear), 0, 1), precision: 'year' });
      continue;
    }
    const date = parseSessionDate(`${day ?? 1} ${month} ${year}`);
    if (!date) continue;
    // "The week before 8 May" is the seven days before it: its month may be the previous one.
    const shift = direction === 'before' ? -7 : direction === 'after' ? 7 : 0;
    mentions.push({
      date: new Date(date.getTime() + shift * DAY_MS),
      precision: day === undefined ? 'month' : 'day',
    });
  }
  for (const [, year, month, day, direction] of anchored.matchAll(ANCHORED_CHINESE)) {
    if (month === undefined) {
      mentions.push({ date: utcDay(Number(year), 0, 1), precision: 'year' });
      continue;
    }
    const shift = direction === '前' ? -7 : direction === '后' ? 7 : 0;
    const date = utcDay(Number(year), Number(month) - 1, Number(day ?? 1) + shift);
    mentions.push({ date, precision: day === undefined ? 'month' : 'day' });
  }
  return mentions;
}

/**
 * Words (or Chinese characters) without which `anchorRelativeDates` finds nothing: most cards have
 * none, and this test costs a tenth of resolving.
 */
const MAY_BE_RELATIVE =
  /\b(?:yesterday|today|tonight|tomorrow|ago|(?:last|next|this)\s|in\s+(?:\d|an?\s|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))|[\u3400-\u9fff]/i;

/**
 * The dates `text` refers to: numeric dates always, relative expressions ("yesterday", "last
 * year", "3 weeks ago", "last Friday", "两天前") only against a `reference` (when the text was
 * written), resolved by the same rules as the summaries' dates (`anchorRelativeDates`). Month
 * names need no normalising: they are words the query shares as they are.
 */
export function resolveDateExpressions(text: string, reference?: Date): DateMention[] {
  const mentions: DateMention[] = [];
  // A numeric date has a dash: most texts have none, and skip the pattern.
  for (const [, year, month, day] of text.includes('-') ? text.matchAll(NUMERIC_DATE) : []) {
    mentions.push({
      date: utcDay(Number(year), Number(month) - 1, Number(day ?? 1)),
      precision: day === undefined ? 'month' : 'day',
    });
  }
  if (!reference || !Number.isFinite(reference.getTime()) || !MAY_BE_RELATIVE.test(text)) {
    return mentions;
  }
  const anchored = anchorRelativeDates(text, reference);
  // Nothing was resolved: the text is returned as it was.
  if (anchored.length !== text.length) mentions.push(...anchoredMentions(anchored));
  return mentions;
}

/** "May 2023" for a day or month, "2023" for a year. */
function termsOf({ date, precision }: DateMention): string {
  const year = String(date.getUTCFullYear());
  return precision === 'year' ? year : `${MONTH_NAMES[date.getUTCMonth()]} ${year}`;
}

/**
 * Words to index with a card so that questions naming a month or a year find it: the month it
 * was written in (`writtenAt`, when valid) and the months or years its date expressions point
 * to, each once. Empty when there is nothing to add.
 */
export function dateTerms(text: string, writtenAt?: Date): string {
  const valid = writtenAt && Number.isFinite(writtenAt.getTime()) ? writtenAt : undefined;
  const mentions = resolveDateExpressions(text, valid);
  if (valid) mentions.unshift({ date: valid, precision: 'month' });
  return [...new Set(mentions.map(termsOf))].join(' ');
}

/**
 * The query as BM25 and the embedder see it with `dates`: the numeric dates it names are added
 * as the words cards are indexed with ("2023-05-08" also reads "May 2023").
 */
export function queryWithDates(query: string): string {
  const terms = dateTerms(query);
  return terms === '' ? query : `${query}\n${terms}`;
}

/**
 * Questions about when something happened or how long it lasted: "When did…", "What year…",
 * "In which month…", "How long…". Only the start of the question counts: "what did she do when
 * she moved" asks what, not when.
 */
const TIME_QUESTION =
  /^\s*(?:when\b|since when\b|how long\b|(?:in\s+|by\s+)?(?:what|which)\s+(?:year|month|day|date|time|week|weekend)\b)/i;

export function isTimeQuestion(query: string): boolean {
  return TIME_QUESTION.test(query);
}

const TIME_WORDS =
  /\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|earlier|since|(?:last|next|this)\s+(?:night|morning|time|past)|(?:day|week|weekend|month|year)s?|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|june|july|august|september|october|november|december|(?:19|20)\d\d)\b/i;

/**
 * Does the text say when something happened: a relative expression, a weekday, a month, a year
 * or a unit of time? A question about when something happened is most often answered by such a
 * card. "May" counts only capitalised: lower case, it is the verb.
 */
export function mentionsTime(text: string): boolean {
  return TIME_WORDS.test(text) || /\bMay\b/.test(text);
}

/**
 * A span of time a question names: from `start` (inclusive) to `end` (exclusive), in
 * milliseconds, or, for a month named without a year ("in May"), that month of any year.
 */
export type QuestionDateRange =
  | { start: number; end: number; month?: undefined }
  | { month: number; start?: undefined; end?: undefined };

const MONTH_WORD =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const ORDINAL = '(\\d{1,2})(?:st|nd|rd|th)?';
/**
 * "the week before", "last weekend before", "the Sunday after": a day shifted by up to a week;
 * "the week of" (how `anchorRelativeDates` writes "three weeks ago"): the week around it.
 */
const SHIFT = '(?:\\b(before|after|week of)\\s+)?';
/**
 * Calendar dates a question names, most precise first, one alternative per form: "9 November,
 * 2022", "the 8th of December 2023", "October 13, 2023", "2023-05-08", "May 2023", "in May", "in
 * 2023". Each is a single pass without nested repetition.
 */
const QUESTION_DATE = new RegExp(
  [
    `${SHIFT}\\b${ORDINAL}\\s+(?:of\\s+)?${MONTH_WORD}\\.?,?\\s*((?:19|20)\\d\\d)\\b`,
    `${SHIFT}\\b${MONTH_WORD}\\.?\\s+${ORDINAL},?\\s*((?:19|20)\\d\\d)\\b`,
    `${SHIFT}\\b((?:19|20)\\d\\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])\\b`,
    `\\b${MONTH_WORD}\\.?,?\\s+((?:19|20)\\d\\d)\\b`,
    // A month alone, after a preposition ("in May"; "May" alone is also a verb), when no day or
    // year follows it.
    `\\b(?:in|during|since|of|early|late|mid)\\s+${MONTH_WORD}\\b(?![.,]?\\s*\\d)`,
    `\\b((?:19|20)\\d\\d)\\b`,
  ].join('|'),
  'gi',
);

/** A question names a few dates; a text with more is not one, and its cost stays bounded. */
const MAX_QUESTION_DATES = 16;

/** A calendar day as a range, moved a week back or forward ("the week before 9 May") with `shift`. */
function dayRange(year: number, month: number, day: number, shift: string | undefined) {
  const date = Date.UTC(year, month, day);
  // Not a date ("31 February"): `Date.UTC` rolled it over.
  if (new Date(date).getUTCDate() !== day) return undefined;
  const direction = shift?.toLowerCase();
  if (direction === 'before') return { start: date - 7 * DAY_MS, end: date + DAY_MS };
  if (direction === 'after') return { start: date, end: date + 8 * DAY_MS };
  if (direction === 'week of') return { start: date - 3 * DAY_MS, end: date + 4 * DAY_MS };
  return { start: date, end: date + DAY_MS };
}

/**
 * The calendar dates a question names (the first 16), as ranges: a day ("on 9 November, 2022",
 * "October 13, 2023", "2023-05-08"), the week before or after one ("the week before 16 November
 * 2023"), a month ("in May 2023"; "in May" is May of any year), a year ("in 2022"). With `now`,
 * English relative expressions too, resolved against it as `anchorRelativeDates` resolves them
 * ("yesterday", "last week", "two months ago", "last year"): a question about last week, asked
 * now, is about the week before today.
 */
export function questionDateRanges(query: string, now?: Date): QuestionDateRange[] {
  const valid = now && Number.isFinite(now.getTime()) ? now : undefined;
  // The absolute dates the relative expressions resolve to are written into the text, in forms
  // the pattern reads ("last week (the week before 8 May 2023)").
  const text = valid && MAY_BE_RELATIVE.test(query) ? anchorRelativeDates(query, valid) : query;
  const ranges: QuestionDateRange[] = [];
  for (const match of text.matchAll(QUESTION_DATE)) {
    const [
      ,
      shiftA,
      dayA,
      monthA,
      yearA,
      shiftB,
      monthB,
      dayB,
      yearB,
      shiftC,
      yearC,
      monthC,
      dayC,
    ] = match;
    const [monthYear, yearOfMonth, monthAlone, yearAlone] = match.slice(13);
    let range: QuestionDateRange | undefined;
    if (dayA !== undefined)
      range = dayRange(Number(yearA), monthIndex(monthA!), Number(dayA), shiftA);
    else if (dayB !== undefined)
      range = dayRange(Number(yearB), monthIndex(monthB!), Number(dayB), shiftB);
    else if (dayC !== undefined)
      range = dayRange(Number(yearC), Number(monthC) - 1, Number(dayC), shiftC);
    else if (monthYear !== undefined) {
      const year = Number(yearOfMonth);
      const month = monthIndex(monthYear);
      range = { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
    } else if (monthAlone !== undefined) range = { month: monthIndex(monthAlone) };
    else if (yearAlone !== undefined) {
      const year = Number(yearAlone);
      range = { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1) };
    }
    if (range) ranges.push(range);
    if (ranges.length === MAX_QUESTION_DATES) break;
  }
  return ranges;
}

const TERM = /\b([A-Z][a-z]+) ((?:19|20)\d\d)\b|\b((?:19|20)\d\d)\b/g;

/**
 * Whether a card falls in one of `ranges`: the day it was written (`writtenAt`, milliseconds), or
 * a month or year its text points to (its `dateTerms`), lies within a range. A card that points to
 * a whole year does not match a question about one day of it.
 */
export function fallsInDateRanges(
  ranges: readonly QuestionDateRange[],
  writtenAt: number,
  terms: string,
): boolean {
  const inRange = (start: number, end: number) =>
    ranges.some((range) =>
      range.month === undefined
        ? start >= range.start && end <= range.end
        : new Date(start).getUTCMonth() === range.month &&
          new Date(end - 1).getUTCMonth() === range.month,
    );
  if (writtenAt > 0) {
    const day = Math.floor(writtenAt / DAY_MS) * DAY_MS;
    if (inRange(day, day + DAY_MS)) return true;
  }
  for (const [, monthName, yearOfMonth, year] of terms.matchAll(TERM)) {
    if (monthName !== undefined) {
      const month = (MONTH_NAMES as readonly string[]).indexOf(monthName);
      if (month < 0) continue;
      const start = Date.UTC(Number(yearOfMonth), month, 1);
      if (inRange(start, Date.UTC(Number(yearOfMonth), month + 1, 1))) return true;
    } else if (inRange(Date.UTC(Number(year), 0, 1), Date.UTC(Number(year) + 1, 0, 1))) return true;
  }
  return false;
}
