import { type CompleteFn, type CompleteRequest, InvalidArgumentError } from '@ctxmem/core';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { chatModelId } from './chat-model-settings.js';
import { chatModelUsage } from './chat-model-usage.js';

/**
 * The part of a LangChain chat model that ctxmem calls: any `BaseChatModel` is one, and so is a
 * runnable that takes messages and returns a message.
 */
export interface ChatModelLike {
  invoke(
    input: BaseMessage[],
    options?: { signal?: AbortSignal; tags?: string[]; metadata?: Record<string, unknown> },
  ): Promise<BaseMessage>;
}

/**
 * LangGraph's message stream skips runs with this tag, so the summaries ctxmem asks for are not
 * streamed to the user as if they were the agent's answer.
 */
export const NO_STREAM_TAG = 'nostream';

export interface ChatModelCompleteOptions {
  /** Tags of the model call (LangGraph does not stream runs tagged `nostream`). @default ['nostream', 'ctxmem'] */
  tags?: string[];
}

/** True for an object that can be called like a LangChain chat model. */
export function isChatModel(value: unknown): value is ChatModelLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { invoke?: unknown }).invoke === 'function'
  );
}

/** The text of a model's answer: string content, or its text blocks joined. */
export function answerText(message: BaseMessage): string {
  const content = message.content as unknown;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) =>
      typeof block === 'object' &&
      block !== null &&
      (block as { type?: unknown }).type === 'text' &&
      typeof (block as { text?: unknown }).text === 'string'
        ? (block as { text: string }).text
        : '',
    )
    .join('');
}

/**
 * A `CompleteFn` (what ctxmem's model summarizer and memory flush call) over any LangChain chat
 * model: the system prompt and the request go in as a `SystemMessage` and a `HumanMessage`, the
 * answer's text comes back (with the model id and token usage, when known, for ctxmem's
 * telemetry). The call honours `abortSignal` and is tagged so that LangGraph does not stream it.
 */
export function chatModelComplete(
  model: ChatModelLike,
  { tags = [NO_STREAM_TAG, 'ctxmem'] }: ChatModelCompleteOptions = {},
): CompleteFn {
  if (!isChatModel(model)) {
    throw new InvalidArgumentError({
      message: 'chatModelComplete needs a LangChain chat model (an object with invoke)',
      argument: 'model',
    });
  }
  return async ({ system, prompt, abortSignal }: CompleteRequest) => {
    abortSignal?.throwIfAborted();
    const messages = [...(system ? [new SystemMessage(system)] : []), new HumanMessage(prompt)];
    const answer = await model.invoke(messages, {
      tags,
      metadata: { lc_source: 'ctxmem' },
      ...(abortSignal ? { signal: abortSignal } : {}),
    });
    const finishReason = finishReasonOf(answer);
    const text = answerText(answer);
    const usage = chatModelUsage(answer);
    const id = chatModelId(model);
    return {
      text,
      ...(finishReason === undefined ? {} : { finishReason }),
      ...(id === undefined ? {} : { model: id }),
      ...(usage ? { usage } : {}),
    };
  };
}

/**
 * Why a LangChain chat model stopped, in the AI SDK's terms: OpenAI's `finish_reason` and
 * Anthropic's `stop_reason` (`max_tokens` → `length`) from the message's response metadata.
 */
function finishReasonOf(message: unknown): string | undefined {
  const metadata = (message as { response_metadata?: Record<string, unknown> }).response_metadata;
  const reason = metadata?.finish_reason ?? metadata?.stop_reason ?? metadata?.finishReason;
  if (typeof reason !== 'string') return undefined;
  if (reason === 'length' || reason === 'max_tokens' || reason === 'MAX_TOKENS') return 'length';
  if (reason === 'content_filter' || reason === 'SAFETY') return 'content-filter';
  return reason;
}
