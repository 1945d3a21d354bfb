/**
 * Relative dates ("yesterday", "two days ago", "下个月") resolved against the date a message was
 * written, so that a summary read months later still says when things happened. Dates are
 * calendar days in UTC: a session date has no time zone, and none is needed to count days.
 */

/** English month names, January first. */
export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const MONTH_PATTERN =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DAY_MONTH_YEAR = new RegExp(
  String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+${MONTH_PATTERN}\.?,?\s+(\d{4})\b`,
  'iu',
);
const MONTH_DAY_YEAR = new RegExp(
  String.raw`\b${MONTH_PATTERN}\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`,
  'iu',
);
const ISO_DATE = /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b/u;
const CJK_DATE = /(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/u;

/** The month (0–11) a name or its first three letters give ("Sept", "may"), or -1. */
export function monthIndex(name: string): number {
  return MONTH_NAMES.findIndex((month) =>
    month.toLowerCase().startsWith(name.slice(0, 3).toLowerCase()),
  );
}

function utcDate(year: number, month: number, day: number): Date | undefined {
  const date = new Date(Date.UTC(year, month, day));
  // 31 February is not a date: reject what `Date.UTC` would roll over.
  return date.getUTCMonth() === month && date.getUTCDate() === day ? date : undefined;
}

/**
 * The calendar date a timestamp names: `1:56 pm on 8 May, 2023`, `May 8, 2023`, `2023-05-08
 * 10:02`, `2023年5月8日`. `undefined` when it names none.
 */
export function parseSessionDate(timestamp: string): Date | undefined {
  const iso = ISO_DATE.exec(timestamp);
  if (iso) return utcDate(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]));
  const cjk = CJK_DATE.exec(timestamp);
  if (cjk) return utcDate(Number(cjk[1]), Number(cjk[2]) - 1, Number(cjk[3]));
  const dayFirst = DAY_MONTH_YEAR.exec(timestamp);
  if (dayFirst) return utcDate(Number(dayFirst[3]), monthIndex(dayFirst[2]!), Number(dayFirst[1]));
  const monthFirst = MONTH_DAY_YEAR.exec(timestamp);
  if (monthFirst)
    return utcDate(Number(monthFirst[3]), monthIndex(monthFirst[1]!), Number(monthFirst[2]));
  return undefined;
}

const DAY_MS = 86_400_000;
const addDays = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);

/**
 * The Saturday of the weekend `count` weekends away (negative: before): "two weekends ago" is the
 * weekend before last, counted from the last Saturday strictly before the session date.
 */
function saturdayBefore(session: Date, count: number): Date {
  const back = (session.getUTCDay() - 6 + 7) % 7 || 7;
  const lastSaturday = addDays(session, -back);
  return addDays(lastSaturday, (count < 0 ? count + 1 : count) * 7);
}

/** The first day of the month `months` away (only the month and year are shown). */
const addMonths = (date: Date, months: number) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1));

type Unit = 'day' | 'week' | 'weekend' | 'month' | 'year';

interface Writer {
  day(date: Date): string;
  month(date: Date): string;
  year(date: Date): string;
  /** The week or weekend before (`-1`) or after (`1`) the session date. */
  around(unit: 'week' | 'weekend', direction: -1 | 1, session: Date): string;
  /** The week that contains `date` (for "three weeks ago"). */
  weekOf(date: Date): string;
  /** The weekend that starts on Saturday `date` (for "two weekends ago"). */
  weekendOf(date: Date): string;
  open: string;
  close: string;
}

const ENGLISH: Writer = {
  day: (date) => `${date.getUTCDate()} ${MONTH_NAMES[date.getUTCMonth()]} ${date.getUTCFullYear()}`,
  month: (date) => `${MONTH_NAMES[date.getUTCMonth()]} ${date.getUTCFullYear()}`,
  year: (date) => String(date.getUTCFullYear()),
  around: (unit, direction, session) =>
    `the ${unit} ${direction < 0 ? 'before' : 'after'} ${ENGLISH.day(session)}`,
  weekOf: (date) => `the week of ${ENGLISH.day(date)}`,
  weekendOf: (date) => `the weekend of ${ENGLISH.day(date)}`,
  open: ' (',
  close: ')',
};

const CHINESE: Writer = {
  day: (date) => `${date.getUTCFullYear()}年${date.getUTCMonth() + 1}月${date.getUTCDate()}日`,
  month: (date) => `${date.getUTCFullYear()}年${date.getUTCMonth() + 1}月`,
  year: (date) => `${date.getUTCFullYear()}年`,
  around: (unit, direction, session) =>
    `${CHINESE.day(session)}的${direction < 0 ? '前' : '后'}一${unit === 'week' ? '周' : '个周末'}`,
  weekOf: (date) => `${CHINESE.day(date)}那一周`,
  weekendOf: (date) => `${CHINESE.day(date)}那个周末`,
  open: '（',
  close: '）',
};

/** A calendar day as a summary writes it: "8 May 2023", or "2023年5月8日" in Chinese. */
export function formatDay(date: Date, chinese = false): string {
  return (chinese ? CHINESE : ENGLISH).day(date);
}

/** What an expression resolves to: `count` units away from the session date (negative: before). */
function resolve(writer: Writer, session: Date, unit: Unit, count: number): string {
  switch (unit) {
    case 'day':
      return writer.day(addDays(session, count));
    case 'week':
      return Math.abs(count) === 1
        ? writer.around('week', count < 0 ? -1 : 1, session)
        : writer.weekOf(addDays(session, count * 7));
    case 'weekend':
      return Math.abs(count) === 1
        ? writer.around('weekend', count < 0 ? -1 : 1, session)
        : writer.weekendOf(saturdayBefore(session, count));
    case 'month':
      return writer.month(addMonths(session, count));
    case 'year':
      return writer.year(addMonths(session, count * 12));
  }
}

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  'a couple of': 2,
  couple: 2,
};
const COUNT = String.raw`(\d{1,2}|a couple of|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`;

/**
 * Weekday names as chats write them, full or short ("last Fri", "next Tues."). "Sat" and "Sun"
 * count only when no verb reading follows ("the last sat down", "last sun in the garden").
 */
const WEEKDAY_NAME = String.raw`sunday|monday|tuesday|wednesday|thursday|friday|saturday|(?:mon|tues?|wed|thu(?:rs?)?|fri|sat(?!\s+(?:down|on|in|at|by|with|there|through|up|out|around|next|beside|for)\b)|sun(?!\s+(?:in|on|at|was|is|came|shone|set|rose|went)\b))(?![\p{L}])\.?`;

const ENGLISH_EXPRESSION = new RegExp(
  [
    String.raw`\b(the day before yesterday|the day after tomorrow|yesterday|last night|today|tonight|tomorrow)\b`,
    String.raw`\b${COUNT}\s+(day|week(?:end)?|month|year)s?\s+ago\b`,
    String.raw`\bin\s+${COUNT}\s+(day|week|month|year)s?\b`,
    String.raw`\b(last|next|this|(?:this\s+)?past(?=\s+week))\s+(week(?:end)?|month|year|${WEEKDAY_NAME})(?![\p{L}])`,
  ].join('|'),
  'giu',
);

const FIXED_ENGLISH: Readonly<Record<string, number>> = {
  'the day before yesterday': -2,
  'the day after tomorrow': 2,
  yesterday: -1,
  'last night': -1,
  today: 0,
  tonight: 0,
  tomorrow: 1,
};

const CHINESE_DIGITS: Readonly<Record<string, number>> = {
  一: 1,
  两: 2,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
  几: Number.NaN,
};

const CHINESE_EXPRESSION =
  /(大前天|前天|昨天|昨晚|今天|今晚|明天|后天|大后天)|(\d{1,2}|[一两二三四五六七八九十])\s*(天|周|个星期|个月|年)(前|后)|(上个?周末|下个?周末|上个?(?:周|星期|礼拜)(?![一二三四五六日天])|下个?(?:周|星期|礼拜)(?![一二三四五六日天])|上个?月|下个?月|这个月|本月|去年|前年|明年|今年)/gu;

const FIXED_CHINESE: Readonly<Record<string, readonly [Unit, number]>> = {
  大前天: ['day', -3],
  前天: ['day', -2],
  昨天: ['day', -1],
  昨晚: ['day', -1],
  今天: ['day', 0],
  今晚: ['day', 0],
  明天: ['day', 1],
  后天: ['day', 2],
  大后天: ['day', 3],
  这个月: ['month', 0],
  本月: ['month', 0],
  去年: ['year', -1],
  前年: ['year', -2],
  明年: ['year', 1],
  今年: ['year', 0],
};

const CHINESE_UNITS: Readonly<Record<string, Unit>> = {
  天: 'day',
  周: 'week',
  个星期: 'week',
  个月: 'month',
  年: 'year',
};

/** Whether the text right after a match already says which date it is (idempotent rewriting). */
const ANNOTATED = /^\s*[(（]/u;

/**
 * Writes the absolute date after each relative expression, resolved against `session`:
 * "yesterday" → "yesterday (7 May 2023)", "last week" → "last week (the week before 8 May
 * 2023)", "两天前" → "两天前（2023年5月6日）". Expressions already followed by a bracket are left
 * as they are, so a summary can be rewritten again without stacking dates. Linear in the text.
 */
export function anchorRelativeDates(text: string, session: Date): string {
  const english = text.replace(ENGLISH_EXPRESSION, (match, ...groups) => {
    const offset = groups[groups.length - 2] as number;
    const whole = groups[groups.length - 1] as string;
    if (ANNOTATED.test(whole.slice(offset + match.length))) return match;
    const [fixed, agoCount, agoUnit, inCount, inUnit, relation, target] = groups as Array<
      string | undefined
    >;
    let absolute: string | undefined;
    if (fixed !== undefined) {
      absolute = ENGLISH.day(addDays(session, FIXED_ENGLISH[fixed.toLowerCase()]!));
    } else if (agoCount !== undefined || inCount !== undefined) {
      const count = countOf(agoCount ?? inCount!);
      const unit = (agoUnit ?? inUnit)!.toLowerCase() as Unit;
      absolute = resolve(ENGLISH, session, unit, agoCount !== undefined ? -count : count);
    } else if (relation !== undefined && target !== undefined) {
      absolute = relativeTo(relation.toLowerCase(), target.toLowerCase(), session);
    }
    return absolute === undefined ? match : `${match}${ENGLISH.open}${absolute}${ENGLISH.close}`;
  });
  if (!/\p{Script=Han}/u.test(english)) return english;
  return english.replace(CHINESE_EXPRESSION, (match, ...groups) => {
    const offset = groups[groups.length - 2] as number;
    const whole = groups[groups.length - 1] as string;
    if (ANNOTATED.test(whole.slice(offset + match.length))) return match;
    const [fixed, count, unit, direction, named] = groups as Array<string | undefined>;
    let absolute: string | undefined;
    if (fixed !== undefined) {
      const [fixedUnit, amount] = FIXED_CHINESE[fixed]!;
      absolute = resolve(CHINESE, session, fixedUnit, amount);
    } else if (count !== undefined && unit !== undefined) {
      const amount = /\d/u.test(count) ? Number(count) : CHINESE_DIGITS[count]!;
      if (Number.isFinite(amount)) {
        absolute = resolve(
          CHINESE,
          session,
          CHINESE_UNITS[unit]!,
          direction === '前' ? -amount : amount,
        );
      }
    } else if (named !== undefined) {
      const fixedNamed = FIXED_CHINESE[named];
      if (fixedNamed) {
        absolute = resolve(CHINESE, session, fixedNamed[0], fixedNamed[1]);
      } else {
        const sign = named.startsWith('上') ? -1 : 1;
        const namedUnit: Unit = named.endsWith('周末')
          ? 'weekend'
          : named.endsWith('月')
            ? 'month'
            : 'week';
        absolute = resolve(CHINESE, session, namedUnit, sign);
      }
    }
    return absolute === undefined ? match : `${match}${CHINESE.open}${absolute}${CHINESE.close}`;
  });
}

/** A weekday as `WEEKDAYS` writes it, from its full or short name ("Tues." → "tuesday"). */
function weekdayOf(name: string): string | undefined {
  const short = name.toLowerCase().replace(/\.$/u, '').slice(0, 3);
  return WEEKDAYS.find((day) => day.startsWith(short));
}

function countOf(word: string): number {
  return /\d/u.test(word) ? Number(word) : (NUMBER_WORDS[word.toLowerCase()] ?? 1);
}

/**
 * "last week", "next month", "this year", "last Friday", "this week", "this past weekend" against
 * the session date. "this past …" and "past …" are the one before it, like "last …".
 */
function relativeTo(rawRelation: string, target: string, session: Date): string | undefined {
  const relation = /past$/u.test(rawRelation) ? 'last' : rawRelation.split(/\s+/u)[0]!;
  const day = /^week|^month|^year/u.test(target) ? undefined : weekdayOf(target);
  const weekday = day === undefined ? -1 : WEEKDAYS.indexOf(day);
  if (weekday >= 0) {
    if (relation === 'this') return undefined;
    const today = session.getUTCDay();
    // The nearest such day strictly before (last) or after (next) the session date.
    const back = (today - weekday + 7) % 7 || 7;
    const ahead = (weekday - today + 7) % 7 || 7;
    return ENGLISH.day(addDays(session, relation === 'last' ? -back : ahead));
  }
  const sign = relation === 'last' ? -1 : relation === 'next' ? 1 : 0;
  if (target === 'week' || target === 'weekend') {
    // "this week" is the week of the session; "this weekend" may be the one coming or just gone.
    if (sign === 0) return target === 'week' ? ENGLISH.weekOf(session) : undefined;
    return resolve(ENGLISH, session, target, sign);
  }
  return resolve(ENGLISH, session, target as Unit, sign);
}
