import type { Message, Scope } from '@ctxmem/core';

/** The session both instances serve. */
export const scope: Scope = { userId: 'demo-user', sessionId: 'release-planning' };

/** A context window small enough that the conversation below overflows it. */
export const contextWindow = 4_000;

const TOPICS = [
  'the release date',
  'the database migration',
  'the flaky login test',
  'the API limits',
];

/**
 * A deterministic planning conversation of `turns` turns (each instance rebuilds it, as a stateless
 * server rebuilds the prompt from the client's request).
 */
export function conversation(turns = 40): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are the release assistant of a small developer team.' },
  ];
  for (let turn = 1; turn <= turns; turn++) {
    const topic = TOPICS[turn % TOPICS.length]!;
    messages.push(
      {
        role: 'user',
        content: `Turn ${turn}: what is the status of ${topic}? We decided to keep the release on the second Tuesday and to run migrations before the deploy.`,
      },
      {
        role: 'assistant',
        content: `For ${topic}, step ${turn} is done: the owner checked the configuration, recorded the result in the run log, and the next check is scheduled for tomorrow morning before the stand-up.`,
      },
    );
  }
  return messages;
}
