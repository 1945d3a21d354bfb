import type {
  CompleteFn,
  MemoryCardDraft,
  MemoryCardType,
  Message,
  TokenCounter,
} from '../contracts/index.js';
import { MEMORY_CARD_TYPES } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { messageText } from '../messages/index.js';
import { answerOf, unusableAnswerReason } from '../summarize/model-answer.js';
import { requireOptions, TOKEN_COUNTER_OPTION } from '../validation/index.js';

export interface FlushThresholdOptions {
  contextWindow: number;
  /** Where compaction triggers; the flush must happen before it. */
  triggerTokens: number;
  /** Tokens kept free below the window. Scaled down to 10% of small windows. @default 20000 */
  reserveFloor?: number;
  /** How far before the compaction point the flush runs. Scaled down to 5% of small windows. @default 4000 */
  softThreshold?: number;
}

/**
 * The token count at which the silent memory-flush turn runs. It sits at
 * `window − reserveFloor − softThreshold`; ctxmem compacts at `threshold × window`, which is often
 * lower, so the flush point is the earlier of the two minus the soft threshold — it must come
 * before the compaction that would summarize the details away.
 */
export function flushThresholdTokens({
  contextWindow,
  triggerTokens,
  reserveFloor = 20_000,
  softThreshold = 4_000,
}: FlushThresholdOptions): number {
  if (!(contextWindow > 0) || !(triggerTokens > 0)) {
    throw new InvalidArgumentError({
      message: 'flushThresholdTokens needs a positive contextWindow and triggerTokens.',
      argument: 'contextWindow',
    });
  }
  const floor = Math.min(reserveFloor, Math.floor(contextWindow * 0.1));
  const soft = Math.min(softThreshold, Math.floor(contextWindow * 0.05));
  return Math.max(1, Math.min(contextWindow - floor - soft, triggerTokens - soft));
}

export const NO_REPLY = 'NO_REPLY';

export const FLUSH_SYSTEM_PROMPT = 'Session nearing compaction. Store durable memories now.';

export interface FlushNotes {
  /** Durable notes for MEMORY.md and the card store: decisions, preferences, constraints. */
  longTerm: MemoryCardDraft[];
  /** Notes for today's `memory/YYYY-MM-DD.md`. */
  daily: string[];
}

/** Builds the silent turn's prompt from the conversation, newest messages first to fit the budget. */
export function buildFlushPrompt(
  messages: readonly Message[],
  { counter, maxInputTokens }: { counter: TokenCounter; maxInputTokens: number },
): string {
  const lines: string[] = [];
  let tokens = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'system' || message.ctxmem?.kind === 'memory-injection') continue;
    const text = messageText(message);
    const line = `${message.role}: ${text.length > 2_000 ? `${text.slice(0, 2_000)} …` : text}`;
    const lineTokens = counter.countText(line);
    if (tokens + lineTokens > maxInputTokens) break;
    tokens += lineTokens;
    lines.push(line);
  }
  lines.reverse();
  return [
    'Review the conversation below and write any lasting notes.',
    '',
    'Reply with ONE JSON object: {"long_term": [{"content": "...", "type": "decision|preference|constraint|fact|goal|todo|code", "tags": ["..."]}], "daily": ["..."]}',
    '- long_term: decisions and their rationale, preferences the user stated, constraints and requirements, facts needed in future sessions. One self-contained sentence each.',
    '- daily: short notes about what happened today.',
    `Reply with ${NO_REPLY} if there is nothing worth storing.`,
    '',
    '<conversation>',
    ...lines,
    '</conversation>',
  ].join('\n');
}

function extractJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

function asCardType(value: unknown): MemoryCardType {
  return MEMORY_CARD_TYPES.includes(value as MemoryCardType) ? (value as MemoryCardType) : 'fact';
}

/**
 * Parses the silent turn's answer. `NO_REPLY` or an empty answer → `undefined`. Text that is not
 * the asked-for JSON is kept as daily notes (one per non-empty line), never as long-term memory.
 */
export function parseFlushReply(reply: string, source: string): FlushNotes | undefined {
  const trimmed = reply.trim();
  if (trimmed === '' || trimmed.toUpperCase() === NO_REPLY) return undefined;
  const parsed = extractJsonObject(trimmed) as { long_term?: unknown; daily?: unknown } | undefined;
  if (parsed && typeof parsed === 'object') {
    const longTerm = (Array.isArray(parsed.long_term) ? parsed.long_term : [])
      .filter(
        (item): item is { content: string; type?: unknown; tags?: unknown } =>
          typeof item === 'object' &&
          item !== null &&
          typeof (item as { content?: unknown }).content === 'string',
      )
      .filter((item) => item.content.trim() !== '')
      .map((item) => ({
        content: item.content.trim(),
        type: asCardType(item.type),
        tags: Array.isArray(item.tags)
          ? item.tags.filter((tag): tag is string => typeof tag === 'string')
          : [],
        source,
      }));
    const daily = (Array.isArray(parsed.daily) ? parsed.daily : [])
      .filter((item): item is string => typeof item === 'string' && item.trim() !== '')
      .map((item) => item.trim());
    if (longTerm.length === 0 && daily.length === 0) return undefined;
    return { longTerm, daily };
  }
  if (trimmed.toUpperCase().includes(NO_REPLY)) return undefined;
  const daily = trimmed
    .split('\n')
    .map((line) => line.replace(/^[-*\d.)\s]+/, '').trim())
    .filter((line) => line !== '')
    .slice(0, 50);
  return daily.length === 0 ? undefined : { longTerm: [], daily };
}

/** Runs the silent turn and returns the parsed notes (or `undefined` for NO_REPLY). */
export async function requestFlushNotes(options: {
  complete: CompleteFn;
  messages: readonly Message[];
  counter: TokenCounter;
  maxInputTokens: number;
  abortSignal?: AbortSignal;
  source: string;
}): Promise<FlushNotes | undefined> {
  const { complete, messages, counter, maxInputTokens, abortSignal, source } = requireOptions(
    options,
    'requestFlushNotes',
    {
      complete: { expected: 'a CompleteFn', type: 'function' },
      messages: { expected: 'the messages to flush, an array' },
      counter: TOKEN_COUNTER_OPTION,
      maxInputTokens: { expected: 'a number of tokens', type: 'number' },
      source: { expected: 'the source of the notes, a string', type: 'string' },
    },
  );
  const answer = answerOf(
    await complete({
      system: FLUSH_SYSTEM_PROMPT,
      prompt: buildFlushPrompt(messages, { counter, maxInputTokens }),
      responseFormat: 'json',
      maxOutputTokens: 1_000,
      ...(abortSignal ? { abortSignal } : {}),
    }),
  );
  // A cut-off or missing reply stores nothing: half a list of notes is not a list of notes.
  if (!answer || unusableAnswerReason(answer)) return undefined;
  return parseFlushReply(answer.text, source);
}
