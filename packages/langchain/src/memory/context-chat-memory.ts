import {
  DEFAULT_TEMPLATE_RESERVE_TOKENS,
  InvalidArgumentError,
  type MemoryToolsOptions,
  type Message,
  type PrepareOptions,
  type PrepareResult,
  type Scope,
} from '@ctxmem/core';
import {
  checkScope,
  isCtxmemMessage,
  leadingSystemCount,
  requireOptions,
} from '@ctxmem/core/adapter-kit';
import { BaseChatMemory, type BaseChatMemoryInput } from '@langchain/classic/memory';
import type { BaseChatMessageHistory } from '@langchain/core/chat_history';
import {
  getInputValue,
  getOutputValue,
  getPromptInputKey,
  type InputValues,
  type MemoryVariables,
  type OutputValues,
} from '@langchain/core/memory';
import { AIMessage, BaseMessage, getBufferString, HumanMessage } from '@langchain/core/messages';
import type { BasePromptTemplate } from '@langchain/core/prompts';
import { CTXMEM_KWARGS_KEY, MessageConverter } from '../convert/index.js';
import { answerText } from '../model/chat-model-complete.js';
import { providerUsageOfMessage } from '../model/chat-model-usage.js';
import {
  type ContextOptions,
  createContext,
  type LangChainContext,
} from '../model/create-context.js';
import { ContextChatMessageHistory } from './context-chat-message-history.js';

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
  /**
   * The prompt the history is formatted into. `loadMemoryVariables` then formats it with the
   * call's input (and an empty history) and counts the result, so the template's own messages,
   * the new input and the memories fit the window together with the history.
   * @default undefined (then `templateTokens` and the input's own tokens are reserved)
   */
  prompt?: BasePromptTemplate;
  /**
   * Tokens reserved for what the prompt template adds around the history when `prompt` is not
   * given. The input and the memories are counted on top.
   * @default DEFAULT_TEMPLATE_RESERVE_TOKENS from `@ctxmem/core` (1000)
   */
  templateTokens?: number;
  /**
   * The output the chain's model asks for (its `max_tokens`): reserved in the window, exactly, in
   * place of the manager's `reserve`. Needed when `model` is a model id; a chat model's own limit
   * is read from it.
   * @default the output limit `model` sets when it is a chat model (`maxTokens`, a bound
   * `max_tokens`: see `chatModelMaxOutputTokens`), else undefined (the manager's `reserve`)
   */
  maxOutputTokens?: number;
}

/** Shared between a memory and the memories `withScope` derives from it. */
interface SharedState {
  context: LangChainContext;
  converter: MessageConverter;
}

const SHARED = Symbol('ctxmem.sharedState');

/** The options `withScope` adds for the memory it creates, so derived memories share state. */
interface DerivedInput extends ContextChatMemoryInput {
  [SHARED]?: SharedState;
}

/**
 * The prepared messages with ctxmem's leading system block (the rolling summary, bootstrap
 * files) as one user message marked as ctxmem's: a chat prompt puts the history after its own
 * system message, and providers such as Anthropic and Google reject a second system message.
 */
function withoutLeadingSummary(messages: readonly Message[]): Message[] {
  const lead = leadingSystemCount(messages);
  const block = messages.slice(0, lead).filter(isCtxmemMessage);
  if (block.length === 0) return [...messages];
  const kept = messages.slice(0, lead).filter((message) => !isCtxmemMessage(message));
  const text = block.map((message) => message.content as string).join('\n\n');
  return [
    ...kept,
    { role: 'user', content: text, ctxmem: { kind: 'summary' } },
    ...messages.slice(lead),
  ];
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
 * history (`returnMessages: true` → messages, false → a string buffer) and, with `memory`, the
 * memories relevant to the input under `memoriesKey`. The history is budgeted together with what
 * the prompt adds (`prompt`, or `templateTokens` plus the input) and with the output the model
 * asks for (`maxOutputTokens`, read from a chat model `model`). With `returnMessages`, the
 * summary comes as the first message, a `HumanMessage` marked as ctxmem's, never as a
 * `SystemMessage` in the middle of the prompt (Anthropic and Google accept a system message only
 * first).
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
  private readonly prompt: BasePromptTemplate | undefined;
  private readonly templateTokens: number;
  private readonly maxOutputTokens: number | undefined;
  /**
   * What the last `loadMemoryVariables` reserved for the prompt: writes compact for the same
   * budget, so the next read finds the compaction ready instead of compacting again.
   */
  private lastReservedTokens: number | undefined;

  constructor(fields: ContextChatMemoryInput = {}) {
    const {
      [SHARED]: shared,
      chatHistory,
      returnMessages,
      inputKey,
      outputKey,
      memoryKey,
      memoriesKey,
      humanPrefix,
      aiPrefix,
      scope = {},
      prompt,
      templateTokens = DEFAULT_TEMPLATE_RESERVE_TOKENS,
      maxOutputTokens,
      ...contextOptions
    } = requireOptions(fields, 'ContextChatMemory') as DerivedInput;
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
    if (!Number.isSafeInteger(templateTokens) || templateTokens < 0) {
      throw new InvalidArgumentError({
        message: `templateTokens must be a non-negative integer, got ${String(templateTokens)}`,
        argument: 'templateTokens',
      });
    }
    if (
      maxOutputTokens !== undefined &&
      (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1)
    ) {
      throw new InvalidArgumentError({
        message: `maxOutputTokens must be a positive integer, got ${String(maxOutputTokens)}`,
        argument: 'maxOutputTokens',
      });
    }
    this.prompt = prompt;
    this.templateTokens = templateTokens;
    this[SHARED] = shared ?? {
      context: createContext(contextOptions, { recordHistory: true, injectMemories: false }),
      converter: new MessageConverter(),
    };
    this.maxOutputTokens = maxOutputTokens ?? this[SHARED].context.maxOutputTokens;
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
    const derived: DerivedInput = {
      [SHARED]: this[SHARED],
      ...(chatHistory ? { chatHistory } : {}),
      returnMessages: this.returnMessages,
      ...(this.inputKey === undefined ? {} : { inputKey: this.inputKey }),
      ...(this.outputKey === undefined ? {} : { outputKey: this.outputKey }),
      memoryKey: this.memoryKey,
      memoriesKey: this.memoriesKey,
      humanPrefix: this.humanPrefix,
      aiPrefix: this.aiPrefix,
      ...(this.prompt ? { prompt: this.prompt } : {}),
      templateTokens: this.templateTokens,
      ...(this.maxOutputTokens === undefined ? {} : { maxOutputTokens: this.maxOutputTokens }),
      scope,
    };
    return new ContextChatMemory(derived);
  }

  /**
   * The compressed history as LangChain messages: untouched messages are the very objects of the
   * chat history, ctxmem's summary, records and previews are new ones. Compacts when the history
   * crosses the threshold.
   */
  async compressedMessages(
    options: { abortSignal?: AbortSignal; reservedTokens?: number } = {},
  ): Promise<BaseMessage[]> {
    return (await this.prepare(options)).messages;
  }

  /**
   * Runs ctxmem over the whole history and reports what it did. `reservedTokens`: what the
   * caller adds around the history (see `PrepareOptions.reservedTokens`); by default what the last
   * `loadMemoryVariables` reserved, else `templateTokens`. With `returnMessages`, ctxmem's
   * leading system block comes back as one marked `HumanMessage`.
   */
  async prepare({
    abortSignal,
    reservedTokens,
  }: {
    abortSignal?: AbortSignal;
    reservedTokens?: number;
  } = {}): Promise<{
    messages: BaseMessage[];
    result: PrepareResult;
  }> {
    const { context } = this[SHARED];
    const { messages, options } = await this.request({
      ...(abortSignal ? { abortSignal } : {}),
      ...(reservedTokens === undefined ? {} : { reservedTokens }),
    });
    const result = await context.manager.prepare(messages, options);
    return { messages: this.promptMessages(result), result };
  }

  /**
   * Runs one model call with this memory's variables (those `loadMemoryVariables` returns for
   * `values`), recovering once when the provider rejects the call as too long: the history is
   * prepared again, smaller (see `ContextManager.callModel`), and `call` runs once more with the
   * new variables; a second rejection throws `ContextOverflowError`. When `call` returns a chat
   * model's message, its `usage_metadata.input_tokens` teaches the manager the provider's count.
   * Save the exchange with `saveContext` as usual.
   *
   * @example
   * const answer = await memory.callModel({ input }, (variables) => chain.invoke({ input, ...variables }));
   * await memory.saveContext({ input }, { output: answer });
   */
  async callModel<Output>(
    values: InputValues,
    call: (variables: MemoryVariables) => Promise<Output>,
    { abortSignal }: { abortSignal?: AbortSignal } = {},
  ): Promise<Output> {
    const { context } = this[SHARED];
    const { memoriesValue, reservedTokens } = await this.templateParts(values);
    this.lastReservedTokens = reservedTokens;
    const { messages, options } = await this.request({
      reservedTokens,
      ...(abortSignal ? { abortSignal } : {}),
    });
    return context.manager.callModel({
      messages,
      options,
      send: (result) => call(this.variablesOf(this.promptMessages(result), memoriesValue)),
      usage: providerUsageOfMessage,
    });
  }

  /** The chat history as ctxmem's messages, and how it is prepared. */
  private async request({
    abortSignal,
    reservedTokens,
  }: {
    abortSignal?: AbortSignal;
    reservedTokens?: number;
  }): Promise<{ messages: Message[]; options: PrepareOptions }> {
    const { converter } = this[SHARED];
    // A copy: the chat history's own array is never touched (`slice` keeps holes, to be named).
    const original = (await this.chatHistory.getMessages()).slice();
    const reserved = reservedTokens ?? this.lastReservedTokens ?? this.templateTokens;
    return {
      messages: converter.fromLangChain(original),
      options: {
        scope: this.scope,
        ...(abortSignal ? { abortSignal } : {}),
        reservedTokens: reserved,
        ...(this.maxOutputTokens === undefined ? {} : { maxOutputTokens: this.maxOutputTokens }),
      },
    };
  }

  /** A prepared history as LangChain messages (the leading summary as a message when needed). */
  private promptMessages(result: PrepareResult): BaseMessage[] {
    const { converter } = this[SHARED];
    const messages = this.returnMessages ? withoutLeadingSummary(result.messages) : result.messages;
    return converter.toLangChain(messages);
  }

  private variablesOf(messages: BaseMessage[], memoriesValue: unknown): MemoryVariables {
    const variables: MemoryVariables = {
      [this.memoryKey]: this.returnMessages
        ? messages
        : getBufferString(messages, this.humanPrefix, this.aiPrefix),
    };
    if (this[SHARED].context.search) variables[this.memoriesKey] = memoriesValue;
    return variables;
  }

  /** The memories for `values` and what the prompt adds around the history, in tokens. */
  private async templateParts(
    values: InputValues,
  ): Promise<{ memoriesValue: unknown; reservedTokens: number }> {
    const { context, converter } = this[SHARED];
    const counter = context.manager.counter;
    const input = this.inputText(values);
    const memories = context.search
      ? await context.manager.relevantMemories(this.scope, input)
      : undefined;
    const memoriesValue = this.returnMessages
      ? memories
        ? [
            new HumanMessage({
              content: memories.text,
              additional_kwargs: { [CTXMEM_KWARGS_KEY]: { kind: 'memory-injection' } },
            }),
          ]
        : []
      : (memories?.text ?? '');
    // What the prompt adds around the history: counted exactly when the prompt is known.
    let reservedTokens: number;
    if (this.prompt) {
      const formatted = await this.prompt.formatPromptValue({
        ...values,
        [this.memoryKey]: this.returnMessages ? [] : '',
        ...(context.search ? { [this.memoriesKey]: memoriesValue } : {}),
      });
      reservedTokens = counter.countMessages(converter.fromLangChain(formatted.toChatMessages()));
    } else {
      reservedTokens =
        this.templateTokens +
        (input === '' ? 0 : counter.countMessage({ role: 'user', content: input })) +
        (memories ? counter.countMessage({ role: 'user', content: memories.text }) : 0);
    }
    return { memoriesValue, reservedTokens };
  }

  async loadMemoryVariables(values: InputValues): Promise<MemoryVariables> {
    const { memoriesValue, reservedTokens } = await this.templateParts(values);
    this.lastReservedTokens = reservedTokens;
    const { messages } = await this.prepare({ reservedTokens });
    return this.variablesOf(messages, memoriesValue);
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
