/**
 * Cue words the extractive summarizer sorts sentences by, in English, Chinese and Japanese. The
 * lists favour precision: a sentence without a cue still survives as a key fact when it carries a
 * number, date, name or identifier.
 */
export type SentenceKind = 'preference' | 'decision' | 'constraint' | 'todo' | 'fact';
/** The first cue class a sentence matches, in order of how specific the class is. */
export declare function sentenceKind(sentence: string): SentenceKind | undefined;
export declare function hasGoalCue(sentence: string): boolean;
/** Identifiers worth keeping verbatim: URLs, paths, versions, ids, emails, inline code. */
export declare function hasIdentifier(sentence: string): boolean;
/**
 * Whether a sentence with no cue is still worth keeping as a key fact. Users' sentences count with
 * any number or name; the assistant's (longer and chattier) need an identifier or a date.
 */
export declare function isKeyFact(sentence: string, fromUser: boolean): boolean;
export declare function isQuestion(sentence: string): boolean;
/** First-person sentences get a speaker prefix so "I prefer…" still makes sense in a summary. */
export declare function isFirstPerson(sentence: string): boolean;
/** A line that is a shell command: `$ command …`, or a known command word with arguments. */
export declare const SHELL_PROMPT_LINE: RegExp;
export declare const COMMAND: RegExp;
/**
 * Words that say nothing on their own: English function words, fillers and the small talk of
 * chats ("thanks, that's great!"). They never count towards a sentence's information content.
 */
export declare const UNINFORMATIVE_WORDS: ReadonlySet<string>;
/**
 * An interjection or a thank-you at the start of a sentence, with the punctuation after it:
 * "Wow, ", "Oh! ", "Thanks so much, ". Stripped from kept sentences; "No," is not among them
 * because it carries meaning.
 */
export declare const LEADING_INTERJECTION: RegExp;
/** Whether a short bracketed text reads as a timestamp: a date, a weekday or a time of day. */
export declare function isTimestamp(text: string): boolean;
/**
 * A sentence phrased as an instruction or a firm choice ("Never touch prod.", "We must…", "I
 * prefer…", "Let's use…"), as opposed to small talk that shares cue words ("I'll never forget
 * that!", "I love it"). What a working session must not lose.
 */
export declare function isInstruction(sentence: string): boolean;
/** A whole sentence of greeting or courtesy ("Long time no see!", "Good to see you too."). */
export declare function isSmallTalk(sentence: string): boolean;
//# sourceMappingURL=cue-words.d.ts.map
