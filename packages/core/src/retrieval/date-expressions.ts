/**
 * Dates for retrieval: a card is indexed with the month it was written in and the months or
 * years its relative expressions point to ("yesterday", "last year", "two weeks ago"), so a
 * question naming a month ("in May 2023") finds cards written then, and a question about when
 * something happened prefers cards that say when. Relative expressions are resolved by the rules
 * summaries use (`anchorRelativeDates`: English and Chinese); dates are calendar days in UTC, and
 * every pattern is a single pass without nested repetition, so the cost is linear in the text.
 */
import { anchorRelativeDates, parseSessionDate } from '../summarize/relative-dates.js';

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

const monthFormat = new Intl.DateTimeFormat('en-US', { month: 'long', timeZone: 'UTC' });
/** English month names, January first, formatted once. */
const MONTHS = Array.from({ length: 12 }, (_, month) =>
  monthFormat.format(new Date(Date.UTC(2000, month, 1))),
);

/** "May 2023" for a day or month, "2023" for a year. */
function termsOf({ date, precision }: DateMention): string {
  const year = String(date.getUTCFullYear());
  return precision === 'year' ? year : `${MONTHS[date.getUTCMonth()]} ${year}`;
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
