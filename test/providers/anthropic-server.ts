/**
 * A local fake of Anthropic's Messages API (`POST /v1/messages`, JSON and server-sent events) that
 * enforces the documented request rules and answers rule breaks and overflows with Anthropic's
 * error bodies and status codes. Sources of each rule:
 *
 * - Tool use (https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use):
 *   every `tool_use` is answered by a `tool_result` in the user message right after the assistant
 *   message that holds it, each `tool_result` answers a `tool_use` of the message before, and the
 *   tool results come first in that user message; `tool_use` ids are unique.
 * - Prompt caching (https://docs.claude.com/en/docs/build-with-claude/prompt-caching): at most 4
 *   `cache_control` breakpoints per request.
 * - Extended thinking (https://docs.claude.com/en/docs/build-with-claude/extended-thinking): with
 *   thinking on, the final assistant message of a tool loop starts with its thinking block, passed
 *   back complete and unmodified (the signature is checked); a message holding thinking starts
 *   with it; with thinking off, a final assistant message holds none. Thinking of earlier turns
 *   is stripped and not counted.
 * - Messages API (https://docs.claude.com/en/api/messages): roles are `user` and `assistant`,
 *   consecutive turns of one role are combined, content is not empty, text blocks are not blank.
 * - Context windows (https://docs.claude.com/en/docs/build-with-claude/context-windows): input
 *   over the window is `prompt is too long: N tokens > M maximum`; input plus `max_tokens` over it
 *   is rejected by models before Claude Sonnet 4.5 (`outputCountsAgainstWindow`).
 * - Context editing and compaction (https://docs.claude.com/en/docs/build-with-claude/context-editing,
 *   https://platform.claude.com/docs/en/build-with-claude/compaction): `clear_tool_uses` clears the
 *   oldest tool results once the input crosses its trigger; `compact` answers with a `compaction`
 *   block, and blocks before a compaction block passed back are dropped (not counted).
 *
 * The error texts are the API's own, as reported in public bug reports where the docs do not quote
 * them. Tokens are counted as Anthropic might (see `provider-tokens.ts`), not as ctxmem does.
 */
import { type FakeHttpServer, type ProviderRequest, startFakeHttpServer } from './http-server.js';
import {
  createProviderTokenizer,
  type ProviderTokenizer,
  type ProviderTokenizerSettings,
} from './provider-tokens.js';
import { type FakeProviderServer, fakeProviderServer, RuleBreak } from './rule-break.js';
import {
  createSigner,
  outputTokens,
  type ScriptedHandler,
  type ScriptedReply,
  type Signer,
} from './scripted-reply.js';

export const ANTHROPIC_TOKENIZER: ProviderTokenizerSettings = {
  scale: 1.2,
  punctuationWeight: 0.28,
  cjkWeight: 0.6,
  perMessage: 4,
  perBlock: 3,
  perTool: 40,
  perRequest: 10,
};

export interface AnthropicServerOptions {
  /** Decides each answer. */
  handler: ScriptedHandler;
  /** The model's context window. @default 200_000 */
  contextWindow?: number;
  /**
   * Rejects input plus `max_tokens` over the window, as models before Claude Sonnet 4.5 do; newer
   * models answer and stop with `model_context_window_exceeded` when the output runs out of room
   * (the context-windows docs). @default false
   */
  outputCountsAgainstWindow?: boolean;
  /** Overrides of how the server counts tokens. @default ANTHROPIC_TOKENIZER */
  tokenizer?: Partial<ProviderTokenizerSettings>;
}

type Block = Record<string, unknown> & { type: string };

interface Turn {
  role: 'user' | 'assistant';
  /** Index of the turn's first message in `messages`. */
  message: number;
  blocks: Array<{ block: Block; path: string }>;
}

const BLOCK_TYPES = new Set([
  'text',
  'image',
  'document',
  'search_result',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'thinking',
  'redacted_thinking',
  'compaction',
  'container_upload',
]);
const ASSISTANT_ONLY = new Set(['tool_use', 'server_tool_use', 'thinking', 'redacted_thinking']);
const THINKING = new Set(['thinking', 'redacted_thinking']);

function errorBody(type: string, message: string) {
  return {
    type: 'error',
    error: { type, message },
    request_id: `req_fake${Math.random().toString(36).slice(2, 12)}`,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function blocksOf(content: unknown, path: string): Block[] {
  if (typeof content === 'string') {
    if (content.length === 0) {
      throw new RuleBreak(
        `${path}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    return [{ type: 'text', text: content }];
  }
  if (!Array.isArray(content)) throw new RuleBreak(`${path}.content: Field required`);
  return content.map((block, index) => {
    if (!isObject(block) || typeof block.type !== 'string') {
      throw new RuleBreak(`${path}.content.${index}.type: Field required`);
    }
    return block as Block;
  });
}

function hasThinkingOn(body: Record<string, unknown>): boolean {
  const thinking = body.thinking;
  return isObject(thinking) && (thinking.type === 'enabled' || thinking.type === 'adaptive');
}

function toolResultText(block: Block): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((item) =>
      isObject(item) && typeof item.text === 'string' ? item.text : JSON.stringify(item),
    )
    .join('\n');
}

/** Checks every rule; returns the turns (consecutive messages of one role combined). */
function checkRequest(body: Record<string, unknown>, signer: Signer): Turn[] {
  if (typeof body.model !== 'string') throw new RuleBreak('model: Field required');
  if (typeof body.max_tokens !== 'number') throw new RuleBreak('max_tokens: Field required');
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new RuleBreak('messages: Field required');
  }
  let cacheControls = 0;
  const countCache = (value: unknown) => {
    if (isObject(value) && value.cache_control != null) cacheControls++;
  };
  if (Array.isArray(body.system)) body.system.forEach(countCache);
  if (Array.isArray(body.tools)) body.tools.forEach(countCache);

  const turns: Turn[] = [];
  messages.forEach((message, index) => {
    const path = `messages.${index}`;
    if (!isObject(message)) throw new RuleBreak(`${path}: Input should be a valid dictionary`);
    const { role } = message;
    if (role !== 'user' && role !== 'assistant') {
      throw new RuleBreak(`${path}.role: Input should be 'user' or 'assistant'`);
    }
    const blocks = blocksOf(message.content, path);
    const isFinal = index === messages.length - 1;
    if (blocks.length === 0 && !(isFinal && role === 'assistant')) {
      throw new RuleBreak(
        `${path}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    blocks.forEach((block, position) => {
      const blockPath = `${path}.content.${position}`;
      if (!BLOCK_TYPES.has(block.type)) {
        throw new RuleBreak(
          `${blockPath}.type: Input tag '${block.type}' found using 'type' does not match any of the expected tags`,
        );
      }
      countCache(block);
      if (block.type === 'text') {
        if (typeof block.text !== 'string' || block.text.length === 0) {
          throw new RuleBreak(`${blockPath}.text: text content blocks must be non-empty`);
        }
        if (block.text.trim() === '') {
          throw new RuleBreak(
            `${blockPath}.text: text content blocks must contain non-whitespace text`,
          );
        }
      }
      if (role === 'user' && ASSISTANT_ONLY.has(block.type)) {
        throw new RuleBreak(
          `${blockPath}: \`${block.type}\` blocks can only be in \`assistant\` messages`,
        );
      }
      if (role === 'assistant' && block.type === 'tool_result') {
        throw new RuleBreak(
          `${blockPath}: \`tool_result\` blocks can only be in \`user\` messages`,
        );
      }
      if (
        block.type === 'thinking' &&
        !signer.verify('thinking', String(block.thinking), block.signature)
      ) {
        throw new RuleBreak(`${blockPath}: Invalid \`signature\` in \`thinking\` block`);
      }
      if (block.type === 'redacted_thinking' && signer.open('redacted', block.data) === undefined) {
        throw new RuleBreak(`${blockPath}: Invalid \`data\` in \`redacted_thinking\` block`);
      }
      if (block.type === 'compaction') {
        if (block.content === '') {
          throw new RuleBreak(`${blockPath}.content: Empty string content is not allowed`);
        }
        if (
          block.signature != null &&
          !signer.verify('compaction', String(block.content), block.signature)
        ) {
          throw new RuleBreak(`${blockPath}: Invalid \`signature\` in \`compaction\` block`);
        }
      }
    });
    if (role === 'assistant' && blocks.some((block) => THINKING.has(block.type))) {
      // A compaction block goes before everything else the model wrote (the API's own order).
      const firstIndex = blocks.findIndex((block) => block.type !== 'compaction');
      const first = blocks[firstIndex]!;
      if (!THINKING.has(first.type)) {
        throw new RuleBreak(
          `${path}.content.${firstIndex}: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found ${first.type}.`,
        );
      }
    }
    const tagged = blocks.map((block, position) => ({
      block,
      path: `${path}.content.${position}`,
    }));
    const previous = turns.at(-1);
    // "Consecutive user or assistant turns in your request will be combined into a single turn."
    if (previous?.role === role) previous.blocks.push(...tagged);
    else turns.push({ role, message: index, blocks: tagged });
  });
  if (cacheControls > 4) {
    throw new RuleBreak(
      `A maximum of 4 blocks with cache_control may be provided. Found ${cacheControls}.`,
    );
  }

  const seen = new Set<string>();
  turns.forEach((turn, turnIndex) => {
    if (turn.role === 'assistant') {
      const ids: string[] = [];
      for (const { block, path } of turn.blocks) {
        if (block.type !== 'tool_use') continue;
        const id = String(block.id);
        if (seen.has(id)) throw new RuleBreak(`${path}: \`tool_use\` ids must be unique`);
        seen.add(id);
        ids.push(id);
      }
      const next = turns[turnIndex + 1];
      const answered = new Set(
        next?.role === 'user'
          ? next.blocks
              .filter(({ block }) => block.type === 'tool_result')
              .map(({ block }) => String(block.tool_use_id))
          : [],
      );
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        throw new RuleBreak(
          `messages.${turn.message}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
      return;
    }
    const previous = turns[turnIndex - 1];
    const calls = new Set(
      previous?.role === 'assistant'
        ? previous.blocks
            .filter(({ block }) => block.type === 'tool_use')
            .map(({ block }) => String(block.id))
        : [],
    );
    let otherContent = false;
    for (const { block, path } of turn.blocks) {
      if (block.type !== 'tool_result') {
        otherContent = true;
        continue;
      }
      if (!calls.has(String(block.tool_use_id))) {
        throw new RuleBreak(
          `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      if (otherContent) {
        throw new RuleBreak(
          `${path}: \`tool_result\` blocks must come first in the content array, before any other content`,
        );
      }
    }
  });

  const last = turns.at(-1)!;
  const finalAssistant = last.role === 'assistant' ? last : turns.at(-2);
  if (hasThinkingOn(body)) {
    const inToolLoop =
      last.role === 'user' && last.blocks.some(({ block }) => block.type === 'tool_result');
    const first = finalAssistant?.blocks.find(({ block }) => block.type !== 'compaction');
    if (inToolLoop && finalAssistant && first && !THINKING.has(first.block.type)) {
      throw new RuleBreak(
        `${first.path}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first.block.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
      );
    }
  } else if (last.role === 'assistant') {
    const thinking = last.blocks.find(({ block }) => THINKING.has(block.type));
    if (thinking) {
      throw new RuleBreak(
        `${thinking.path}: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
      );
    }
  }
  return turns;
}

interface ContextEdits {
  clearToolUses?: { trigger: number; keep: number; excludeTools: Set<string> };
  compact?: { trigger: number; pauseAfterCompaction: boolean };
}

function contextEdits(body: Record<string, unknown>): ContextEdits {
  const edits = isObject(body.context_management) ? body.context_management.edits : undefined;
  const result: ContextEdits = {};
  if (!Array.isArray(edits)) return result;
  for (const edit of edits) {
    if (!isObject(edit)) continue;
    const trigger =
      isObject(edit.trigger) && typeof edit.trigger.value === 'number'
        ? edit.trigger.value
        : undefined;
    if (edit.type === 'clear_tool_uses_20250919') {
      result.clearToolUses = {
        trigger: trigger ?? 100_000,
        keep: isObject(edit.keep) && typeof edit.keep.value === 'number' ? edit.keep.value : 3,
        excludeTools: new Set(
          Array.isArray(edit.exclude_tools) ? edit.exclude_tools.map(String) : [],
        ),
      };
    }
    if (edit.type === 'compact_20260112') {
      result.compact = {
        trigger: trigger ?? 150_000,
        pauseAfterCompaction: edit.pause_after_compaction === true,
      };
    }
  }
  return result;
}

function countRequest(
  body: Record<string, unknown>,
  turns: readonly Turn[],
  tokenizer: ProviderTokenizer,
  cleared: ReadonlySet<string> = new Set(),
): number {
  const { settings } = tokenizer;
  let tokens = settings.perRequest;
  const system = body.system;
  if (typeof system === 'string') tokens += settings.perMessage + tokenizer.text(system);
  else if (Array.isArray(system)) {
    tokens += settings.perMessage;
    for (const block of system) {
      if (isObject(block) && typeof block.text === 'string')
        tokens += settings.perBlock + tokenizer.text(block.text);
    }
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) {
      if (!isObject(tool)) continue;
      const { cache_control: _cache, ...definition } = tool;
      tokens += settings.perTool + tokenizer.json(definition);
    }
  }
  // Blocks before the newest compaction block are dropped by the API.
  let start = 0;
  let startBlock = 0;
  turns.forEach((turn, turnIndex) => {
    turn.blocks.forEach(({ block }, blockIndex) => {
      if (block.type === 'compaction' && block.content != null) {
        start = turnIndex;
        startBlock = blockIndex;
      }
    });
  });
  // Thinking of turns before the newest user text is stripped from the context.
  let currentTurn = 0;
  turns.forEach((turn, turnIndex) => {
    if (turn.role === 'user' && turn.blocks.some(({ block }) => block.type !== 'tool_result')) {
      currentTurn = turnIndex;
    }
  });
  for (let turnIndex = start; turnIndex < turns.length; turnIndex++) {
    const turn = turns[turnIndex]!;
    tokens += settings.perMessage;
    const blocks = turnIndex === start ? turn.blocks.slice(startBlock) : turn.blocks;
    for (const { block } of blocks) {
      tokens += settings.perBlock;
      switch (block.type) {
        case 'text':
          tokens += tokenizer.text(String(block.text));
          break;
        case 'tool_use':
          tokens += tokenizer.text(String(block.name)) + tokenizer.json(block.input ?? {});
          break;
        case 'tool_result':
          tokens += cleared.has(String(block.tool_use_id))
            ? 8
            : tokenizer.text(toolResultText(block));
          break;
        case 'thinking':
          if (turnIndex > currentTurn) tokens += tokenizer.text(String(block.thinking));
          break;
        case 'redacted_thinking':
          if (turnIndex > currentTurn) tokens += 64;
          break;
        case 'compaction':
          tokens += tokenizer.text(String(block.content ?? ''));
          break;
        case 'image':
        case 'document':
          tokens += 1_500;
          break;
        default:
          tokens += tokenizer.json(block);
      }
    }
  }
  return tokens;
}

/** Tool results `clear_tool_uses` clears: all but the newest `keep`, oldest first, until under the trigger. */
function clearToolUses(
  turns: readonly Turn[],
  keep: number,
  excludeTools: ReadonlySet<string>,
): Set<string> {
  const names = new Map<string, string>();
  const results: string[] = [];
  for (const turn of turns) {
    for (const { block } of turn.blocks) {
      if (block.type === 'tool_use') names.set(String(block.id), String(block.name));
      if (block.type === 'tool_result') results.push(String(block.tool_use_id));
    }
  }
  const clearable = results.filter((id) => !excludeTools.has(names.get(id) ?? ''));
  return new Set(clearable.slice(0, Math.max(0, clearable.length - keep)));
}

export interface AnthropicServer extends FakeProviderServer {}

/**
 * Starts the fake Messages API. `url` is the base URL for `createAnthropic({ baseURL })` and
 * `ChatAnthropic({ anthropicApiUrl })` (with and without `/v1`: both are served).
 */
export async function startAnthropicServer({
  handler,
  contextWindow = 200_000,
  outputCountsAgainstWindow = false,
  tokenizer: tokenizerOverrides = {},
}: AnthropicServerOptions): Promise<AnthropicServer> {
  const signer = createSigner();
  const tokenizer = createProviderTokenizer({ ...ANTHROPIC_TOKENIZER, ...tokenizerOverrides });
  let messageCount = 0;
  let toolCount = 0;

  async function answer(request: ProviderRequest) {
    if (request.path !== '/v1/messages') {
      return { status: 404, json: errorBody('not_found_error', `Not found: ${request.path}`) };
    }
    const { body } = request;
    let turns: Turn[];
    try {
      turns = checkRequest(body, signer);
    } catch (error) {
      if (!(error instanceof RuleBreak)) throw error;
      return {
        status: 400,
        json: errorBody('invalid_request_error', error.message),
        rejection: { kind: 'rule' as const, message: error.message },
      };
    }
    const edits = contextEdits(body);
    let cleared = new Set<string>();
    let inputTokens = countRequest(body, turns, tokenizer);
    const appliedEdits: unknown[] = [];
    if (edits.clearToolUses && inputTokens > edits.clearToolUses.trigger) {
      cleared = clearToolUses(turns, edits.clearToolUses.keep, edits.clearToolUses.excludeTools);
      const before = inputTokens;
      inputTokens = countRequest(body, turns, tokenizer, cleared);
      appliedEdits.push({
        type: 'clear_tool_uses_20250919',
        cleared_tool_uses: cleared.size,
        cleared_input_tokens: before - inputTokens,
      });
    }
    request.inputTokens = inputTokens;
    const requested = Number(body.max_tokens);
    const overflow =
      inputTokens > contextWindow
        ? `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum`
        : outputCountsAgainstWindow && inputTokens + requested > contextWindow
          ? `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${requested} > ${contextWindow}, decrease input length or \`max_tokens\` and try again`
          : undefined;
    if (overflow) {
      return {
        status: 400,
        json: errorBody('invalid_request_error', overflow),
        rejection: { kind: 'overflow' as const, message: overflow },
      };
    }
    const reply = await handler(scriptedView(request, turns));
    const compacted = edits.compact !== undefined && inputTokens > edits.compact.trigger;
    const content = replyBlocks(reply, {
      thinking: hasThinkingOn(body),
      compaction: compacted
        ? (reply.compaction ?? 'Summary of the conversation so far.')
        : undefined,
      pause: compacted && edits.compact!.pauseAfterCompaction,
      signer,
      nextToolId: () => `toolu_fake${String(++toolCount).padStart(16, '0')}`,
    });
    const stopReason =
      compacted && edits.compact!.pauseAfterCompaction
        ? 'compaction'
        : content.some((block) => block.type === 'tool_use')
          ? 'tool_use'
          : 'end_turn';
    const usage = {
      input_tokens: inputTokens,
      output_tokens: outputTokens(reply),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const message = {
      id: `msg_fake${String(++messageCount).padStart(12, '0')}`,
      type: 'message',
      role: 'assistant',
      model: String(body.model),
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
      ...(appliedEdits.length > 0 ? { context_management: { applied_edits: appliedEdits } } : {}),
    };
    request.reply = message;
    if (!request.stream) return { status: 200, json: message };
    return { status: 200 as const, events: streamEvents(message) };
  }

  const server: FakeHttpServer = await startFakeHttpServer(
    (request) => {
      // The Anthropic SDK's base URL has no `/v1`; `@ai-sdk/anthropic`'s has it.
      return answer(request);
    },
    (message) => ({ status: 400, json: errorBody('invalid_request_error', message) }),
  );
  return fakeProviderServer(server, `${server.origin}/v1`);
}

function scriptedView(request: ProviderRequest, turns: readonly Turn[]) {
  const system = request.body.system;
  const systemText =
    typeof system === 'string'
      ? system
      : Array.isArray(system)
        ? system.map((block) => (isObject(block) ? String(block.text ?? '') : '')).join('\n')
        : '';
  let lastUser = -1;
  turns.forEach((turn, index) => {
    if (turn.role === 'user' && turn.blocks.some(({ block }) => block.type !== 'tool_result'))
      lastUser = index;
  });
  const texts: string[] = [systemText];
  let toolResultsSinceUser = 0;
  turns.forEach((turn, index) => {
    for (const { block } of turn.blocks) {
      if (block.type === 'text') texts.push(String(block.text));
      if (block.type === 'tool_result') {
        texts.push(toolResultText(block));
        if (index > lastUser) toolResultsSinceUser++;
      }
      if (block.type === 'compaction' && block.content) texts.push(String(block.content));
    }
  });
  const lastUserTurn = turns[lastUser];
  return {
    raw: request,
    system: systemText,
    lastUserText: lastUserTurn
      ? lastUserTurn.blocks
          .filter(({ block }) => block.type === 'text')
          .map(({ block }) => String(block.text))
          .join('\n')
      : '',
    toolResultsSinceUser,
    text: texts.join('\n'),
    tools: Array.isArray(request.body.tools)
      ? request.body.tools.map((tool) => (isObject(tool) ? String(tool.name) : ''))
      : [],
  };
}

function replyBlocks(
  reply: ScriptedReply,
  settings: {
    thinking: boolean;
    compaction: string | undefined;
    pause: boolean;
    signer: Signer;
    nextToolId: () => string;
  },
): Block[] {
  const { signer } = settings;
  const blocks: Block[] = [];
  if (settings.compaction !== undefined) {
    blocks.push({
      type: 'compaction',
      content: settings.compaction,
      signature: signer.sign('compaction', settings.compaction),
    });
    if (settings.pause) return blocks;
  }
  if (settings.thinking && reply.reasoning !== undefined) {
    blocks.push({
      type: 'thinking',
      thinking: reply.reasoning,
      signature: signer.sign('thinking', reply.reasoning),
    });
  }
  if (settings.thinking && reply.redactedReasoning) {
    blocks.push({
      type: 'redacted_thinking',
      data: signer.seal('redacted', `hidden ${blocks.length}`),
    });
  }
  const calls = reply.toolCalls ?? [];
  const text = reply.text ?? (calls.length > 0 ? '' : 'ok');
  if (text !== '') blocks.push({ type: 'text', text });
  for (const call of calls) {
    blocks.push({
      type: 'tool_use',
      id: settings.nextToolId(),
      name: call.name,
      input: call.input,
    });
  }
  return blocks;
}

function streamEvents(
  message: Record<string, unknown> & { content: Block[]; usage: Record<string, number> },
) {
  const events: Array<{ event: string; data: unknown }> = [];
  const push = (data: Record<string, unknown>) => events.push({ event: String(data.type), data });
  push({
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...message.usage, output_tokens: 1 },
    },
  });
  message.content.forEach((block, index) => {
    switch (block.type) {
      case 'thinking':
        push({
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        });
        push({
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking: block.thinking },
        });
        push({
          type: 'content_block_delta',
          index,
          delta: { type: 'signature_delta', signature: block.signature },
        });
        break;
      case 'text':
        push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        push({
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: block.text },
        });
        break;
      case 'tool_use':
        push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
        push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        });
        break;
      case 'compaction':
        push({
          type: 'content_block_start',
          index,
          content_block: { type: 'compaction', content: null, signature: block.signature },
        });
        push({
          type: 'content_block_delta',
          index,
          delta: { type: 'compaction_delta', content: block.content },
        });
        break;
      default:
        push({ type: 'content_block_start', index, content_block: block });
    }
    push({ type: 'content_block_stop', index });
  });
  push({
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
    ...(message.context_management ? { context_management: message.context_management } : {}),
  });
  push({ type: 'message_stop' });
  return events;
}
