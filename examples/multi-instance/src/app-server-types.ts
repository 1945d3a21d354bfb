import type { Message } from '@ctxmem/core';

/** Small enough that sessions are compacted after a few turns. */
export const CONTEXT_WINDOW = 1_000;

export interface ChatRequest {
  sessionId: string;
  messages: Message[];
}

export interface ChatResponse {
  instance: string;
  reply: string;
  /** The prompt the model would have received. */
  prompt: Message[];
  tokens: number;
  compacted: boolean;
  /** Time ctxmem took to prepare the prompt (reading and writing the shared stores), ms. */
  prepareMs: number;
}

/** The offline model: a deterministic answer to the last user message. */
export function modelReply(sessionId: string, prompt: readonly Message[]): string {
  const last = prompt.at(-1);
  const question = typeof last?.content === 'string' ? last.content : '';
  return `(${sessionId}) Noted: ${question.slice(0, 60)} The next step is on the plan.`;
}
