import type {
  CompressionContext,
  CompressionState,
  CompressionStrategy,
  StrategyName,
} from '../contracts/index.js';
import { lastUserIndex } from '../messages/index.js';
import { offloadAsPreview, payloadChars, toPreviewMessage } from './offload-preview.js';
import { runStrategy } from './strategy-report.js';
import { type ShrunkMessage, useTheRoom } from './use-the-room.js';

/**
 * Offloads `candidates` (indexes, oldest first) until the prompt is at or under target, then
 * grows the previews back into the room left under target (see `useTheRoom`).
 */
function offloadCandidates(
  name: StrategyName,
  state: CompressionState,
  context: CompressionContext,
  pickCandidates: (state: CompressionState) => number[],
) {
  return runStrategy(name, state, context, async (tokensBefore) => {
    const candidates = pickCandidates(state);
    if (candidates.length === 0) return {};
    const messages = [...state.messages];
    const offloadIds: string[] = [];
    const shrunk: ShrunkMessage[] = [];
    let tokens = tokensBefore;
    for (const index of candidates) {
      if (tokens <= context.targetTokens) break;
      context.abortSignal?.throwIfAborted();
      const original = messages[index]!;
      const offloaded = await offloadAsPreview(original, context);
      if (!offloaded) continue;
      messages[index] = offloaded.message;
      offloadIds.push(offloaded.id);
      shrunk.push({
        index,
        render: (previewChars) => toPreviewMessage(original, offloaded.id, previewChars)!,
        previewChars: context.settings.offloadPreviewChars,
        payloadChars: payloadChars(original),
      });
      tokens +=
        context.counter.countMessage(offloaded.message) - context.counter.countMessage(original);
    }
    if (offloadIds.length === 0) return {};
    useTheRoom(messages, shrunk, context.targetTokens - tokens, context.counter);
    return {
      state: { ...state, messages },
      messagesAffected: offloadIds.length,
      offloadIds,
    };
  });
}

/** Large, user-authored, non-system messages before `end`, never the newest user message. */
function largeMessages(state: CompressionState, end: number, largePayloadChars: number): number[] {
  const newestUser = lastUserIndex(state.messages);
  const indexes: number[] = [];
  for (let index = 0; index < end; index++) {
    const message = state.messages[index]!;
    if (message.role === 'system' || message.ctxmem || index === newestUser) continue;
    if (payloadChars(message) > largePayloadChars) indexes.push(index);
  }
  return indexes;
}

/**
 * Strategy b, offload keeping the recent: messages larger than `largePayloadChars` that come before
 * the last assistant message, except the last `offloadKeepRecent` of them, move to the offload
 * store. Each keeps its role and its tool-call / tool-result ids (a tool result stays a tool result
 * with a text output) while its content becomes a quoted preview of `offloadPreviewChars` and a
 * note with the reload id (`ctxmem.kind = 'offload-preview'`). Oldest first, until under target.
 */
export const offloadKeepRecentStrategy: CompressionStrategy = {
  name: 'offload-keep-recent',
  apply(state, context) {
    return offloadCandidates('offload-keep-recent', state, context, (current) => {
      const lastAssistant = current.messages.findLastIndex(
        (message) => message.role === 'assistant',
      );
      if (lastAssistant === -1) return [];
      const large = largeMessages(current, lastAssistant, context.settings.largePayloadChars);
      return large.slice(0, Math.max(0, large.length - context.settings.offloadKeepRecent));
    });
  },
};

/**
 * Strategy c, offload all: the same as `offload-keep-recent` for EVERY large message
 * before the current round's newest user message (never that message, never system messages).
 */
export const offloadAllStrategy: CompressionStrategy = {
  name: 'offload-all',
  apply(state, context) {
    return offloadCandidates('offload-all', state, context, (current) => {
      const newestUser = lastUserIndex(current.messages);
      const end = newestUser === -1 ? current.messages.length : newestUser;
      return largeMessages(current, end, context.settings.largePayloadChars);
    });
  },
};
