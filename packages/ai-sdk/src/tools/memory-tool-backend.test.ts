/**
 * The memory tool's backend wired as the `execute` of `anthropic.tools.memory_20250818` (from
 * `@ai-sdk/anthropic`, `src/tool/memory_20250818.ts`: a provider tool the app executes). Inputs
 * are in that tool's shape; results and errors are the texts of "Tool commands" in
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import {
  createInMemoryMemoryStore,
  createMemorySearch,
  InvalidArgumentError,
  MEMORY_FILE_TAG,
} from '@ctxmem/core';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { textResult, toolCallResult } from '../mock-agent.test-support.js';
import { memoryToolBackend } from './index.js';

const anthropic = createAnthropic({ apiKey: 'test-key' });

type Prompt = ReadonlyArray<{ role: string; content: unknown }>;

/** The tool results the model has been sent so far, in order. */
function toolOutputs(prompt: Prompt): Array<{ type: string; value: unknown }> {
  return prompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content as Array<{ output: { type: string; value: unknown } }>)
    .map((part) => part.output);
}

describe('memoryToolBackend', () => {
  it('serves an agent loop of generateText through the provider memory tool', async () => {
    const store = createInMemoryMemoryStore();
    const scope = { userId: 'u1' };
    const script = [
      { command: 'view', path: '/memories' },
      {
        command: 'create',
        path: '/memories/customers/acme.md',
        file_text: '# Acme Corp\nPrefers email follow-ups.\n',
      },
      {
        command: 'str_replace',
        path: '/memories/customers/acme.md',
        old_str: 'email follow-ups',
        new_str: 'email follow-ups on Mondays',
      },
      {
        command: 'insert',
        path: '/memories/customers/acme.md',
        insert_line: 1,
        insert_text: 'Owner: Dana\n',
      },
      { command: 'view', path: '/memories/customers/acme.md', view_range: [1, 3] },
      { command: 'view', path: '/memories/../secrets.env' },
      { command: 'rename', old_path: '/memories/customers', new_path: '/memories/clients' },
      { command: 'delete', path: '/memories/missing.md' },
    ];
    let step = 0;
    const prompts: Prompt[] = [];
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        prompts.push(prompt as Prompt);
        const input = script[step];
        step++;
        return (
          input
            ? toolCallResult([{ toolCallId: `m${step}`, toolName: 'memory', input }])
            : textResult('Noted.')
        ) as never;
      },
    });
    const result = await generateText({
      model,
      tools: { memory: anthropic.tools.memory_20250818(memoryToolBackend({ store, scope })) },
      stopWhen: stepCountIs(20),
      prompt: 'Remember that Acme Corp prefers email follow-ups.',
    });
    expect(result.text).toBe('Noted.');
    expect(toolOutputs(prompts.at(-1)!)).toEqual([
      {
        type: 'text',
        value:
          "Here're the files and directories up to 2 levels deep in /memories, excluding hidden " +
          'items and node_modules:\n0B\t/memories',
      },
      { type: 'text', value: 'File created successfully at: /memories/customers/acme.md' },
      {
        type: 'text',
        value:
          'The memory file has been edited. Here is the snippet showing the change (with line ' +
          'numbers):\n     1\t# Acme Corp\n     2\tPrefers email follow-ups on Mondays.\n     3\t',
      },
      { type: 'text', value: 'The file /memories/customers/acme.md has been edited.' },
      {
        type: 'text',
        value:
          "Here's the content of /memories/customers/acme.md with line numbers:\n" +
          '     1\t# Acme Corp\n     2\tOwner: Dana\n     3\tPrefers email follow-ups on Mondays.',
      },
      // Errors reach the model as error results, worded as the documentation words them.
      {
        type: 'error-text',
        value:
          'Error: The path /memories/../secrets.env would escape the /memories directory: it has a ".." segment.',
      },
      { type: 'text', value: 'Successfully renamed /memories/customers to /memories/clients' },
      { type: 'error-text', value: 'Error: The path /memories/missing.md does not exist' },
    ]);
    // The AI SDK keeps the typed error for the app.
    const refused = result.steps[5]!.content.find((part) => part.type === 'tool-error');
    expect(InvalidArgumentError.isInstance(refused?.error)).toBe(true);
    // What the model wrote is a memory card that memory search finds.
    const hits = await createMemorySearch({ store }).search(
      scope,
      'When does Acme want follow-ups?',
      {
        tags: [MEMORY_FILE_TAG],
      },
    );
    expect(hits[0]?.card.content).toContain('Prefers email follow-ups on Mondays.');
    expect(hits[0]?.card.source).toBe('/memories/clients/acme.md');
  });

  it('resolves the scope per call, so two users never see each other’s files', async () => {
    const store = createInMemoryMemoryStore();
    const { execute } = memoryToolBackend({
      store,
      scope: (call) => ({ userId: (call.context as { userId: string }).userId }),
    });
    const call = (userId: string) => ({ toolCallId: 'c', messages: [], context: { userId } });
    await execute({ command: 'create', path: '/memories/a.md', file_text: 'alice' }, call('alice'));
    await expect(execute({ command: 'view', path: '/memories/a.md' }, call('bob'))).rejects.toThrow(
      'The path /memories/a.md does not exist. Please provide a valid path.',
    );
    expect(await execute({ command: 'view', path: '/memories/a.md' }, call('alice'))).toContain(
      '\talice',
    );
    expect(() => memoryToolBackend({ store, scope: { userId: '' } })).toThrow(InvalidArgumentError);
  });

  it('sends Anthropic the native memory tool and its results, errors marked is_error', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const replies = [
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'memory',
        input: { command: 'view', path: '/memories' },
      },
      {
        type: 'tool_use',
        id: 'toolu_2',
        name: 'memory',
        input: { command: 'view', path: '/etc/passwd' },
      },
      { type: 'text', text: 'Done.' },
    ];
    const fetch = async (_url: unknown, init?: { body?: unknown }) => {
      bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      const block = replies[bodies.length - 1]!;
      return new Response(
        JSON.stringify({
          id: `msg_${bodies.length}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [block],
          stop_reason: block.type === 'tool_use' ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 5 },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    };
    const provider = createAnthropic({
      apiKey: 'test-key',
      fetch: fetch as typeof globalThis.fetch,
    });
    const result = await generateText({
      model: provider('claude-sonnet-4-5'),
      tools: {
        memory: provider.tools.memory_20250818(
          memoryToolBackend({ store: createInMemoryMemoryStore() }),
        ),
      },
      stopWhen: stepCountIs(5),
      prompt: 'Check your memory.',
    });
    expect(result.text).toBe('Done.');
    expect(bodies[0]!.tools).toEqual([{ name: 'memory', type: 'memory_20250818' }]);
    const lastMessages = bodies[2]!.messages as Array<{ role: string; content: unknown }>;
    const results = lastMessages
      .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
      .filter((block: { type: string }) => block.type === 'tool_result');
    expect(results).toEqual([
      expect.objectContaining({
        tool_use_id: 'toolu_1',
        content:
          "Here're the files and directories up to 2 levels deep in /memories, excluding hidden " +
          'items and node_modules:\n0B\t/memories',
      }),
      expect.objectContaining({
        tool_use_id: 'toolu_2',
        is_error: true,
        content:
          'Error: The path /etc/passwd is outside /memories: every path starts with /memories/.',
      }),
    ]);
    expect(results[0]!.is_error).toBeUndefined();
  });
});
