import type {
  AssistantContentPart,
  CompressionContext,
  CompressionStrategy,
  Message,
  ToolResultOutput,
  ToolResultPart,
} from '../contracts/index.js';
import { isOpaquePart, lastUserIndex, toolOutputText, toolResultsOf } from '../messages/index.js';
import { RELOAD_TOOL_NAME, reloadHint } from './offload-preview.js';
import { runStrategy } from './strategy-report.js';
import { headAndTail, headOf } from './text.js';
import { type ShrunkMessage, useTheRoom } from './use-the-room.js';

/** Head and tail kept of a compressed current-round result, in multiples of `offloadPreviewChars`. */
const HEAD_SHARE = 3;
const TAIL_SHARE = 1;

function excerptOutput(
  output: ToolResultOutput,
  id: string,
  previewChars: number,
): ToolResultOutput {
  const text = toolOutputText(output);
  const isError = output.type === 'error-text' || output.type === 'error-json';
  return {
    type: isError ? 'error-text' : 'text',
    value:
      `${headAndTail(text, previewChars * HEAD_SHARE, previewChars * TAIL_SHARE)}\n` +
      `[Result compressed from ${text.length} characters; full result: ${reloadHint(id)}]`,
  };
}

function resultIsLarge(part: ToolResultPart, previewChars: number): boolean {
  // Compressing pays only when well over the excerpt plus its note.
  return toolOutputText(part.output).length > previewChars * (HEAD_SHARE + TAIL_SHARE) * 1.5;
}

function compressResults(message: Message, id: string, previewChars: number): Message {
  const ctxmem = {
    kind: 'compressed-result' as const,
    offloadIds: [...(message.ctxmem?.offloadIds ?? []), id],
    ...(message.id ? { replaces: [message.id] } : {}),
  };
  const mapPart = <Part extends { type: string }>(part: Part): Part =>
    part.type === 'tool-result' && resultIsLarge(part as unknown as ToolResultPart, previewChars)
      ? ({
          ...part,
          output: excerptOutput((part as unknown as ToolResultPart).output, id, previewChars),
        } as Part)
      : part;
  if (message.role === 'tool') return { ...message, content: message.content.map(mapPart), ctxmem };
  if (message.role === 'assistant' && typeof message.content !== 'string') {
    return { ...message, content: message.content.map(mapPart), ctxmem };
  }
  return message;
}

/** Reasoning the current round may shorten: long, and plain text (no provider data to keep). */
function isShortenable(part: AssistantContentPart, previewChars: number): boolean {
  return part.type === 'reasoning' && part.text.length > previewChars && !isOpaquePart(part);
}

function shrinkReasoning(message: Message, id: string, previewChars: number): Message {
  if (message.role !== 'assistant' || typeof message.content === 'string') return message;
  const content: AssistantContentPart[] = message.content.map((part) =>
    part.type === 'reasoning' && isShortenable(part, previewChars)
      ? // Signed or encrypted reasoning is opaque and never reaches here: providers reject it
        // edited, and some reject the calls after it when it is missing.
        {
          type: 'reasoning',
          text: `${headOf(part.text, previewChars)}\n[Reasoning shortened; full: ${reloadHint(id)}]`,
        }
      : part,
  );
  return {
    ...message,
    content,
    ctxmem: {
      kind: 'offload-preview',
      offloadIds: [...(message.ctxmem?.offloadIds ?? []), id],
      ...(message.id ? { replaces: [message.id] } : {}),
    },
  };
}

interface Replacement {
  index: number;
  transform: (message: Message, id: string, previewChars: number) => Message;
}

/**
 * Strategy e, the current round: compresses the current round (everything after the newest
 * user message, which is never touched). Old plain reasoning (every assistant message's but the
 * last one's; opaque reasoning, signed or encrypted, is kept whole) is shortened first; then large tool results, largest first, become head/tail excerpts.
 * Every assistant tool call keeps its id, name and arguments and every result keeps its pairing;
 * originals go to the offload store and the excerpts say how to reload them. Stops once at or
 * under target.
 */
export const currentRoundStrategy: CompressionStrategy = {
  name: 'current-round',
  apply(state, context) {
    return runStrategy('current-round', state, context, async (tokensBefore) => {
      const newestUser = lastUserIndex(state.messages);
      if (newestUser === -1) return {};
      const previewChars = context.settings.offloadPreviewChars;
      const messages = [...state.messages];
      const plan = planCurrentRound(messages, newestUser, previewChars);
      const offloadIds: string[] = [];
      const affected = new Set<number>();
      const shrunk: ShrunkMessage[] = [];
      let tokens = tokensBefore;
      for (const { index, transform } of plan) {
        if (tokens <= context.targetTokens) break;
        context.abortSignal?.throwIfAborted();
        const original = messages[index]!;
        const changed = await applyTransform(original, transform, context);
        if (!changed) continue;
        messages[index] = changed.message;
        offloadIds.push(changed.id);
        affected.add(index);
        if (transform === compressResults) {
          shrunk.push({
            index,
            render: (chars) => compressResults(original, changed.id, chars),
            previewChars,
            payloadChars: Math.max(
              0,
              ...toolResultsOf(original).map((part) => toolOutputText(part.output).length),
            ),
          });
        }
        tokens +=
          context.counter.countMessage(changed.message) - context.counter.countMessage(original);
      }
      if (affected.size === 0) return {};
      // Compress only as much as the budget requires: excerpts grow back into the room left.
      useTheRoom(messages, shrunk, context.targetTokens - tokens, context.counter);
      return { state: { ...state, messages }, messagesAffected: affected.size, offloadIds };
    });
  },
};

/**
 * Reasoning of older steps first (oldest first), then messages with large results, largest
 * first, and last of all what `reload_context` just brought back: the model asked for it in this
 * turn, so it is compressed again only when nothing else can make the room.
 */
function planCurrentRound(
  messages: readonly Message[],
  newestUser: number,
  previewChars: number,
): Replacement[] {
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const reasoning: Replacement[] = [];
  const results: Array<Replacement & { size: number }> = [];
  const reloaded: Array<Replacement & { size: number }> = [];
  for (let index = newestUser + 1; index < messages.length; index++) {
    const message = messages[index]!;
    if (
      index !== lastAssistant &&
      message.role === 'assistant' &&
      typeof message.content !== 'string' &&
      message.content.some((part) => isShortenable(part, previewChars))
    ) {
      reasoning.push({ index, transform: shrinkReasoning });
    }
    const large = toolResultsOf(message).filter((part) => resultIsLarge(part, previewChars));
    if (large.length > 0) {
      const size = Math.max(...large.map((part) => toolOutputText(part.output).length));
      const isReload = large.every((part) => part.toolName === RELOAD_TOOL_NAME);
      (isReload ? reloaded : results).push({ index, transform: compressResults, size });
    }
  }
  results.sort((first, second) => second.size - first.size);
  reloaded.sort((first, second) => second.size - first.size);
  return [...reasoning, ...results, ...reloaded];
}

/**
 * Tokens `current-round` could save by compressing everything it may touch, computed without
 * writing to the offload store. Earlier strategies use it to tell whether the budget allows
 * keeping recent history that would otherwise be summarized away.
 */
export function currentRoundSavings(
  messages: readonly Message[],
  context: Pick<CompressionContext, 'counter' | 'settings'>,
): number {
  const newestUser = lastUserIndex(messages);
  if (newestUser === -1) return 0;
  const previewChars = context.settings.offloadPreviewChars;
  const placeholder = 'x'.repeat(40);
  const changed = new Map<number, Message>();
  for (const { index, transform } of planCurrentRound(messages, newestUser, previewChars)) {
    changed.set(
      index,
      transform(changed.get(index) ?? messages[index]!, placeholder, previewChars),
    );
  }
  let savings = 0;
  for (const [index, message] of changed) {
    savings += Math.max(
      0,
      context.counter.countMessage(messages[index]!) - context.counter.countMessage(message),
    );
  }
  return savings;
}

async function applyTransform(
  original: Message,
  transform: Replacement['transform'],
  context: CompressionContext,
): Promise<{ message: Message; id: string } | undefined> {
  const previewChars = context.settings.offloadPreviewChars;
  const probe = transform(original, 'x'.repeat(40), previewChars);
  if (context.counter.countMessage(probe) >= context.counter.countMessage(original)) {
    return undefined;
  }
  const id = await context.offloadStore.put(context.scope, original);
  const message = transform(original, id, previewChars);
  if (context.counter.countMessage(message) >= context.counter.countMessage(original)) {
    return undefined;
  }
  return { message, id };
}
