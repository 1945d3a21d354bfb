import type { Message } from '../contracts/index.js';

/** A history no entry point may accept, with where and what the problem is. */
export interface BrokenHistory {
  name: string;
  /** Fresh objects on every call of `brokenHistories`: cycles and getters cannot be cloned. */
  messages: unknown[];
  /** The history before it was broken (a system prompt, a tool loop, a question), anew each call. */
  clean: () => Message[];
  /**
   * Breaks another form of `clean()` the same way: one whose messages sit at the same indexes
   * with the same tool call, such as the AI SDK prompt `toV4Prompt(clean())`. Changes `list`.
   */
  corrupt: (list: unknown[]) => unknown[];
  /** The `path` of the `InvalidMessageError` every entry point throws. */
  path: string;
  /** Words the error message holds. */
  problem: string;
  /** The problem can be written as JSON (only a `null` entry can): file and stdin inputs get it. */
  json: boolean;
}

/**
 * Histories that look like messages but cannot be sent or stored: a message that refers to
 * itself, cycles in a tool call's input and in provider options, a BigInt, a function in content,
 * a getter that throws, and a hole, `undefined` or `null` where a message should be. Every entry
 * point rejects each with an `InvalidMessageError` naming `path`. Built anew on each call.
 */
export function brokenHistories(): BrokenHistory[] {
  const history = (): Message[] => [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Look it up.' },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'x' } }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'lookup',
          output: { type: 'text', value: 'found it' },
        },
      ],
    },
    { role: 'user', content: 'Thanks. And now?' },
  ];
  type Loose = Record<string, unknown>;
  const input = (messages: unknown[]) =>
    ((messages[2] as { content: Loose[] }).content[0] as Loose).input as Loose;
  const cases: BrokenHistory[] = [];
  const add = (
    name: string,
    path: string,
    problem: string,
    corrupt: (messages: unknown[]) => unknown[],
    json = false,
  ) =>
    cases.push({
      name,
      messages: corrupt(history()),
      clean: history,
      corrupt,
      path,
      problem,
      json,
    });

  add('a message that refers to itself', 'messages[1].self', 'circular reference', (messages) => {
    const message = messages[1] as unknown as Loose;
    message.self = message;
    return messages;
  });
  add(
    'a cycle in a tool call input',
    'messages[2].content[0].input.self',
    'circular reference',
    (messages) => {
      input(messages).self = input(messages);
      return messages;
    },
  );
  add(
    'a cycle in provider options',
    'messages[1].providerOptions.openai.loop',
    'circular reference',
    (messages) => {
      const providerOptions: Loose = { openai: { user: 'u1' } };
      (providerOptions.openai as Loose).loop = providerOptions;
      (messages[1] as unknown as Loose).providerOptions = providerOptions;
      return messages;
    },
  );
  add(
    'a BigInt in a tool call input',
    'messages[2].content[0].input.limit',
    'a bigint is not a JSON value',
    (messages) => {
      input(messages).limit = BigInt(10);
      return messages;
    },
  );
  add(
    'a function in content',
    'messages[1].content[0].onClick',
    'a function is not a JSON value',
    (messages) => {
      (messages[1] as unknown as Loose).content = [
        { type: 'text', text: 'Look it up.', onClick: () => 'clicked' },
      ];
      return messages;
    },
  );
  add(
    'a getter that throws',
    'messages[2].content[0].input.token',
    'reading it threw (Error: token revoked)',
    (messages) => {
      Object.defineProperty(input(messages), 'token', {
        enumerable: true,
        get: () => {
          throw new Error('token revoked');
        },
      });
      return messages;
    },
  );
  add('a hole', 'messages[1]', 'hole', (messages) => {
    const sparse: unknown[] = [messages[0]];
    sparse.length = 2;
    sparse.push(...messages.slice(2));
    return sparse;
  });
  add('an undefined entry', 'messages[1]', 'undefined', (messages) => [
    messages[0],
    undefined,
    ...messages.slice(2),
  ]);
  add(
    'a null entry',
    'messages[1]',
    'null',
    (messages) => [messages[0], null, ...messages.slice(2)],
    true,
  );
  return cases;
}
