/*
 * One corpus of requests through every entry point: the context manager, `compact()`, the AI SDK
 * middleware, the LangChain agent middleware and the CLI. Each must take the same decisions:
 * accept or reject with the same typed error, make the same repairs, and send a prompt whose tool
 * calls pair up and that fits its budget; and reject what cannot be sent (cycles, BigInt,
 * functions, getters that throw, holes) with the same typed error, naming the same place.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  contextMemoryMiddleware as aiSdkMiddleware,
  fromV4Prompt,
  toV4Prompt,
} from '@ctxmem/ai-sdk';
import { runCli } from '@ctxmem/cli';
import {
  type AssistantMessage,
  type CtxmemEvent,
  checkToolPairing,
  compact,
  countToolDefinitions,
  createContextManager,
  createExtractiveSummarizer,
  createInMemoryOffloadStore,
  createTokenCounter,
  InvalidMessageError,
  type Message,
  parseConversation,
  type ToolMessage,
  toModelMessages,
} from '@ctxmem/core';
import { brokenHistories } from '@ctxmem/core/test';
import { fromLangChainMessages, toLangChainMessages } from '@ctxmem/langchain';
import { contextMemoryMiddleware as langChainMiddleware } from '@ctxmem/langchain/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** LangChain's message type, taken from the adapter (the root does not depend on @langchain/core). */
type BaseMessage = ReturnType<typeof toLangChainMessages>[number];

const WINDOW = 8_000;
const MAX_OUTPUT = 1_000;
const counter = createTokenCounter();
const TOOLS = Array.from({ length: 5 }, (_, index) => ({
  type: 'function' as const,
  name: `tool_${index}`,
  description: `Tool ${index} ${'looks things up in the project '.repeat(10)}`,
  inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
}));
const TOOL_TOKENS = countToolDefinitions(TOOLS, counter);

const words = (seed: number, count: number) =>
  Array.from({ length: count }, (_, index) => `w${(seed * 31 + index * 7) % 97}`).join(' ');

const call = (id: string): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'tool_0', input: { query: id } }],
});
const result = (id: string, size = 20): ToolMessage => ({
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: id,
      toolName: 'tool_0',
      output: { type: 'text', value: `result of ${id}: ${words(id.length, size)}` },
    },
  ],
});

function longHistory(messages: number): Message[] {
  const history: Message[] = [{ role: 'system', content: 'You are an agent.' }];
  for (let turn = 0; history.length < messages - 1; turn++) {
    history.push({ role: 'user', content: `Question ${turn}: ${words(turn, 12)}` });
    history.push(call(`c${turn}`), result(`c${turn}`, 40));
    history.push({ role: 'assistant', content: `Answer ${turn}: ${words(turn + 1, 10)}` });
  }
  history.push({ role: 'user', content: 'And finally?' });
  return history;
}

interface Case {
  name: string;
  messages: Message[];
  /** The repairs every entry point must make. @default [] */
  repairs?: string[];
}

const corpus: Case[] = [
  {
    name: 'plain',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
  },
  {
    name: 'parallel calls',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Look two things up.' },
      {
        role: 'assistant',
        content: [...call('p1').content, ...call('p2').content] as AssistantMessage['content'],
      },
      { role: 'tool', content: [...result('p2').content, ...result('p1').content] },
      { role: 'user', content: 'Thanks. And?' },
    ],
  },
  {
    name: 'late result',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather?' },
      call('late1'),
      { role: 'assistant', content: 'Still checking.' },
      result('late1'),
      { role: 'user', content: 'So?' },
    ],
    repairs: ['late-tool-result'],
  },
  {
    name: 'missing result',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Read it.' },
      call('lost1'),
      { role: 'user', content: 'Never mind.' },
    ],
    repairs: ['missing-tool-result'],
  },
  {
    name: 'image',
    messages: [
      { role: 'system', content: 'Describe images.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', image: 'https://example.com/cat.png', mediaType: 'image/png' },
        ],
      },
    ],
  },
  { name: '5,000 messages', messages: longHistory(5_000) },
];

interface Decision {
  outcome: string;
  repairs: string[];
}

const repairsOf = (events: CtxmemEvent[]) =>
  events.flatMap((event) => (event.type === 'input-repaired' ? event.repairs : [])).sort();

const outcomeOf = (error: unknown) =>
  error instanceof Error ? error.name : `non-error ${String(error)}`;

/** Checks the prompt an entry point sends, and returns it in core form. */
function expectValidPrompt(prompt: readonly Message[], budget: number, label: string) {
  expect(checkToolPairing(prompt), label).toEqual([]);
  expect(counter.countMessages(prompt), label).toBeLessThanOrEqual(budget);
}

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ctxmem-parity-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const entryPoints: Record<string, (messages: Message[], label: string) => Promise<Decision>> = {
  async manager(messages, label) {
    const events: CtxmemEvent[] = [];
    const manager = createContextManager({
      contextWindow: WINDOW,
      counter,
      onEvent: (event) => events.push(event),
    });
    const prepared = await manager.prepare(messages, {
      tools: TOOLS,
      maxOutputTokens: MAX_OUTPUT,
    });
    expectValidPrompt(prepared.messages, WINDOW - MAX_OUTPUT - TOOL_TOKENS, label);
    return { outcome: 'ok', repairs: repairsOf(events) };
  },
  async compact(messages, label) {
    const events: CtxmemEvent[] = [];
    const budgetTokens = WINDOW - MAX_OUTPUT - TOOL_TOKENS;
    const compacted = await compact(messages, {
      budgetTokens,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: createInMemoryOffloadStore(),
      onEvent: (event) => events.push(event),
    });
    expectValidPrompt(compacted.messages, budgetTokens, label);
    return { outcome: 'ok', repairs: repairsOf(events) };
  },
  async 'AI SDK middleware'(messages, label) {
    const events: CtxmemEvent[] = [];
    const middleware = aiSdkMiddleware({
      contextWindow: WINDOW,
      counter,
      onEvent: (event) => events.push(event),
    });
    const model = {
      specificationVersion: 'v4',
      provider: 'parity',
      modelId: 'parity-model',
      doGenerate: async () => ({ content: [] }),
    };
    const params = await middleware.transformParams({
      type: 'generate',
      params: { prompt: toV4Prompt(messages), tools: TOOLS, maxOutputTokens: MAX_OUTPUT },
      model: model as never,
    });
    const prompt = fromV4Prompt(params.prompt as Parameters<typeof fromV4Prompt>[0]);
    expectValidPrompt(prompt, WINDOW - MAX_OUTPUT - TOOL_TOKENS, label);
    return { outcome: 'ok', repairs: repairsOf(events) };
  },
  async 'LangChain agent middleware'(messages, label) {
    const events: CtxmemEvent[] = [];
    const middleware = langChainMiddleware({
      contextWindow: WINDOW,
      counter,
      onEvent: (event) => events.push(event),
    });
    const [system, ...rest] = messages[0]?.role === 'system' ? messages : [undefined, ...messages];
    let sent: BaseMessage[] = [];
    const wrap = middleware.wrapModelCall as (
      request: object,
      handler: (request: { messages: BaseMessage[]; systemMessage?: BaseMessage }) => unknown,
    ) => Promise<unknown>;
    await wrap(
      {
        messages: toLangChainMessages(rest as Message[]),
        systemMessage: toLangChainMessages([
          { role: 'system', content: system ? (system.content as string) : '' },
        ])[0],
        tools: [],
        model: { maxTokens: MAX_OUTPUT },
        runtime: {},
        state: {},
      },
      (request) => {
        sent = [...(request.systemMessage ? [request.systemMessage] : []), ...request.messages];
        return undefined;
      },
    );
    // No tools are bound in this call: its budget is the window less the output only.
    expectValidPrompt(fromLangChainMessages(sent), WINDOW - MAX_OUTPUT, label);
    return { outcome: 'ok', repairs: repairsOf(events) };
  },
  async CLI(messages, label) {
    const file = join(directory, `${label.replace(/\W+/g, '-')}.json`);
    await writeFile(file, JSON.stringify(toModelMessages(messages)));
    const out = `${file}.out.json`;
    const stderr: string[] = [];
    const code = await runCli(
      ['compact', file, '--budget', String(WINDOW - MAX_OUTPUT - TOOL_TOKENS), '--out', out],
      {
        stdout: { write: () => true },
        stderr: { write: (text: string) => stderr.push(text) },
        cwd: directory,
        env: {},
      },
    );
    if (code !== 0) return { outcome: stderr.join('').trim(), repairs: [] };
    const written = parseConversation(JSON.parse(await readFile(out, 'utf8')));
    expectValidPrompt(written.messages, WINDOW - MAX_OUTPUT - TOOL_TOKENS, label);
    return { outcome: 'ok', repairs: [] };
  },
};

describe('every entry point takes the same decisions on one corpus', () => {
  for (const { name, messages, repairs = [] } of corpus) {
    it(name, async () => {
      const decisions: Record<string, Decision> = {};
      for (const [entry, run] of Object.entries(entryPoints)) {
        const label = `${name} through ${entry}`;
        decisions[entry] = await run(structuredClone(messages), label).catch((error) => ({
          outcome: outcomeOf(error),
          repairs: [],
        }));
      }
      const reference = decisions.manager!;
      expect(reference).toEqual({ outcome: 'ok', repairs });
      for (const [entry, decision] of Object.entries(decisions)) {
        expect(decision.outcome, `${name} through ${entry}`).toBe('ok');
        // The CLI reports no events; every other entry point makes the manager's repairs.
        if (entry !== 'CLI')
          expect(decision.repairs, `${name} through ${entry}`).toEqual(reference.repairs);
      }
    });
  }

  it('rejects malformed messages with the same typed error through core, compact() and the CLI', async () => {
    const malformed: Message[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'n', toolName: 't', input: { n: Number.NaN } }],
      },
      { role: 'user', content: [{ type: 'wat' }] } as unknown as Message,
    ];
    const outcomes = await Promise.all(
      (['manager', 'compact'] as const).map((entry) =>
        entryPoints[entry]!(malformed, `malformed through ${entry}`).then(
          (decision) => decision.outcome,
          outcomeOf,
        ),
      ),
    );
    expect(outcomes).toEqual(['CtxmemInvalidMessageError', 'CtxmemInvalidMessageError']);
    // The CLI reads JSON, where NaN cannot occur: the unknown part type is what it must reject.
    const cli = await entryPoints.CLI!(malformed, 'malformed through CLI');
    expect(cli.outcome).not.toBe('ok');
  });
});

describe('every entry point rejects what cannot be sent, naming the same place', () => {
  type Loose = Record<string, unknown>;
  const brokenCase = (name: string) => brokenHistories().find((broken) => broken.name === name)!;
  /** An entry point's decision on bad input: the error's name and path, or `ok`. */
  const decision = (error: unknown) =>
    InvalidMessageError.isInstance(error)
      ? { outcome: error.name, path: error.path }
      : { outcome: error === undefined ? 'ok' : outcomeOf(error) };

  /**
   * The same breakage in LangChain's own fields. A LangChain message is a class instance whose
   * extra own properties LangChain never sends, so a message that refers to itself has its
   * counterpart in `additional_kwargs`, which it does send; provider options in
   * `response_metadata`; a tool call's input in `tool_calls[0].args`. The agent middleware gets
   * the system prompt apart, so indexes are one lower.
   */
  const inLangChain: Record<string, { corrupt: (messages: unknown[]) => unknown[]; path: string }> =
    {
      'a message that refers to itself': {
        corrupt: (messages) => {
          const kwargs = (messages[0] as BaseMessage).additional_kwargs as Loose;
          kwargs.self = kwargs;
          return messages;
        },
        path: 'messages[0].additional_kwargs.self',
      },
      'a cycle in a tool call input': {
        corrupt: (messages) => {
          const args = (messages[1] as { tool_calls: Array<{ args: Loose }> }).tool_calls[0]!.args;
          args.self = args;
          return messages;
        },
        path: 'messages[1].tool_calls[0].args.self',
      },
      'a cycle in provider options': {
        corrupt: (messages) => {
          const metadata = (messages[0] as BaseMessage).response_metadata as Loose;
          metadata.openai = { user: 'u1', loop: metadata };
          return messages;
        },
        path: 'messages[0].response_metadata.openai.loop',
      },
      'a BigInt in a tool call input': {
        corrupt: (messages) => {
          (messages[1] as { tool_calls: Array<{ args: Loose }> }).tool_calls[0]!.args.limit =
            BigInt(10);
          return messages;
        },
        path: 'messages[1].tool_calls[0].args.limit',
      },
      'a function in content': {
        corrupt: (messages) => {
          (messages[0] as { content: unknown }).content = [
            { type: 'text', text: 'Look it up.', onClick: () => 'clicked' },
          ];
          return messages;
        },
        path: 'messages[0].content[0].onClick',
      },
      'a getter that throws': {
        corrupt: (messages) => {
          const args = (messages[1] as { tool_calls: Array<{ args: Loose }> }).tool_calls[0]!.args;
          Object.defineProperty(args, 'token', {
            enumerable: true,
            get: () => {
              throw new Error('token revoked');
            },
          });
          return messages;
        },
        path: 'messages[1].tool_calls[0].args.token',
      },
      'a hole': {
        corrupt: (messages) => {
          delete messages[0];
          return messages;
        },
        path: 'messages[0]',
      },
      'an undefined entry': {
        corrupt: (messages) => [undefined, ...messages.slice(1)],
        path: 'messages[0]',
      },
      'a null entry': { corrupt: (messages) => [null, ...messages.slice(1)], path: 'messages[0]' },
    };

  it('has a LangChain counterpart for every case', () => {
    expect(Object.keys(inLangChain).sort()).toEqual(
      brokenHistories()
        .map((broken) => broken.name)
        .sort(),
    );
  });

  for (const { name, path, json } of brokenHistories()) {
    it(name, async () => {
      const decisions: Record<string, { outcome: string; path?: string }> = {};
      const settle = (run: () => Promise<unknown>) =>
        run().then(
          () => decision(undefined),
          (error: unknown) => decision(error),
        );
      decisions.manager = await settle(() =>
        createContextManager({ contextWindow: WINDOW, counter }).prepare(
          brokenCase(name).messages as Message[],
        ),
      );
      decisions.compact = await settle(() =>
        compact(brokenCase(name).messages as Message[], {
          budgetTokens: WINDOW,
          counter,
          summarizer: createExtractiveSummarizer({ counter }),
          offloadStore: createInMemoryOffloadStore(),
        }),
      );
      const aiSdk = await settle(() => {
        const broken = brokenCase(name);
        const middleware = aiSdkMiddleware({ contextWindow: WINDOW, counter });
        return middleware.transformParams({
          type: 'generate',
          params: { prompt: broken.corrupt(toV4Prompt(broken.clean())) as never },
          model: {
            specificationVersion: 'v4',
            provider: 'parity',
            modelId: 'parity-model',
            doGenerate: async () => ({ content: [] }),
          } as never,
        });
      });
      // The AI SDK names its prompt `prompt`; the indexes are core's.
      decisions['AI SDK middleware'] = {
        ...aiSdk,
        ...(aiSdk.path ? { path: aiSdk.path.replace(/^prompt/, 'messages') } : {}),
      };
      const langChain = await settle(async () => {
        const [system, ...rest] = toLangChainMessages(brokenCase(name).clean());
        const wrap = langChainMiddleware({ contextWindow: WINDOW, counter })
          .wrapModelCall as unknown as (
          request: object,
          handler: () => unknown,
        ) => Promise<unknown>;
        return wrap(
          {
            messages: inLangChain[name]!.corrupt(rest),
            systemMessage: system,
            tools: [],
            model: {},
            runtime: {},
            state: {},
          },
          () => undefined,
        );
      });
      // Back to core's indexes (the system prompt comes apart) and path, for one comparison.
      expect(langChain.path, 'LangChain agent middleware').toBe(inLangChain[name]!.path);
      decisions['LangChain agent middleware'] = { ...langChain, path };
      if (json) {
        // Files and stdin are JSON: of these cases only a null entry can be written there.
        const file = join(directory, `${name.replace(/\W+/g, '-')}.json`);
        const broken = brokenCase(name);
        const written = broken.messages.map((message) =>
          message === null ? null : toModelMessages([message as Message])[0],
        );
        await writeFile(file, JSON.stringify(written));
        const stderr: string[] = [];
        const code = await runCli(['compact', file, '--budget', String(WINDOW)], {
          stdout: { write: () => true },
          stderr: { write: (text: string) => stderr.push(text) },
          cwd: directory,
          env: {},
        });
        const named = /(messages\[\d+\][^:\s]*): /.exec(stderr.join(''));
        // Exit code 1 is a failure of the input (2 would be a usage error).
        decisions.CLI =
          code === 1
            ? { outcome: 'CtxmemInvalidMessageError', ...(named ? { path: named[1] } : {}) }
            : { outcome: `exit code ${code}` };
      }
      for (const [entry, taken] of Object.entries(decisions)) {
        expect(taken, entry).toEqual({ outcome: 'CtxmemInvalidMessageError', path });
      }
    });
  }
});
