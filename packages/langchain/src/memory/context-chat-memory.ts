import {
  InvalidArgumentError,
  type MemoryToolsOptions,
  type PrepareResult,
  type Scope,
} from '@ctxmem/core';
import { BaseChatMemory, type BaseChatMemoryInput } from '@langchain/classic/memory';
import { BaseChatMessageHistory } from '@langchain/core/chat_history';
import {
  getInputValue,
  getOutputValue,
  getPromptInputKey,
  type InputValues,
  type MemoryVariables,
  type OutputValues,
} from '@langchain/core/memory';
import { AIMessage, BaseMessage, getBufferString, HumanMessage } from '@langchain/core/messages';
import { CTXMEM_KWARGS_KEY, MessageConverter } from '../convert/index.js';
import { answerText } from '../model/chat-model-complete.js';
import {
  type ContextOptions,
  createContext,
  type LangChainContext,
} from '../model/create-context.js';

export interface ContextChatMemoryInput extends BaseChatMemoryInput, ContextOptions {
  /** The key the compressed history is returned under. @default 'history' */
  memoryKey?: string;
  /** The key relevant long-term memories are returned under (only when `memory` is set). @default 'memories' */
  memoriesKey?: string;
  /** Prefix of human messages in the string buffer (`returnMessages: false`). @default 'Human' */
  humanPrefix?: string;
  /** Prefix of AI messages in the string buffer (`returnMessages: false`). @default 'AI' */
  aiPrefix?: string;
  /**
   * Whose conversation this is: every store key includes it. Give each chat a `sessionId` (and a
   * `userId` when memories are per user).
   * @default {}
   */
  scope?: Scope;
}

/** Shared between a memory and the memories `withScope` derives from it. */
interface SharedState {
  context: LangChainContext;
  converter: MessageConverter;
}

const SHARED = Symbol('ctxmem.sharedState');

/** Set by `withScope` for the constructor it calls, so derived memories share their state. */
let inherited: SharedState | undefined;

function checkScope(scope: unknown): Scope {
  if (typeof scope !== 'object' || scope === null || Array.isArray(scope)) {
    throw new InvalidArgumentError({
      message: 'scope must be an object like { userId, sessionId }',
      argument: 'scope',
    });
  }
  for (const field of ['userId', 'sessionId', 'agentId'] as const) {
    const value = (scope as Scope)[field];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) {
      throw new InvalidArgumentError({
        message: `scope.${field} must be a non-empty string`,
        argument: 'scope',
      });
    }
  }
  return scope as Scope;
}

/** Messages for a saved input or output: text becomes a message of `kind`, messages stay whole. */
function asMessages(value: unknown, kind: 'human' | 'ai', key: string): BaseMessage[] {
  if (typeof value === 'string')
    return [kind === 'human' ? new HumanMessage(value) : new AIMessage(value)];
  if (BaseMessage.isInstance(value)) return [value];
  if (Array.isArray(value) && value.every((item) => BaseMessage.isInstance(item))) return value;
  throw new InvalidArgumentError({
    message: `${key} must be a string, a message or an array of messages`,
    argument: key,
  });
}

/** The text of the current input, for the memory search: a string, a message or the last message. */
function queryText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (BaseMessage.isInstance(value)) return answerText(value);
  if (Array.isArray(value)) {
    const last = value.at(-1);
    return BaseMessage.isInstance(last) ? answerText(last) : '';
  }
  return '';
}

/**
 * A LangChain chat memory that keeps the history it returns inside the model's budget. The full
 * history stays in `chatHistory` (any `BaseChatMessageHistory`: in memory, a file, Redis,
 * Postgres…), which is only read and appended to; the compaction (rolling summary, offloaded
 * payloads, extracted memories) lives in ctxmem's stores and is reused while the history grows, so
 * the summarizer runs once per threshold crossing. `loadMemoryVariables` returns the compressed
 * history (`returnMessages: true` → messages with the summary as a `SystemMessage`; false → a
 * string buffer) and, with `memory`, the memories relevant to the input under `memoriesKey`.
 *
 * @example
 * const memory = new ContextChatMemory({ model: chatModel, returnMessages: true, scope: { sessionId } });
 * const { history } = await memory.loadMemoryVariables({ input });
 * const answer = await chain.invoke({ input, history });
 * await memory.saveContext({ input }, { output: answer });
 */
export class ContextChatMemory extends BaseChatMemory {
  memoryKey = 'history';
  memoriesKey = 'memories';
  humanPrefix = 'Human';
  aiPrefix = 'AI';
  readonly scope: Scope;
  private readonly [SHARED]: SharedState;

  constructor(fields: ContextChatMemoryInput = {}) {
    const shared = inherited;
    inherited = undefined;
    const {
      chatHistory,
      returnMessages,
      inputKey,
      outputKey,
      memoryKey,
      memoriesKey,
      humanPrefix,
      aiPrefix,
      scope = {},
      ...contextOptions
    } = fields;
    super({
      ...(chatHistory ? { chatHistory } : {}),
      ...(returnMessages === undefined ? {} : { returnMessages }),
      ...(inputKey === undefined ? {} : { inputKey }),
      ...(outputKey === undefined ? {} : { outputKey }),
    });
    this.memoryKey = memoryKey ?? this.memoryKey;
    this.memoriesKey = memoriesKey ?? this.memoriesKey;
    this.humanPrefix = humanPrefix ?? this.humanPrefix;
    this.aiPrefix = aiPrefix ?? this.aiPrefix;
    this.scope = checkScope(scope);
    this[SHARED] = shared ?? {
      context: createContext(contextOptions, { recordHistory: true }),
      converter: new MessageConverter(),
    };
  }

  get memoryKeys(): string[] {
    return this[SHARED].context.search ? [this.memoryKey, this.memoriesKey] : [this.memoryKey];
  }

  /** The stores this memory reads and writes, for `memoryTools`. */
  get stores(): MemoryToolsOptions {
    return this[SHARED].context.stores;
  }

  /**
   * A memory of another conversation that shares this one's settings, stores and compaction
   * caches (one per session is cheap): for `RunnableWithMessageHistory` and multi-user servers.
   * @default chatHistory a new in-memory history
   */
  withScope(scope: Scope, chatHistory?: BaseChatMessageHistory): ContextChatMemory {
    inherited = this[SHARED];
    return new ContextChatMemory({
      ...(chatHistory ? { chatHistory } : {}),
      returnMessages: this.returnMessages,
      ...(this.inputKey === undefined ? {} : { inputKey: this.inputKey }),
      ...(this.outputKey === undefined ? {} : { outputKey: this.outputKey }),
      memoryKey: this.memoryKey,
      memoriesKey: this.memoriesKey,
      humanPrefix: this.humanPrefix,
      aiPrefix: this.aiPrefix,
      scope,
    });
  }

  /**
   * The compressed history as LangChain messages: untouched messages are the very objects of the
   * chat history, ctxmem's summary, records and previews are new ones. Compacts when the history
   * crosses the threshold.
   */
  async compressedMessages(options: { abortSignal?: AbortSignal } = {}): Promise<BaseMessage[]> {
    return (await this.prepare(options)).messages;
  }

  /** Runs ctxmem over the whole history and reports what it did. */
  async prepare({ abortSignal }: { abortSignal?: AbortSignal } = {}): Promise<{
    messages: BaseMessage[];
    result: PrepareResult;
  }> {
    const { context, converter } = this[SHARED];
    // A copy: the chat history's own array is never touched.
    const original = [...(await this.chatHistory.getMessages())];
    const result = await context.manager.prepare(converter.fromLangChain(original), {
      scope: this.scope,
      ...(abortSignal ? { abortSignal } : {}),
    });
    return { messages: converter.toLangChain(result.messages), result };
  }

  async loadMemoryVariables(values: InputValues): Promise<MemoryVariables> {
    const messages = await this.compressedMessages();
    const variables: MemoryVariables = {
      [this.memoryKey]: this.returnMessages
        ? messages
        : getBufferString(messages, this.humanPrefix, this.aiPrefix),
    };
    const { context } = this[SHARED];
    if (context.search) {
      const memories = await context.relevantMemories(this.scope, this.inputText(values));
      variables[this.memoriesKey] = this.returnMessages
        ? memories
          ? [
              new HumanMessage({
                content: memories.text,
                additional_kwargs: { [CTXMEM_KWARGS_KEY]: { kind: 'memory-injection' } },
              }),
            ]
          : []
        : (memories?.text ?? '');
    }
    return variables;
  }

  /** Appends the input and the output (text or whole messages, tool calls included), then compacts when triggered. */
  override async saveContext(inputValues: InputValues, outputValues: OutputValues): Promise<void> {
    const input = asMessages(getInputValue(inputValues, this.inputKey), 'human', 'inputValues');
    const output = asMessages(getOutputValue(outputValues, this.outputKey), 'ai', 'outputValues');
    await this.chatHistory.addMessages([...input, ...output]);
    await this.prepare();
  }

  /** Clears the chat history and ctxmem's state of this conversation (its stored history included). */
  override async clear(): Promise<void> {
    await super.clear();
    await this[SHARED].context.manager.clear(this.scope);
  }

  /** Resolves when background compactions and memory flushes have settled. */
  async idle(): Promise<void> {
    await this[SHARED].context.manager.idle();
  }

  /**
   * This memory as a chat message history whose `getMessages()` returns the compressed history:
   * for `RunnableWithMessageHistory` (`getMessageHistory: (sessionId) =>
   * memory.withScope({ sessionId }, histories(sessionId)).asChatMessageHistory()`).
   */
  asChatMessageHistory(): ContextChatMessageHistory {
    return new ContextChatMessageHistory(this);
  }

  private inputText(values: InputValues): string {
    try {
      const key = this.inputKey ?? getPromptInputKey(values, this.memoryKeys);
      return queryText(values[key]);
    } catch {
      // Several candidate inputs and no inputKey: no query, no memories.
      return '';
    }
  }
}

/**
 * A chat message history over a `ContextChatMemory`: reads return the compressed history, writes
 * append to the memory's underlying history and compact when triggered, `clear` clears both.
 */
export class ContextChatMessageHistory extends BaseChatMessageHistory {
  lc_namespace = ['ctxmem', 'langchain'];

  constructor(readonly memory: ContextChatMemory) {
    super();
  }

  getMessages(): Promise<BaseMessage[]> {
    return this.memory.compressedMessages();
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  override async addMessages(messages: BaseMessage[]): Promise<void> {
    await this.memory.chatHistory.addMessages(messages);
    await this.memory.prepare();
  }

  async addUserMessage(message: string): Promise<void> {
    await this.addMessages([new HumanMessage(message)]);
  }

  async addAIMessage(message: string): Promise<void> {
    await this.addMessages([new AIMessage(message)]);
  }

  async clear(): Promise<void> {
    await this.memory.clear();
  }
}
