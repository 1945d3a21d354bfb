import { randomUUID } from 'node:crypto';
import type { Message } from '@ctxmem/core';
import { BaseMessage, type BaseMessageLike } from '@langchain/core/messages';
import { fromLangChainMessage, requireEntry } from './from-langchain.js';
import { toLangChainMessage } from './to-langchain.js';

/** The fields whose replacement means a LangChain message changed since it was converted. */
interface Snapshot {
  id: unknown;
  name: unknown;
  content: unknown;
  additionalKwargs: unknown;
  responseMetadata: unknown;
  toolCalls: unknown;
  toolCallId: unknown;
  status: unknown;
  artifact: unknown;
}

function snapshotOf(message: BaseMessage): Snapshot {
  const fields = message as BaseMessage & Record<string, unknown>;
  return {
    id: message.id,
    name: message.name,
    content: message.content,
    additionalKwargs: message.additional_kwargs,
    responseMetadata: message.response_metadata,
    toolCalls: fields.tool_calls,
    toolCallId: fields.tool_call_id,
    status: fields.status,
    artifact: fields.artifact,
  };
}

/** Whether `message` still has the fields it had when `snapshot` was taken (no allocation). */
function unchanged(snapshot: Snapshot, message: BaseMessage): boolean {
  const fields = message as BaseMessage & Record<string, unknown>;
  return (
    snapshot.content === message.content &&
    snapshot.id === message.id &&
    snapshot.name === message.name &&
    snapshot.additionalKwargs === message.additional_kwargs &&
    snapshot.responseMetadata === message.response_metadata &&
    snapshot.toolCalls === fields.tool_calls &&
    snapshot.toolCallId === fields.tool_call_id &&
    snapshot.status === fields.status &&
    snapshot.artifact === fields.artifact
  );
}

function rememberToolNames(message: Message, toolNames: Map<string, string>): void {
  if (message.role !== 'assistant' || typeof message.content === 'string') return;
  for (const part of message.content) {
    if (part.type === 'tool-call' && part.toolCallId) toolNames.set(part.toolCallId, part.toolName);
  }
}

/**
 * Converts between LangChain and ctxmem messages with identity caches. A LangChain message seen
 * before (and not changed since) converts to the same ctxmem message object, so ctxmem's
 * per-message token counts and fingerprints are reused; a ctxmem message that came from a
 * LangChain message converts back to that very object, so untouched messages keep every field,
 * non-JSON artifacts included. Messages ctxmem created are converted with `toLangChainMessages`.
 */
export class MessageConverter {
  readonly #toCore = new WeakMap<BaseMessage, { message: Message; snapshot: Snapshot }>();
  readonly #toLangChain = new WeakMap<Message, BaseMessage>();

  /** Like `fromLangChainMessages`, reusing the conversions of messages seen before. */
  fromLangChain(messages: ReadonlyArray<BaseMessage | BaseMessageLike>): Message[] {
    const toolNames = new Map<string, string>();
    // A loop, not `map`: `map` skips the holes of a sparse array and would keep them.
    const result: Message[] = new Array(messages.length);
    for (let index = 0; index < messages.length; index++) {
      requireEntry(messages, index);
      result[index] = this.#fromOne(messages[index]!, index, toolNames);
    }
    return result;
  }

  #fromOne(
    message: BaseMessage | BaseMessageLike,
    index: number,
    toolNames: Map<string, string>,
  ): Message {
    if (!BaseMessage.isInstance(message)) {
      return fromLangChainMessage(message, `messages[${index}]`, toolNames);
    }
    const cached = this.#toCore.get(message);
    if (cached && unchanged(cached.snapshot, message)) {
      rememberToolNames(cached.message, toolNames);
      return cached.message;
    }
    const converted = fromLangChainMessage(message, `messages[${index}]`, toolNames);
    this.#toCore.set(message, { message: converted, snapshot: snapshotOf(message) });
    this.#toLangChain.set(converted, message);
    return converted;
  }

  /**
   * Like `toLangChainMessages`, giving back the original object of every untouched message. The
   * messages it creates convert back to the same ctxmem objects. With `assignIds`, created
   * messages without an id get one, so that a LangGraph reducer (which gives every message an id
   * by changing it) leaves them as they are.
   * @default assignIds false
   */
  toLangChain(
    messages: readonly Message[],
    { assignIds = false }: { assignIds?: boolean } = {},
  ): BaseMessage[] {
    return messages.flatMap((message) => {
      const original = this.#toLangChain.get(message);
      if (original) return [original];
      const source =
        assignIds && message.id === undefined
          ? { ...message, id: `ctxmem-${randomUUID()}` }
          : message;
      const converted = toLangChainMessage(source);
      if (converted.length === 1) {
        const created = converted[0]!;
        this.#toLangChain.set(message, created);
        this.#toCore.set(created, { message, snapshot: snapshotOf(created) });
      }
      return converted;
    });
  }

  /** The LangChain message a ctxmem message was converted from, if any. */
  originalOf(message: Message): BaseMessage | undefined {
    return this.#toLangChain.get(message);
  }
}
