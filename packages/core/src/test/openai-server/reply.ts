/** What the fake server answers with, resolved from a scripted reply, shared by every endpoint. */

export const CREATED = 1_700_000_000;

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export function argumentsText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

export interface ResolvedReply {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  promptTokens: number;
  completionTokens: number;
}
