import { checkToolPairing, type JsonValue } from '@ctxmem/core';
import { arbitraryJsonValue, arbitraryText, arbitraryToolInput } from '@ctxmem/core/test';
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageView } from '../langchain.test-support.js';
import { fromLangChainMessages, MessageConverter, toLangChainMessages } from './index.js';

const tinyPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const optionalId = fc.option(fc.uuid(), { nil: undefined });
const optionalName = fc.option(fc.constantFrom('alice', 'agent', 'bob'), { nil: undefined });
const jsonRecord: fc.Arbitrary<Record<string, JsonValue>> = fc.dictionary(
  fc.constantFrom('model_name', 'finish_reason', 'system_fingerprint', 'reasoning_content', 'x'),
  arbitraryJsonValue(2),
  { maxKeys: 3 },
);

const textBlock = fc.record(
  {
    type: fc.constant('text'),
    text: arbitraryText(),
    cache_control: fc.constant({ type: 'ephemeral' }),
    annotations: fc.constant([]),
  },
  { requiredKeys: ['type', 'text'] },
);
const imageBlock = fc.oneof(
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record({
      url: fc.constantFrom(`data:image/png;base64,${tinyPng}`, 'https://example.com/a.jpg'),
      detail: fc.constantFrom('low', 'high', 'auto'),
    }),
  }),
  fc.record({ type: fc.constant('image'), url: fc.constant('https://example.com/b.png') }),
  fc.record({
    type: fc.constant('image'),
    data: fc.constant(tinyPng),
    mimeType: fc.constant('image/png'),
  }),
  fc.record({
    type: fc.constant('image'),
    source_type: fc.constant('base64'),
    data: fc.constant(tinyPng),
    mime_type: fc.constant('image/png'),
  }),
);
const fileBlock = fc.oneof(
  fc.record({
    type: fc.constant('file'),
    fileId: fc.constant('file-abc'),
    mimeType: fc.constant('application/pdf'),
  }),
  fc.record({
    type: fc.constant('audio'),
    data: fc.constant(tinyPng),
    mimeType: fc.constant('audio/wav'),
  }),
  fc.record({
    type: fc.constant('text-plain'),
    text: arbitraryText(),
    mimeType: fc.constant('text/plain'),
  }),
);
const opaqueBlock = fc.oneof(
  fc.record({
    type: fc.constant('non_standard'),
    value: fc.dictionary(fc.string(), arbitraryJsonValue(1), { maxKeys: 2 }),
  }),
  fc.record({ type: fc.constant('redacted_thinking'), data: fc.string() }),
);
const humanBlocks = fc.array(fc.oneof(textBlock, imageBlock, fileBlock, opaqueBlock), {
  maxLength: 4,
});
const aiBlocks = fc.array(
  fc.oneof(
    textBlock,
    fc.record({ type: fc.constant('reasoning'), reasoning: arbitraryText() }),
    fc.record({ type: fc.constant('thinking'), thinking: arbitraryText(), signature: fc.string() }),
    fc.record({ type: fc.constant('refusal'), refusal: arbitraryText() }),
    opaqueBlock,
  ),
  { maxLength: 4 },
);

interface Plan {
  system: string | Array<Record<string, unknown>> | undefined;
  turns: Array<{
    human: { id?: string; content: string | Array<Record<string, unknown>>; chat?: boolean };
    steps: Array<{
      content: string | Array<Record<string, unknown>>;
      calls: Array<{
        name: string;
        args: Record<string, JsonValue>;
        typed: boolean;
        result: Record<string, unknown>;
      }>;
      meta: {
        id?: string;
        name?: string;
        kwargs: Record<string, JsonValue>;
        response: Record<string, JsonValue>;
      };
      usage: boolean;
    }>;
  }>;
}

const resultArbitrary = fc.record(
  {
    content: fc.oneof(arbitraryText(), fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 2 })),
    named: fc.boolean(),
    status: fc.constantFrom('success', 'error', undefined),
    artifact: arbitraryJsonValue(2),
    id: fc.uuid(),
  },
  { requiredKeys: ['content', 'named', 'id'] },
);

const planArbitrary: fc.Arbitrary<Plan> = fc.record({
  system: fc.option(
    fc.oneof(arbitraryText(), fc.array(textBlock, { minLength: 1, maxLength: 2 })),
    {
      nil: undefined,
    },
  ),
  turns: fc.array(
    fc.record({
      human: fc.record(
        { id: optionalId, content: fc.oneof(arbitraryText(), humanBlocks), chat: fc.boolean() },
        { requiredKeys: ['content'] },
      ),
      steps: fc.array(
        fc.record({
          content: fc.oneof(arbitraryText(), aiBlocks),
          calls: fc.array(
            fc.record({
              name: fc.constantFrom('lookup', 'search', 'read_file'),
              args: arbitraryToolInput(),
              typed: fc.boolean(),
              result: resultArbitrary,
            }),
            { maxLength: 3 },
          ),
          meta: fc.record({
            id: optionalId,
            name: optionalName,
            kwargs: jsonRecord,
            response: jsonRecord,
          }),
          usage: fc.boolean(),
        }),
        { maxLength: 3 },
      ),
    }),
    { minLength: 1, maxLength: 4 },
  ),
}) as fc.Arbitrary<Plan>;

function buildConversation(plan: Plan): BaseMessage[] {
  const messages: BaseMessage[] = [];
  let callNumber = 0;
  if (plan.system !== undefined)
    messages.push(new SystemMessage({ content: plan.system as never }));
  for (const turn of plan.turns) {
    messages.push(
      turn.human.chat
        ? new ChatMessage({
            content: turn.human.content as never,
            role: 'critic',
            id: turn.human.id,
          })
        : new HumanMessage({ content: turn.human.content as never, id: turn.human.id }),
    );
    for (const step of turn.steps) {
      const calls = step.calls.map((call) => ({ ...call, id: `call_${++callNumber}` }));
      messages.push(
        new AIMessage({
          content: step.content as never,
          tool_calls: calls.map((call) => ({
            id: call.id,
            name: call.name,
            args: call.args,
            ...(call.typed ? { type: 'tool_call' as const } : {}),
          })),
          additional_kwargs: step.meta.kwargs,
          response_metadata: step.meta.response,
          ...(step.meta.id ? { id: step.meta.id } : {}),
          ...(step.meta.name ? { name: step.meta.name } : {}),
          ...(step.usage
            ? { usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } }
            : {}),
        }),
      );
      for (const call of calls) {
        const result = call.result as {
          content: string | Array<Record<string, unknown>>;
          named: boolean;
          status?: 'success' | 'error';
          artifact?: JsonValue;
          id: string;
        };
        messages.push(
          new ToolMessage({
            content: result.content as never,
            tool_call_id: call.id,
            id: result.id,
            ...(result.named ? { name: call.name } : {}),
            ...(result.status ? { status: result.status } : {}),
            ...(result.artifact === undefined ? {} : { artifact: result.artifact }),
          }),
        );
      }
    }
  }
  return messages;
}

describe('LangChain conversion round trip (property)', () => {
  it('toLangChainMessages(fromLangChainMessages(x)) equals x in every field providers use', () => {
    fc.assert(
      fc.property(planArbitrary, (plan) => {
        const messages = buildConversation(plan);
        const core = fromLangChainMessages(messages);
        // Pairing survives the conversion: every call keeps its result.
        expect(checkToolPairing(core)).toEqual([]);
        // The core form is plain data that survives a JSON store.
        const stored = JSON.parse(JSON.stringify(core));
        const back = toLangChainMessages(stored);
        expect(back.map(messageView)).toEqual(messages.map(messageView));
      }),
      { numRuns: 150 },
    );
  });

  it('the converter gives back the very objects it was given', () => {
    fc.assert(
      fc.property(planArbitrary, (plan) => {
        const messages = buildConversation(plan);
        const converter = new MessageConverter();
        const back = converter.toLangChain(converter.fromLangChain(messages));
        expect(back.length).toBe(messages.length);
        back.forEach((message, index) => {
          expect(message).toBe(messages[index]);
        });
      }),
      { numRuns: 50 },
    );
  });
});
