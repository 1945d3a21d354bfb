/**
 * What a fake provider answers, in provider-neutral terms, and the neutral view of a request the
 * script decides from. Each server turns the reply into its own wire format (thinking blocks with
 * signatures, thought signatures, reasoning items with encrypted content) and reads its own
 * request format into `ScriptedRequest`, so one script drives every provider alike.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { ProviderRequest } from './http-server.js';

export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
}

export interface ScriptedReply {
  /** Reasoning shown before the answer: signed thinking, a thought, a reasoning summary. */
  reasoning?: string;
  /** Anthropic only: a `redacted_thinking` block after the thinking. @default false */
  redactedReasoning?: boolean;
  /** @default '' with tool calls, else 'ok' */
  text?: string;
  /** Tool calls, in parallel when more than one. @default [] */
  toolCalls?: readonly ScriptedToolCall[];
  /** The summary of a server-side compaction, sent when the request turned compaction on and crossed its trigger. */
  compaction?: string;
}

/** A neutral view of one request: enough for a script to decide its next step. */
export interface ScriptedRequest {
  raw: ProviderRequest;
  /** The system instructions. */
  system: string;
  /** Text of the newest user message that is not only tool results. */
  lastUserText: string;
  /** Tool results sent since that message (tool steps already taken in this turn). */
  toolResultsSinceUser: number;
  /** Every text in the request, joined: for checks of what the model was shown. */
  text: string;
  /** Names of the tools offered. */
  tools: string[];
}

export type ScriptedHandler = (request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>;

/**
 * Signs what a provider hands out as opaque data (thinking signatures, encrypted reasoning,
 * compaction state) so that the server can tell, when it comes back, whether it is unmodified.
 */
export interface Signer {
  sign(kind: string, value: string): string;
  verify(kind: string, value: string, signature: unknown): boolean;
  /** `value` sealed with its signature: `open` returns it only when untouched. */
  seal(kind: string, value: string): string;
  open(kind: string, sealed: unknown): string | undefined;
}

export function createSigner(): Signer {
  const key = randomBytes(32);
  const sign = (kind: string, value: string) =>
    createHmac('sha256', key).update(kind).update('\u0000').update(value).digest('base64');
  return {
    sign,
    verify: (kind, value, signature) =>
      typeof signature === 'string' && signature === sign(kind, value),
    seal: (kind, value) =>
      Buffer.from(JSON.stringify({ value, signature: sign(kind, value) })).toString('base64'),
    open(kind, sealed) {
      if (typeof sealed !== 'string') return undefined;
      try {
        const { value, signature } = JSON.parse(Buffer.from(sealed, 'base64').toString('utf8'));
        return typeof value === 'string' && signature === sign(kind, value) ? value : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** Output tokens of a reply, roughly: the providers report them, nothing here depends on them. */
export function outputTokens(reply: ScriptedReply): number {
  const text =
    (reply.reasoning ?? '') +
    (reply.text ?? '') +
    (reply.toolCalls ?? []).map((call) => JSON.stringify(call.input)).join('');
  return Math.max(1, Math.ceil(text.length / 4));
}
