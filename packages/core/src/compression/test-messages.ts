/**
 * Message builders for the compression tests: short conversations written as `user('…')`,
 * `calls({ id })`, `results({ id, output })`, frozen so a strategy that mutates its input fails.
 */
import type { AssistantContentPart, Message, ToolResultOutput } from '../contracts/index.js';

/** Freezes a value and everything in it, so a test fails if anything mutates its input. */
export function deepFreeze<Value>(value: Value): Value {
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

export const system = (content: string): Message => ({ role: 'system', content });
export const user = (content: string): Message => ({ role: 'user', content });
export const assistant = (content: string | AssistantContentPart[]): Message => ({
  role: 'assistant',
  content,
});

/** An assistant message calling the given tools (in parallel when several). */
export function calls(
  ...items: Array<{ id: string; name?: string; input?: unknown; text?: string }>
): Message {
  return {
    role: 'assistant',
    content: items.map((item) => ({
      type: 'tool-call' as const,
      toolCallId: item.id,
      toolName: item.name ?? 'read_file',
      input: item.input ?? { path: `${item.id}.ts` },
    })),
  };
}

/** A tool message answering the given calls. */
export function results(
  ...items: Array<{ id: string; name?: string; output: string | ToolResultOutput }>
): Message {
  return {
    role: 'tool',
    content: items.map((item) => ({
      type: 'tool-result' as const,
      toolCallId: item.id,
      toolName: item.name ?? 'read_file',
      output: typeof item.output === 'string' ? { type: 'text', value: item.output } : item.output,
    })),
  };
}

/** A deterministic filler text of `length` characters (words, so it reads like prose). */
export function filler(length: number, seed = 'lorem'): string {
  const words = `${seed} ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor `;
  return words.repeat(Math.ceil(length / words.length)).slice(0, length);
}
