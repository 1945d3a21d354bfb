import { describe, expect, it } from 'vitest';
import type { CtxmemEvent, Message } from '../contracts/index.js';
import { ScopeRequiredError } from '../errors/index.js';
import type { MemorySearcher } from '../inject/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createMemorySearch } from '../retrieval/index.js';
import { createTokenCounter } from '../tokens/index.js';
import { createMemoryInjection, defaultMemoryScope } from './memory-injection.js';

const counter = createTokenCounter();
const prompt: Message[] = [
  { role: 'system', content: 'You help.' },
  { role: 'user', content: 'Which language do I prefer for scripting?' },
];

async function searchWithCard() {
  const store = createInMemoryMemoryStore();
  const [card] = await store.add({ userId: 'ada' }, [
    { type: 'preference', content: 'The user prefers Python for scripting.' },
  ]);
  return { store, card: card!, search: createMemorySearch({ store }) };
}

describe('createMemoryInjection', () => {
  it('places the relevant cards before the newest user message, with their ids and scores', async () => {
    const { search, card } = await searchWithCard();
    const events: CtxmemEvent[] = [];
    const memories = createMemoryInjection({
      memory: { search },
      counter,
      onEvent: (event) => events.push(event),
    });
    const tokens = counter.countMessages(prompt);
    const injected = await memories.inject(
      { userId: 'ada', sessionId: 's' },
      prompt,
      tokens,
      5_000,
    );
    expect(injected.cards).toEqual([{ id: card.id, score: expect.any(Number) }]);
    expect(injected.messages.at(-2)?.ctxmem?.kind).toBe('memory-injection');
    expect(injected.tokens).toBe(counter.countMessages(injected.messages));
    expect(events).toMatchObject([{ type: 'memory-injection', cards: 1 }]);
    // The same block for a host that places memories itself.
    const relevant = await memories.relevantMemories({ userId: 'ada' }, 'scripting language');
    expect(relevant?.cards).toBe(1);
  });

  it('injects nothing when the block cannot fit, and gives up on a slow search', async () => {
    const { search } = await searchWithCard();
    const tokens = counter.countMessages(prompt);
    const tight = createMemoryInjection({ memory: { search }, counter });
    const none = await tight.inject({ userId: 'ada' }, prompt, tokens, tokens + 5);
    expect(none).toEqual({ messages: prompt, tokens, cards: [] });

    const slow: MemorySearcher = { search: () => new Promise(() => undefined) };
    const timed = createMemoryInjection({ memory: { search: slow, searchTimeoutMs: 20 }, counter });
    expect((await timed.inject({}, prompt, tokens, 5_000)).cards).toEqual([]);
  });

  it('rethrows a missing required scope as the configuration error it is', async () => {
    const failing: MemorySearcher = {
      search: async () => {
        throw new ScopeRequiredError({ message: 'userId required', field: 'userId' });
      },
    };
    const memories = createMemoryInjection({ memory: { search: failing }, counter });
    await expect(memories.inject({}, prompt, 10, 5_000)).rejects.toThrow(ScopeRequiredError);
  });

  it('stores cards in the memory scope: the user, not the session', async () => {
    const store = createInMemoryMemoryStore();
    const memories = createMemoryInjection({ memory: { store }, counter });
    await memories.storeCards({ userId: 'ada', sessionId: 's' }, [
      { type: 'fact', content: 'Ada works on the billing module.' },
    ]);
    expect(await store.list({ userId: 'ada' })).toHaveLength(1);
    expect(defaultMemoryScope({ sessionId: 's' })).toEqual({ sessionId: 's' });
  });
});
