import { ENGLISH_STOP_WORDS } from '../text/index.js';

/**
 * Cue words the extractive summarizer sorts sentences by, in English, Chinese and Japanese. The
 * lists favour precision: a sentence without a cue still survives as a key fact when it carries a
 * number, date, name or identifier.
 */

export type SentenceKind = 'preference' | 'decision' | 'constraint' | 'todo' | 'fact';

/** A sentence as the case-insensitive cue patterns read it (see `caseless`). */
export interface CueText {
  text: string;
  /** The text lower-cased, when it is all ASCII. */
  lower: string | undefined;
}

const ASCII_ONLY = /^[\x00-\x7F]*$/;

export function cueText(text: string): CueText {
  return { text, lower: ASCII_ONLY.test(text) ? text.toLowerCase() : undefined };
}

/** Escapes that mean the same with and without the `i` flag on lower-cased ASCII text. */
const CASE_NEUTRAL_ESCAPES = /\\[bBdDsSwW.()[\]{}|?*+^$\\/-]/g;

/**
 * A test for a pattern with the flags `iu` that gives the same answers faster. With `i` and `u`,
 * V8 folds the case of every character it compares by Unicode rules, which makes the cue
 * patterns several times slower on the long sentences of a large batch. For ASCII text, lower-
 * casing first is that same folding, so a lower-cased ASCII sentence is tested with a
 * case-sensitive twin of the pattern; other text is tested with the pattern itself. Holds only
 * while the pattern names no upper-case letter (nor `ſ` or the Kelvin sign, which fold to `s` and
 * `k`): checked here, when the module loads.
 */
export function caseless(pattern: RegExp): (text: CueText) => boolean {
  const literal = pattern.source.replace(CASE_NEUTRAL_ESCAPES, '');
  if (pattern.flags !== 'iu' || /[A-Z\\\u017F\u212A]/u.test(literal)) {
    throw new Error(`caseless: /${pattern.source}/${pattern.flags} cannot be tested lower-cased`);
  }
  const twin = new RegExp(pattern.source, 'u');
  return ({ text, lower }) => (lower === undefined ? pattern.test(text) : twin.test(lower));
}

const CUE_PATTERNS: ReadonlyArray<readonly [SentenceKind, RegExp]> = [
  [
    'preference',
    new RegExp(
      [
        String.raw`\b(?:i|we)\s+(?:really\s+|also\s+|usually\s+|generally\s+|do(?:n't| not)\s+)?(?:prefer|like|love|hate|dislike|enjoy|favou?r)\b`,
        String.raw`\bi'?d\s+(?:rather|prefer|like)\b`,
        String.raw`\bmy\s+(?:favou?rite|preference|preferred)\b`,
        String.raw`\bprefer(?:s|red|ably)?\b`,
        '喜欢|偏好|倾向于|讨厌|爱用|习惯用|习惯于',
        '好き|嫌い|好み|の方がいい',
      ].join('|'),
      'iu',
    ),
  ],
  [
    'decision',
    new RegExp(
      [
        String.raw`\b(?:decided|decide to|decision|settled on|opted|agreed|chose|chosen)\b`,
        String.raw`\b(?:we|i)(?:'ll|\s+will|\s+are going to|'re going to)\s+(?:use|go with|stick with|switch to|adopt)\b`,
        String.raw`\blet'?s\s+(?:use|go with|stick with|pick|choose|switch to|adopt)\b`,
        String.raw`\b(?:going|go) with\b`,
        String.raw`\bswitch(?:ed)? to\b`,
        '决定|确定用|选定|选择了|采用|就用|改用|定了|敲定',
        '決定|決めた|決めました|にします|にしましょう|採用',
      ].join('|'),
      'iu',
    ),
  ],
  [
    'constraint',
    new RegExp(
      [
        String.raw`(?<!\b(?:i|we|you|they)\s+)\b(?:do not|don't)\b`,
        // Not the small talk that shares the words: "must have been", "can't wait", "never forget".
        String.raw`\b(?:must(?!'ve|\s+have\s+been|\s+be\s+(?:so|really|such|very|pretty|quite|super|tough|hard|fun|nice|great|amazing|awesome|exciting|wonderful|cool)\b)|mustn't|never(?!\s+(?:forget|thought|imagined)\b)|always(?!\s+remember\b)|(?:cannot|can't)(?!\s+(?:wait|believe|imagine|thank|agree|stop|help)\b)|should not|shouldn't|not allowed|required|requirement|mandatory|forbidden|only use|at most|at least|no more than|no later than|deadline|avoid)\b`,
        '必须|务必|一定要|不要|不能|不得|禁止|不允许|只能|不可以|别用|至少|最多|不超过|截止',
        '必ず|してはいけない|しないで|ないでください|べき|だめ|ダメ|以内',
      ].join('|'),
      'iu',
    ),
  ],
  [
    'todo',
    new RegExp(
      [
        String.raw`\b(?:todo|to-do|next steps?|need to|needs to|have to|has to|remaining|follow[- ]up|remember to|don't forget|later|tomorrow|plan to|pending|still need|will (?:add|fix|implement|write|update|check|test|deploy|review))\b`,
        String.raw`^\[ \]`,
        '待办|下一步|接下来|还要|还需|记得|稍后|之后再|计划|待完成|未完成',
        // Lower case like every cue pattern (see `caseless`); the `i` flag matches "TODO".
        '次に|やること|予定|後で|あとで|残り|今度|todo',
      ].join('|'),
      'iu',
    ),
  ],
  [
    'fact',
    new RegExp(
      [
        String.raw`\b(?:remember(?: that)?|note that|keep in mind|for the record|fyi|my name is|call me|i work (?:at|for|on|in)|i live in|i'?m based in)\b`,
        '记住|记下|请记|我叫|我的名字|我住在|我在.{1,12}工作',
        '覚えて|覚えておいて|メモして|私の名前',
      ].join('|'),
      'iu',
    ),
  ],
];

const CUES = CUE_PATTERNS.map(([kind, pattern]) => [kind, caseless(pattern)] as const);

/** A goal stated in so many words; otherwise the goal is the first user request. */
const GOAL_CUE =
  /\b(?:my goal|the goal|our goal|the objective|our objective|the aim is|we are building|i am building|i'm building)\b|目标|目的是|目標|ゴール/iu;

const URL = /\bhttps?:\/\/[^\s)>\]]+/iu;
const PATH =
  /(?:^|[\s(`'"])(?:~|\.{1,2})?\/[\w.@-]+(?:\/[\w.@-]*)*|\b[\w.-]+(?:\/[\w.@-]+){2,}|\b[\w.-]+\/[\w@-]+\.\w+|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|json|md|ya?ml|toml|go|rs|java|kt|rb|php|cs|cpp|c|h|sql|sh|txt|csv|css|html|env|lock)\b|\b[A-Za-z]:\\[\w\\.-]+/u;
const VERSION = /\bv?\d+\.\d+(?:\.\d+)*\b/u;
const IDENTIFIER =
  /\b[A-Z][A-Z0-9]+-\d+\b|#\d+\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b|\b[\w.+-]+@[\w-]+\.[\w.]+|`[^`\n]+`|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*\b/u;
const DATE =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|yesterday|next week|next month)\b|\d+\s*[年月日号点時]|星期|周[一二三四五六日]|明天|今天|昨天|下周|下个月|明日|今日|来週|来月/iu;
const NUMBER = /\d/u;
/** A capitalised word that is not the first word of the sentence: likely a name. */
const NAME = /(?<=\S\s+)(?!I\b)[A-Z][a-z]+(?:[A-Z][a-z]+)*\b|(?<=\S\s+)[A-Z]{2,}\b/u;

/** The first cue class a sentence matches, in order of how specific the class is. */
export function sentenceKind(sentence: string): SentenceKind | undefined {
  const text = cueText(sentence);
  for (const [kind, matches] of CUES) {
    if (matches(text)) return kind;
  }
  return undefined;
}

const hasGoalCueIn = caseless(GOAL_CUE);

export function hasGoalCue(sentence: string): boolean {
  return hasGoalCueIn(cueText(sentence));
}

/** Identifiers worth keeping verbatim: URLs, paths, versions, ids, emails, inline code. */
export function hasIdentifier(sentence: string): boolean {
  return (
    URL.test(sentence) || PATH.test(sentence) || VERSION.test(sentence) || IDENTIFIER.test(sentence)
  );
}

/**
 * Whether a sentence with no cue is still worth keeping as a key fact. Users' sentences count with
 * any number or name; the assistant's (longer and chattier) need an identifier or a date.
 */
export function isKeyFact(sentence: string, fromUser: boolean): boolean {
  if (hasIdentifier(sentence) || DATE.test(sentence)) return true;
  return fromUser && (NUMBER.test(sentence) || NAME.test(sentence));
}

export function isQuestion(sentence: string): boolean {
  return /[?？]\s*$/u.test(sentence);
}

/** First-person sentences get a speaker prefix so "I prefer…" still makes sense in a summary. */
export function isFirstPerson(sentence: string): boolean {
  return isFirstPersonIn(cueText(sentence));
}

const isFirstPersonIn = caseless(
  /\b(?:i|i'm|i'd|i'll|i've|me|my|mine|we|we're|we'll|we've|us|our|let's)\b|我|私|僕|俺/iu,
);

const COMMAND_WORDS =
  'npm|pnpm|npx|yarn|bun|deno|node|tsx|tsc|git|gh|docker|docker-compose|kubectl|helm|pip|pip3|uv|poetry|python|python3|cargo|rustup|go|make|cmake|curl|wget|cd|ls|cat|mkdir|rm|cp|mv|chmod|chown|ssh|scp|rsync|brew|apt|apt-get|yum|dnf|sudo|bash|sh|zsh|export|psql|mysql|redis-cli|vitest|jest|pytest|terraform|aws|gcloud|az|systemctl|journalctl|grep|sed|awk|find|tar|unzip|java|mvn|gradle|dotnet';

/** A line that is a shell command: `$ command …`, or a known command word with arguments. */
export const SHELL_PROMPT_LINE = /^\s*\$\s+(\S.*)$/u;
export const COMMAND = new RegExp(String.raw`^(?:${COMMAND_WORDS})(?:\s+\S.*)$`, 'u');

/**
 * Words that say nothing on their own in a chat: the English stop words, their contracted forms
 * (the summarizer keeps apostrophes inside words), fillers and the small talk of chats ("thanks,
 * that's great!"). They never count towards a sentence's information content.
 */
export const UNINFORMATIVE_WORDS: ReadonlySet<string> = new Set([
  // "No" answers a question ("No, I never went"): it stays a word that can inform.
  ...[...ENGLISH_STOP_WORDS].filter((word) => word !== 'no'),
  ...(
    "aren't can't cannot couldn't didn't doesn't don't hadn't hasn't haven't he'd he'll he's here's how's i'd i'll i'm i've isn't it'd it'll it's let let's ought she'd she'll she's shouldn't that'd that'll that's there's they'd they'll they're they've upon us wasn't we'd we'll we're we've weren't what's when's where's who's why's won't wouldn't you'd you'll you're you've " +
    'also really actually still even ever got get gets getting go goes going gone gonna wanna gotta lot lots much many thing things stuff something anything everything nothing way kind sort bit quite pretty rather maybe probably perhaps definitely totally absolutely certainly sure right well yet though although however anyway anyways ' +
    'yeah yes yep yup ok okay oh ah aw aww um uh hmm huh wow woah whoa hey hi hello bye goodbye thanks thank thx please sorry haha hahaha lol omg ' +
    'great awesome amazing cool nice good glad fun happy lovely wonderful fantastic incredible super sweet neat terrific brilliant congrats congratulations cheers ' +
    'know think feel felt mean means see saw look looks looking looked seem seems seemed sound sounds sounded hear heard agree appreciate guess bet wait tell told say said talk talking'
  ).split(' '),
]);

/**
 * An interjection or a thank-you at the start of a sentence, with the punctuation after it:
 * "Wow, ", "Oh! ", "Thanks so much, ". Stripped from kept sentences; "No," is not among them
 * because it carries meaning.
 */
export const LEADING_INTERJECTION =
  /^(?:(?:wow|woah|whoa|oh|ooh|ah|aw+|hey|hi|hello|yeah|yes|yep|yup|ok|okay|well|so|um|uh|hmm|haha|hahaha|lol|omg|cool|great|nice|awesome|amazing|sure|right|indeed|absolutely|totally|definitely|thanks(?: so much| a lot)?|thank you(?: so much)?|sorry|gosh|man|dude|alright|all right)(?:\s*[,!.…—–-]+\s*|\s+(?=\S+[,!.]))+)+/iu;

const TIME_OF_DAY = /\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*[ap]\.?m\b/iu;
const NUMERIC_DATE = /\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b/u;
/** "May" is a month only next to a day number; a year is a date when it stands in brackets. */
const DAY_OF_MAY_OR_YEAR =
  /\b\d{1,2}(?:st|nd|rd|th)?\s+may\b|\bmay\s+\d{1,2}\b|\b(?:19|20)\d{2}\b/iu;

/** Whether a short bracketed text reads as a timestamp: a date, a weekday or a time of day. */
export function isTimestamp(text: string): boolean {
  return (
    DATE.test(text) ||
    TIME_OF_DAY.test(text) ||
    NUMERIC_DATE.test(text) ||
    DAY_OF_MAY_OR_YEAR.test(text)
  );
}

const INSTRUCTION = new RegExp(
  [
    String.raw`^(?:please\s+)?(?:never|always|don't|do not|must|only|avoid|make sure|ensure|keep|use|prefer|stop)\b`,
    String.raw`\b(?:you|we)\s+(?:must|mustn't|should|shouldn't|can't|cannot|need to|have to|are not allowed to)\b`,
    String.raw`\b(?:i|we)\s+(?:(?:really|also|strongly|always)\s+)?prefer\b|\bi'?d\s+(?:rather|prefer)\b|\b(?:want|need) you to\b`,
    String.raw`\b(?:decided|settled on|let'?s\s+(?:use|go with|stick with|switch to)|go with|stick with|switch(?:ed)? to|agreed on)\b`,
    String.raw`\b(?:required|mandatory|forbidden|not allowed|deadline|at most|at least|no more than|no later than)\b`,
    '必须|务必|一定要|不要|不能|不得|禁止|不允许|只能|别用|决定|采用|就用|改用|偏好',
    '必ず|してはいけない|しないで|ないでください|決定|採用|にします',
  ].join('|'),
  'iu',
);

/**
 * A sentence phrased as an instruction or a firm choice ("Never touch prod.", "We must…", "I
 * prefer…", "Let's use…"), as opposed to small talk that shares cue words ("I'll never forget
 * that!", "I love it"). What a working session must not lose.
 */
export function isInstruction(sentence: string): boolean {
  return isInstructionIn(cueText(sentence));
}

const isInstructionIn = caseless(INSTRUCTION);

const SMALL_TALK =
  /^(?:(?:it'?s\s+)?(?:so\s+|really\s+)?(?:good|nice|great|lovely)\s+to\s+(?:see|hear from|meet|talk to)\s+you(?:\s+(?:too|again|all))?|long time no (?:see|talk)|how\s+(?:are|have)\s+you(?:\s+been)?(?:\s+doing)?|how's it going|what'?s up|what'?s new|see you(?:\s+(?:soon|later|around|then))?|talk (?:to you )?(?:soon|later)|take care|good (?:morning|afternoon|evening|night)|have a (?:good|great|nice) (?:day|one|night|weekend)|you too|me too|same here|no problem|no worries|my pleasure|of course|sounds like a plan|you'?re welcome|anything new|好久不见|你好|您好|谢谢|再见|早上好|晚上好|お疲れ様|ありがとう|こんにちは|久しぶり)[\s\p{P}\p{S}]*$/iu;

/** A whole sentence of greeting or courtesy ("Long time no see!", "Good to see you too."). */
export function isSmallTalk(sentence: string): boolean {
  return SMALL_TALK.test(sentence);
}

/** "I went", "we adopted", "my sister got": the speaker telling something that happened. */
const FIRST_PERSON_EVENT =
  /\b(?:i|we|my\s+\w+|our\s+\w+)\s+(?:just\s+|finally\s+|recently\s+|also\s+|actually\s+)?(?:\w+ed|went|got|made|took|saw|met|bought|began|started|finished|won|lost|joined|ran|wrote|read|found|gave|left|came|built|drew|sang|taught|flew|drove|began|became|did|have been|had|am (?:going|planning|starting|learning|working|taking)|'m (?:going|planning|starting|learning|working|taking)|will)\b|我(?:们)?(?:去|买|开始|参加|完成|搬|学|做|见|看)了?|私は/iu;
/** An absolute date written out ("8 May 2023", "2023年5月8日") or a month with a year. */
const ABSOLUTE_DATE =
  /\b\d{1,2}\s+(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{4}\b|\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{4}\b|\d{4}年\d{1,2}月/iu;
/** Speaking to the listener about the listener: a reaction more than a fact. */
const SECOND_PERSON = /\b(?:you|your|you're|you've|yours)\b/iu;

/**
 * How much a sentence's cues say it informs, as a weight around 1: dates and first-person
 * events (what happened, to whom, when) count more, named entities and numbers a little more, and a
 * sentence about the listener with none of these (a reaction) less. By cue, not by position.
 */
export function informationWeight(sentence: string): number {
  const text = cueText(sentence);
  let weight = 1;
  const dated = hasDate(text) || hasAbsoluteDate(text);
  const event = tellsFirstPersonEvent(text);
  // Case-sensitive already.
  const named = NAME.test(sentence);
  const numbered = NUMBER.test(sentence);
  if (dated) weight *= 1.5;
  if (event) weight *= 1.2;
  if (named || numbered) weight *= 1.1;
  if (!dated && !event && !named && !numbered && addressesListener(text)) weight *= 0.7;
  return weight;
}

const hasDate = caseless(DATE);
const hasAbsoluteDate = caseless(ABSOLUTE_DATE);
const tellsFirstPersonEvent = caseless(FIRST_PERSON_EVENT);
const addressesListener = caseless(SECOND_PERSON);

/** Every cue read through `caseless`, by name: its test compares both ways of reading. */
export const CASELESS_CUES: Readonly<Record<string, (text: CueText) => boolean>> = {
  ...Object.fromEntries(CUES),
  goal: hasGoalCueIn,
  firstPerson: isFirstPersonIn,
  instruction: isInstructionIn,
  date: hasDate,
  absoluteDate: hasAbsoluteDate,
  firstPersonEvent: tellsFirstPersonEvent,
  secondPerson: addressesListener,
};
