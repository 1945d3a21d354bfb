/**
 * Request bodies for the CLI tests: a deploy-log conversation whose history is mostly one large
 * tool result, so compaction offloads it.
 */
export function deployLogBody(
  format: 'openai-chat' | 'anthropic',
  {
    model,
    rows = 600,
    tools = true,
    answer = 'The log is long; the deploy succeeded.',
  }: {
    model: string;
    /** Lines of the log (about 37 tokens each). @default 600 */
    rows?: number;
    /** Define the `read_log` tool in the body. @default true */
    tools?: boolean;
    /** The assistant's answer after reading the log. @default 'The log is long; the deploy succeeded.' */
    answer?: string;
  },
): Record<string, unknown> {
  const payload = `row ${'0123456789 abcdefghij '.repeat(4)}\n`.repeat(rows);
  if (format === 'anthropic') {
    return {
      model,
      max_tokens: 1024,
      system: 'You are an operations agent.',
      ...(tools
        ? {
            tools: [
              { name: 'read_log', description: 'Read a log', input_schema: { type: 'object' } },
            ],
          }
        : {}),
      messages: [
        { role: 'user', content: 'Read the deploy log.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_log', input: {} }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: payload }],
        },
        { role: 'assistant', content: answer },
        { role: 'user', content: 'Which step was slowest?' },
      ],
    };
  }
  return {
    model,
    ...(tools
      ? {
          tools: [
            {
              type: 'function',
              function: {
                name: 'read_log',
                description: 'Read a log',
                parameters: { type: 'object' },
              },
            },
          ],
        }
      : {}),
    messages: [
      { role: 'system', content: 'You are an operations agent.' },
      { role: 'user', content: 'Read the deploy log.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: payload },
      { role: 'assistant', content: answer },
      { role: 'user', content: 'Which step was slowest?' },
    ],
  };
}
