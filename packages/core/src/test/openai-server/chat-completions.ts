/** The fake server's Chat Completions answers: one completion, or its stream of chunks. */
import { CREATED, type ResolvedReply } from './reply.js';

export function chatCompletion(id: string, model: string, reply: ResolvedReply) {
  const hasCalls = reply.toolCalls.length > 0;
  return {
    id,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: hasCalls && reply.text === '' ? null : reply.text,
          ...(hasCalls
            ? {
                tool_calls: reply.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        finish_reason: hasCalls ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: reply.promptTokens,
      completion_tokens: reply.completionTokens,
      total_tokens: reply.promptTokens + reply.completionTokens,
    },
  };
}

export function chatChunks(id: string, model: string, reply: ResolvedReply, includeUsage: boolean) {
  const base = { id, object: 'chat.completion.chunk', created: CREATED, model };
  const chunks: unknown[] = [
    {
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    },
  ];
  if (reply.text !== '') {
    chunks.push({
      ...base,
      choices: [{ index: 0, delta: { content: reply.text }, finish_reason: null }],
    });
  }
  reply.toolCalls.forEach((call, index) => {
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    });
  });
  chunks.push({
    ...base,
    choices: [
      { index: 0, delta: {}, finish_reason: reply.toolCalls.length > 0 ? 'tool_calls' : 'stop' },
    ],
  });
  if (includeUsage) {
    chunks.push({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: reply.promptTokens,
        completion_tokens: reply.completionTokens,
        total_tokens: reply.promptTokens + reply.completionTokens,
      },
    });
  }
  return chunks;
}
