import type { CompleteResult, SummarizerFailureKind } from '../contracts/index.js';

/** A model answer normalised: its text and, when the adapter knows it, why the model stopped. */
export function answerOf(answer: unknown): CompleteResult | undefined {
  if (typeof answer === 'string') return { text: answer };
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { text, finishReason } = answer as { text?: unknown; finishReason?: unknown };
  if (typeof text !== 'string') return undefined;
  return typeof finishReason === 'string' ? { text, finishReason } : { text };
}

/**
 * Refusals and apologies that models answer instead of doing the task. Matched only at the start
 * of an answer that has no summary structure, so a summary that mentions an apology is not
 * mistaken for one.
 */
const REFUSAL =
  /^\s*(?:i['’]m sorry|i am sorry|sorry[,!.]|i apologi[sz]e|i can(?:not|['’]t) (?:help|assist|comply|do|provide|summari[sz]e)|i (?:won['’]t|will not|am unable|['’]m unable|am not able)|as an ai\b|unfortunately,? i (?:can|am)|抱歉|对不起|我无法|我不能)/i;

/** Whether `text` reads as a refusal rather than an answer. */
export function isRefusal(text: string): boolean {
  return REFUSAL.test(text);
}

/**
 * Why an answer cannot be used, or `undefined` when it can: the model stopped at the output limit
 * (the JSON or text is cut off), a content filter stopped it, or it is empty.
 */
export function unusableAnswerReason(
  answer: CompleteResult,
): { kind: SummarizerFailureKind; reason: string } | undefined {
  if (answer.finishReason === 'length') {
    return {
      kind: 'cut-off',
      reason: 'the answer was cut off at the output limit (finish reason "length")',
    };
  }
  if (answer.finishReason === 'content-filter') {
    return { kind: 'content-filter', reason: 'the answer was stopped by a content filter' };
  }
  if (answer.text.trim() === '')
    return { kind: 'empty', reason: 'the model returned an empty answer' };
  return undefined;
}
