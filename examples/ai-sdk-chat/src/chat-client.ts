/**
 * What `useChat` does with the route's response, for the offline demo and the test: parse the
 * server-sent chunks and build the assistant message with the AI SDK's own reader. Transient
 * parts (a compaction starting) never reach the message: `onData` sees them, and so does this.
 */

import type { CtxmemDataParts } from '@ctxmem/ai-sdk';
import {
  type DataUIPart,
  parseJsonEventStream,
  readUIMessageStream,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from 'ai';
import type { ChatMessage } from './ui-route.js';

export interface ChatResponse {
  /** The assistant message as `useChat` keeps it. */
  message: ChatMessage;
  /** Every chunk received, in order. */
  chunks: UIMessageChunk[];
}

export async function readChatResponse(
  response: Response,
  onData: (part: DataUIPart<CtxmemDataParts>) => void = () => {},
): Promise<ChatResponse> {
  if (!response.body) throw new Error(`The chat route answered ${response.status} without a body`);
  const chunks: UIMessageChunk[] = [];
  const stream = parseJsonEventStream({
    stream: response.body,
    schema: uiMessageChunkSchema,
  }).pipeThrough(
    new TransformStream<{ success: boolean; value?: UIMessageChunk }, UIMessageChunk>({
      transform(result, controller) {
        if (!result.success || !result.value) throw new Error('A chunk the AI SDK cannot parse');
        chunks.push(result.value);
        if (result.value.type.startsWith('data-ctxmem-')) {
          onData(result.value as DataUIPart<CtxmemDataParts>);
        }
        controller.enqueue(result.value);
      },
    }),
  );
  let message: ChatMessage | undefined;
  for await (const snapshot of readUIMessageStream<ChatMessage>({ stream })) message = snapshot;
  if (!message) throw new Error('The chat route streamed no message');
  return { message, chunks };
}
