/**
 * `pnpm --filter @ctxmem/example-ai-sdk-chat ui`: the chat as a `useChat` app sees it. Each
 * question is posted to the route; the status parts are printed as a chat UI would show them
 * ("compacting…", "compacted a → b tokens", "n memories used"), then the answer. Offline with the
 * scripted model unless `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set (as `start`).
 */
import type { CtxmemDataParts } from '@ctxmem/ai-sdk';
import type { DataUIPart } from 'ai';
import { demoQuestions } from './chat.js';
import { readChatResponse } from './chat-client.js';
import { type ChatMessage, createChatRoute } from './ui-route.js';

function statusLine(part: DataUIPart<CtxmemDataParts>): string | undefined {
  switch (part.type) {
    case 'data-ctxmem-compaction':
      return part.data.state === 'started'
        ? `  … compacting ${part.data.tokensBefore} tokens`
        : `  ✓ compacted ${part.data.tokensBefore} → ${part.data.tokensAfter} tokens (${part.data.strategies.join(', ')})`;
    case 'data-ctxmem-memories':
      return `  + ${part.data.cards} memories used`;
    case 'data-ctxmem-summarizer-fallback':
      return `  ! the summarizer fell back (${part.data.kind ?? 'unknown'})`;
    default:
      return undefined;
  }
}

const route = createChatRoute();
const messages: ChatMessage[] = [];
for (const [index, question] of demoQuestions(route.real ? 4 : 12).entries()) {
  console.log(`\nyou> ${question}`);
  messages.push({ id: `user-${index}`, role: 'user', parts: [{ type: 'text', text: question }] });
  const response = await route.POST(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      body: JSON.stringify({ id: 'demo-chat', messages }),
    }),
  );
  const { message } = await readChatResponse(response, (part) => {
    const line = statusLine(part);
    if (line) console.log(line);
  });
  const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  console.log(`assistant> ${text}`);
  messages.push(message);
}
await route.middleware.idle();
