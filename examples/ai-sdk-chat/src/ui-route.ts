/**
 * The chat as a `useChat` backend: a route handler (`POST(request)`, as in a Next.js
 * `app/api/chat/route.ts`) that streams the answer and ctxmem's status in one UI message stream.
 * The client types its messages as `ChatMessage` and shows `data-ctxmem-*` parts:
 *
 *   const { messages } = useChat<ChatMessage>({ onData: (part) => … });  // "compacting…"
 *   message.parts.filter((part) => part.type === 'data-ctxmem-compaction')  // "compacted 48k → 9k"
 */
import { type CtxmemDataParts, contextMemoryMiddleware, writeContextStatus } from '@ctxmem/ai-sdk';
import { createInMemoryHistoryStore, createInMemoryMemoryStore } from '@ctxmem/core';
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  simulateStreamingMiddleware,
  stepCountIs,
  streamText,
  toUIMessageStream,
  type UIMessage,
  wrapLanguageModel,
} from 'ai';
import { chatModel, INSTRUCTIONS, searchDocs } from './chat.js';

/** The messages of this chat: the AI SDK's, with ctxmem's data parts typed. */
export type ChatMessage = UIMessage<unknown, CtxmemDataParts>;

/** What `useChat`'s default transport posts: the chat's id and its messages. */
export interface ChatRequestBody {
  id: string;
  messages: ChatMessage[];
}

/** The route of a chat app whose prompts ctxmem keeps inside the window, with its status streamed. */
export function createChatRoute({
  env = process.env,
}: {
  env?: Record<string, string | undefined>;
} = {}) {
  const { real, base, contextWindow } = chatModel(env);
  const middleware = contextMemoryMiddleware({
    ...(contextWindow === undefined ? {} : { contextWindow }),
    memory: { store: createInMemoryMemoryStore() },
    historyStore: createInMemoryHistoryStore(),
  });
  // The scripted model answers whole replies; the AI SDK streams them for it.
  const model = wrapLanguageModel({
    model: base,
    middleware: real ? [middleware] : [middleware, simulateStreamingMiddleware()],
  });
  const tools = { search_docs: searchDocs };

  async function POST(request: Request): Promise<Response> {
    const { id, messages } = (await request.json()) as ChatRequestBody;
    // Whose conversation this is: in a real app, the signed-in user and the chat's id.
    const scope = { userId: 'demo-user', sessionId: id };
    const stream = createUIMessageStream<ChatMessage>({
      originalMessages: messages,
      execute: async ({ writer }) => {
        // Subscribed before the model call, so the compaction this request triggers shows.
        const status = writeContextStatus(writer, { events: middleware, scope });
        const result = streamText({
          model,
          instructions: INSTRUCTIONS,
          messages: await convertToModelMessages(messages, { tools }),
          tools,
          stopWhen: stepCountIs(6),
          providerOptions: { ctxmem: scope },
        });
        writer.merge(status.stopAfter(toUIMessageStream({ stream: result.stream, tools })));
      },
    });
    return createUIMessageStreamResponse({ stream });
  }

  return { real, middleware, POST };
}
