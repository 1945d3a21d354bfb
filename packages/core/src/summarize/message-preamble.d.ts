import type { Message } from '../contracts/index.js';
/** What a chat transcript often writes before a message's text: when, and who speaks. */
export interface MessagePreamble {
  /** A leading `(3:31 pm on 23 August, 2023)` or `[2024-05-01 10:02]`, without its brackets. */
  timestamp?: string;
  /** A leading `Caroline:` label (or the message's `name`), without its colon. */
  speaker?: string;
  /** The text after the preamble. */
  body: string;
}
/** The speaker label a text opens with (`Caroline: …`), if it reads as one. */
export declare function speakerLabelOf(text: string): string | undefined;
/**
 * The speaker labels of a transcript: a label counts when at least two messages open with it (so
 * that a one-off "Next step: …" is not taken for a name), when a previous summary already knows
 * it, or when it is the message's `name`.
 */
export declare function speakerLabels(
  texts: readonly string[],
  known?: Iterable<string>,
): ReadonlySet<string>;
/** Splits a message's text into its preamble (timestamp, speaker label) and its body. */
export declare function readPreamble(
  message: Message,
  text: string,
  labels: ReadonlySet<string>,
): MessagePreamble;
//# sourceMappingURL=message-preamble.d.ts.map
