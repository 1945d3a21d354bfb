/**
 * Anthropic's memory tool as a LangChain tool on a ctxmem store. It matches `memory_20250818()` of
 * `@langchain/anthropic` (`dist/tools/memory.js`: a `tool()` named `memory` whose
 * `extras.providerToolDefinition` is `{ type: 'memory_20250818', name: 'memory' }`, which
 * ChatAnthropic sends in place of the schema). Results and errors are the texts of "Tool commands"
 * in https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool.
 */
import {
  createInMemoryMemoryStore,
  createMemorySearch,
  MEMORY_FILE_TAG,
  NotFoundError,
} from '@ctxmem/core';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { ScriptedChatModel } from '../langchain.test-support.js';
import { anthropicMemoryTool } from './index.js';

const LISTING = (path: string) =>
  `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`;

describe('anthropicMemoryTool', () => {
  it('serves an agent: results and error texts as tool messages, files found by memory search', async () => {
    const store = createInMemoryMemoryStore();
    const script: Array<Record<string, unknown>> = [
      { command: 'view', path: '/memories' },
      { command: 'create', path: '/memories/prefs.md', file_text: 'Likes Python.\n' },
      { command: 'str_replace', path: '/memories/prefs.md', old_str: 'Python', new_str: 'Rust' },
      { command: 'view', path: '/memories/%2e%2e/secrets' },
      { command: 'delete', path: '/memories/nothing.md' },
    ];
    const model = new ScriptedChatModel((_messages, call) => {
      const args = script[call];
      if (!args) return 'Saved.';
      return new AIMessage({
        content: '',
        tool_calls: [{ id: `toolu_${call}`, name: 'memory', args, type: 'tool_call' }],
      });
    });
    const agent = createAgent({
      model,
      tools: [
        anthropicMemoryTool({
          store,
          scope: (runtime) => ({ userId: String(runtime.configurable?.thread_id) }),
        }),
      ],
    });
    const { messages } = await agent.invoke(
      { messages: [new HumanMessage('I switched from Python to Rust.')] },
      { configurable: { thread_id: 'alice' } },
    );
    const tools = messages.filter((message) => message.type === 'tool') as ToolMessage[];
    expect(tools.map((message) => [message.status, message.content])).toEqual([
      ['success', `${LISTING('/memories')}\n0B\t/memories`],
      ['success', 'File created successfully at: /memories/prefs.md'],
      [
        'success',
        'The memory file has been edited. Here is the snippet showing the change (with line ' +
          'numbers):\n     1\tLikes Rust.\n     2\t',
      ],
      [
        'error',
        'Error: The path /memories/%2e%2e/secrets would escape the /memories directory: it has a percent-encoded character.',
      ],
      ['error', 'Error: The path /memories/nothing.md does not exist'],
    ]);
    expect(messages.at(-1)?.content).toBe('Saved.');
    const hits = await createMemorySearch({ store }).search({ userId: 'alice' }, 'Rust', {
      tags: [MEMORY_FILE_TAG],
    });
    expect(hits.map((hit) => hit.card.source)).toEqual(['/memories/prefs.md']);
  });

  it('throws the typed error when called without a tool call', async () => {
    const memory = anthropicMemoryTool({ store: createInMemoryMemoryStore() });
    const error = await memory
      .invoke({ command: 'view', path: '/memories/missing.md' })
      .catch((caught: unknown) => caught);
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(await memory.invoke({ command: 'view', path: '/memories' })).toContain('0B\t/memories');
  });

  it('is the native memory tool for ChatAnthropic, with results sent back as written', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const replies = [
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'memory',
        input: { command: 'view', path: '/memories' },
      },
      { type: 'text', text: 'Nothing stored yet.' },
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
    const agent = createAgent({
      model: new ChatAnthropic({
        model: 'claude-sonnet-4-5',
        apiKey: 'test-key',
        maxRetries: 0,
        clientOptions: { fetch: fetch as typeof globalThis.fetch },
      }),
      tools: [anthropicMemoryTool({ store: createInMemoryMemoryStore() })],
    });
    const { messages } = await agent.invoke({
      messages: [new HumanMessage('What do you remember?')],
    });
    expect(messages.at(-1)?.content).toBe('Nothing stored yet.');
    expect(bodies[0]!.tools).toEqual([{ type: 'memory_20250818', name: 'memory' }]);
    const sent = (bodies[1]!.messages as Array<{ content: unknown }>).flatMap((message) =>
      Array.isArray(message.content) ? message.content : [],
    );
    expect(sent).toContainEqual(
      expect.objectContaining({
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: `${LISTING('/memories')}\n0B\t/memories`,
      }),
    );
  });
});
