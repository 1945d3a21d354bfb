/** A LoCoMo conversation as chat messages, and how a bench tells whether an answer is in a prompt. */
import { type Message, messageText } from '../packages/core/src/index.js';
import type { LocomoSample, LocomoTurn } from './cross-validation.js';

/** One conversation as chat messages: speaker A is the user, speaker B the assistant. */
export function locomoMessages(sample: Pick<LocomoSample, 'conversation'>): Message[] {
  const conversation = sample.conversation;
  const speakerA = conversation.speaker_a as string;
  const messages: Message[] = [
    {
      role: 'system',
      content: `A long conversation between ${speakerA} and ${conversation.speaker_b as string}.`,
    },
  ];
  const sessions = Object.keys(conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  for (const session of sessions) {
    const date = conversation[`${session}_date_time`] as string | undefined;
    for (const turn of conversation[session] as LocomoTurn[]) {
      const caption = turn.blip_caption ? ` [shares an image: ${turn.blip_caption}]` : '';
      const text = `${date ? `(${date}) ` : ''}${turn.speaker}: ${turn.text}${caption}`;
      messages.push({
        role: turn.speaker === speakerA ? 'user' : 'assistant',
        content: text,
        id: turn.dia_id,
      });
    }
  }
  // The prompt ends with a user question, as in a real call.
  messages.push({ role: 'user', content: 'What do you remember about our conversations so far?' });
  return messages;
}

export const normalizeAnswerText = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** Whether `answer` appears in `text`, which is already normalised and padded with spaces. */
export function answerSurvives(answer: string, text: string): boolean {
  const wanted = normalizeAnswerText(answer);
  return wanted !== '' && ` ${text} `.includes(` ${wanted} `);
}

/** The prompt's text as `answerSurvives` reads it. */
export const promptText = (messages: readonly Message[]) =>
  ` ${normalizeAnswerText(messages.map(messageText).join('\n'))} `;

export function truncateToBudget(
  messages: readonly Message[],
  budget: number,
  count: (messages: readonly Message[]) => number,
): Message[] {
  const system = messages[0]!;
  const kept: Message[] = [];
  for (let index = messages.length - 1; index > 0; index--) {
    if (count([system, messages[index]!, ...kept]) > budget) break;
    kept.unshift(messages[index]!);
  }
  return [system, ...kept];
}
