/**
 * Test support (not part of the package's API): a scripted LangChain chat model that plays a
 * tool-using agent, deterministic filler text, and a view of the message fields to compare.
 */
import { SUMMARY_SYSTEM_PROMPT } from '@ctxmem/core';
import { summaryReply as summaryAnswer, fillerText as words } from '@ctxmem/core/test';
import {
  BaseChatModel,
  type BaseChatModelParams,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

// One filler text and one summary reply for every package's tests.
export { summaryAnswer, words };

/** The fields providers and LangChain read, for comparing messages. */
export function messageView(message: BaseMessage): Record<string, unknown> {
  const fields = message as BaseMessage & Record<string, unknown>;
  return {
    type: message.type,
    id: message.id,
    name: message.name,
    content: message.content,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    tool_calls: fields.tool_calls,
    invalid_tool_calls: fields.invalid_tool_calls,
    usage_metadata: fields.usage_metadata,
    tool_call_id: fields.tool_call_id,
    status: fields.status,
    artifact: fields.artifact,
    metadata: fields.metadata,
    role: fields.role,
  };
}

/** `rounds` rounds of a question and a long answer, with ids: a history to compact. */
export function historyRounds(rounds: number): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (let turn = 1; turn <= rounds; turn++) {
    messages.push(
      new HumanMessage({ content: `Turn ${turn}: ${words(turn, 60)}?`, id: `h${turn}` }),
      new AIMessage({ content: words(turn + 1_000, 220), id: `a${turn}` }),
    );
  }
  return messages;
}

/** The text of a message's content. */
export function textOf(message: BaseMessage): string {
  return typeof message.content === 'string' ? message.content : message.text;
}

/** True when the messages are a call of ctxmem's model summarizer. */
export function isSummaryRequest(messages: readonly BaseMessage[]): boolean {
  const first = messages[0];
  return first?.type === 'system' && textOf(first).startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 80));
}

export type ScriptedAnswer = AIMessage | string | Error;

/**
 * A chat model whose answers come from a function of the messages it receives. It records every
 * call, binds tools by returning itself, and reports `model` for the window registry.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly calls: BaseMessage[][] = [];
  readonly model: string;
  /** The output limit, named as ChatOpenAI and ChatAnthropic name it. */
  readonly maxTokens: number | undefined;

  constructor(
    private readonly respond: (
      messages: BaseMessage[],
      call: number,
    ) => ScriptedAnswer | Promise<ScriptedAnswer>,
    {
      model = 'scripted-model',
      maxTokens,
      ...fields
    }: BaseChatModelParams & { model?: string; maxTokens?: number } = {},
  ) {
    super(fields);
    this.model = model;
    this.maxTokens = maxTokens;
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    const answer = await this.respond(messages, this.calls.length - 1);
    if (answer instanceof Error) throw answer;
    const message = typeof answer === 'string' ? new AIMessage(answer) : answer;
    return {
      generations: [{ text: typeof message.content === 'string' ? message.content : '', message }],
    };
  }
}

/**
 * Plays an agent: a tool call until the current turn has `toolSteps` tool results, then a final
 * text; summary requests get a summary. Tool-call ids are unique across the conversation.
 */
export function createScriptedAgent({
  toolSteps = 2,
  toolName = 'lookup',
  failSummaries = false,
  maxTokens,
}: {
  toolSteps?: number;
  toolName?: string;
  failSummaries?: boolean;
  /** The model's output limit. @default undefined (none) */
  maxTokens?: number;
} = {}) {
  let nextCall = 0;
  const state = { summaryCalls: 0, agentCalls: 0 };
  const model = new ScriptedChatModel(
    (messages) => {
      if (isSummaryRequest(messages)) {
        state.summaryCalls++;
        if (failSummaries) return new Error('summary model is down');
        return summaryAnswer(String(state.summaryCalls));
      }
      state.agentCalls++;
      let lastHuman = messages.length - 1;
      while (lastHuman >= 0 && messages[lastHuman]!.type !== 'human') lastHuman--;
      const results = messages
        .slice(lastHuman + 1)
        .filter((message) => message.type === 'tool').length;
      if (results < toolSteps) {
        nextCall++;
        return new AIMessage({
          content: '',
          tool_calls: [
            {
              id: `call_${nextCall}`,
              name: toolName,
              args: { query: `q${nextCall}`, page: results },
              type: 'tool_call',
            },
          ],
        });
      }
      return new AIMessage(`Done: ${words(nextCall, 12)}`);
    },
    maxTokens === undefined ? {} : { maxTokens },
  );
  return { model, state };
}

/** A LangChain history no entry point may accept, with where and what the problem is. */
export interface BrokenLangChainHistory {
  name: string;
  /** Fresh messages: a question, a tool call, its result and a follow-up, one of them broken. */
  messages: unknown[];
  path: string;
  problem: string;
}

/**
 * LangChain histories that cannot be sent or stored, in the fields the converters carry into
 * core messages (kwargs, metadata, tool call arguments, content blocks): cycles, a BigInt, a
 * function, a getter that throws, and a hole, `undefined` or `null` where a message should be.
 */
export function brokenLangChainHistories(): BrokenLangChainHistory[] {
  const history = () => [
    new HumanMessage('Look it up.'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'lookup', args: { q: 'x' } }] }),
    new ToolMessage({ content: 'found it', tool_call_id: 'c1', name: 'lookup' }),
    new HumanMessage('Thanks. And now?'),
  ];
  type Loose = Record<string, unknown>;
  const cases: BrokenLangChainHistory[] = [];
  const add = (
    name: string,
    path: string,
    problem: string,
    corrupt: (list: unknown[]) => unknown[],
  ) => cases.push({ name, messages: corrupt(history()), path, problem });
  add(
    'kwargs that refer to themselves',
    'messages[1].additional_kwargs.self',
    'circular reference',
    (list) => {
      const kwargs = (list[1] as AIMessage).additional_kwargs as Loose;
      kwargs.self = kwargs;
      return list;
    },
  );
  add(
    'a cycle in tool call arguments',
    'messages[1].tool_calls[0].args.self',
    'circular reference',
    (list) => {
      const args = (list[1] as AIMessage).tool_calls![0]!.args as Loose;
      args.self = args;
      return list;
    },
  );
  add(
    'a BigInt in response metadata',
    'messages[1].response_metadata.tokens',
    'a bigint is not a JSON value',
    (list) => {
      ((list[1] as AIMessage).response_metadata as Loose).tokens = BigInt(12);
      return list;
    },
  );
  add(
    'a function in a content block',
    'messages[0].content[0].onClick',
    'a function is not a JSON value',
    (list) => {
      list[0] = new HumanMessage({
        content: [{ type: 'text', text: 'Look it up.', onClick: () => 'clicked' } as never],
      });
      return list;
    },
  );
  add(
    'a getter that throws',
    'messages[3].additional_kwargs.token',
    'reading it threw (Error: token revoked)',
    (list) => {
      Object.defineProperty((list[3] as HumanMessage).additional_kwargs, 'token', {
        enumerable: true,
        get: () => {
          throw new Error('token revoked');
        },
      });
      return list;
    },
  );
  add('a hole', 'messages[1]', 'hole', (list) => {
    const sparse = [list[0]];
    sparse.length = 2;
    sparse.push(...list.slice(2));
    return sparse;
  });
  add('an undefined entry', 'messages[1]', 'expected a message, got undefined', (list) => [
    list[0],
    undefined,
    ...list.slice(2),
  ]);
  add('a null entry', 'messages[1]', 'expected a message, got null', (list) => [
    list[0],
    null,
    ...list.slice(2),
  ]);
  return cases;
}
