/**
 * Cue words the extractive summarizer sorts sentences by, in English, Chinese and Japanese. The
 * lists favour precision: a sentence without a cue still survives as a key fact when it carries a
 * number, date, name or identifier.
 */

export type SentenceKind = 'preference' | 'decision' | 'constraint' | 'todo' | 'fact';

const CUES: ReadonlyArray<readonly [SentenceKind, RegExp]> = [
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
        String.raw`\b(?:must|mustn't|never|always|cannot|can't|should not|shouldn't|not allowed|required|requirement|mandatory|forbidden|only use|at most|at least|no more than|no later than|deadline|avoid)\b`,
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
        '次に|やること|予定|後で|あとで|残り|今度|TODO',
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
  for (const [kind, pattern] of CUES) {
    if (pattern.test(sentence)) return kind;
  }
  return undefined;
}

export function hasGoalCue(sentence: string): boolean {
  return GOAL_CUE.test(sentence);
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
  return /\b(?:i|i'm|i'd|i'll|i've|me|my|mine|we|we're|we'll|we've|us|our|let's)\b|我|私|僕|俺/iu.test(
    sentence,
  );
}

const COMMAND_WORDS =
  'npm|pnpm|npx|yarn|bun|deno|node|tsx|tsc|git|gh|docker|docker-compose|kubectl|helm|pip|pip3|uv|poetry|python|python3|cargo|rustup|go|make|cmake|curl|wget|cd|ls|cat|mkdir|rm|cp|mv|chmod|chown|ssh|scp|rsync|brew|apt|apt-get|yum|dnf|sudo|bash|sh|zsh|export|psql|mysql|redis-cli|vitest|jest|pytest|terraform|aws|gcloud|az|systemctl|journalctl|grep|sed|awk|find|tar|unzip|java|mvn|gradle|dotnet';

/** A line that is a shell command: `$ command …`, or a known command word with arguments. */
export const SHELL_PROMPT_LINE = /^\s*\$\s+(\S.*)$/u;
export const COMMAND = new RegExp(String.raw`^(?:${COMMAND_WORDS})(?:\s+\S.*)$`, 'u');
