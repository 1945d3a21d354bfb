import { describe, expect, it } from 'vitest';
import { demoQuestions } from './chat.js';
import { readChatResponse } from './chat-client.js';
import { type ChatMessage, createChatRoute } from './ui-route.js';

describe('ai-sdk-chat as a useChat backend', () => {
  it('streams the compaction status beside the answer, offline', async () => {
    const route = createChatRoute({ env: {} });
    expect(route.real).toBe(false);
    const messages: ChatMessage[] = [];
    const started: unknown[] = [];
    for (const [index, question] of demoQuestions(12).entries()) {
      messages.push({
        id: `user-${index}`,
        role: 'user',
        parts: [{ type: 'text', text: question }],
      });
      const response = await route.POST(
        new Request('http://localhost/api/chat', {
          method: 'POST',
          body: JSON.stringify({ id: 'chat-1', messages }),
        }),
      );
      const { chunks, message } = await readChatResponse(response);
      started.push(
        ...chunks.filter(
          (chunk) => chunk.type === 'data-ctxmem-compaction' && chunk.transient === true,
        ),
      );
      expect(message.role).toBe('assistant');
      expect(
        message.parts.some(
          (part) => part.type === 'text' && part.text.includes('From the runbook'),
        ),
      ).toBe(true);
      messages.push(message);
    }
    await route.middleware.idle();

    // The client saw "compacting…" (transient) and kept "compacted a → b" in the messages.
    const finished = messages.flatMap((message) =>
      message.parts.flatMap((part) =>
        part.type === 'data-ctxmem-compaction' && part.data.state === 'finished' ? [part.data] : [],
      ),
    );
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(started.length).toBeGreaterThanOrEqual(finished.length);
    for (const compaction of finished) {
      expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
      expect(compaction.tokensAfter).toBeLessThanOrEqual(compaction.budgetTokens);
    }
  });
});
