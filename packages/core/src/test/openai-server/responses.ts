/** The fake server's Responses API answers: one response, or its stream of events. */
import { CREATED, type ResolvedReply } from './reply.js';

function responsesUsage(reply: ResolvedReply) {
  return {
    input_tokens: reply.promptTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: reply.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: reply.promptTokens + reply.completionTokens,
  };
}

function responsesOutput(id: string, reply: ResolvedReply) {
  const output: Array<Record<string, unknown>> = [];
  if (reply.text !== '' || reply.toolCalls.length === 0) {
    output.push({
      type: 'message',
      id: `msg_${id}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  }
  reply.toolCalls.forEach((call, index) => {
    output.push({
      type: 'function_call',
      id: `fc_${id}_${index}`,
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
      status: 'completed',
    });
  });
  return output;
}

export function response(id: string, model: string, reply: ResolvedReply) {
  return {
    id,
    object: 'response',
    created_at: CREATED,
    status: 'completed',
    model,
    output: responsesOutput(id, reply),
    incomplete_details: null,
    error: null,
    usage: responsesUsage(reply),
  };
}

export function responseEvents(id: string, model: string, reply: ResolvedReply) {
  const events: unknown[] = [
    { type: 'response.created', response: { id, created_at: CREATED, model } },
  ];
  responsesOutput(id, reply).forEach((item, outputIndex) => {
    if (item.type === 'message') {
      events.push({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { type: 'message', id: item.id },
      });
      if (reply.text !== '') {
        events.push({
          type: 'response.output_text.delta',
          item_id: item.id,
          output_index: outputIndex,
          delta: reply.text,
        });
      }
      events.push({
        type: 'response.output_item.done',
        output_index: outputIndex,
        item: { type: 'message', id: item.id },
      });
    } else {
      events.push({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
    }
  });
  events.push({
    type: 'response.completed',
    response: {
      id,
      created_at: CREATED,
      model,
      status: 'completed',
      incomplete_details: null,
      usage: responsesUsage(reply),
    },
  });
  return events;
}
