/**
 * A local fake of OpenAI's Responses API (`POST /v1/responses`, JSON and server-sent events) that
 * enforces the documented request rules and answers rule breaks and overflows with OpenAI's error
 * bodies (`{ error: { message, type, param, code } }`). Sources of each rule:
 *
 * - Reasoning (https://platform.openai.com/docs/guides/reasoning): a `function_call` the model made
 *   after a reasoning item is sent back with that reasoning item before it ("Item 'fc_…' of type
 *   'function_call' was provided without its required 'reasoning' item: 'rs_…'."), and a reasoning
 *   item with the item that followed it; encrypted reasoning (`include:
 *   ['reasoning.encrypted_content']`) comes back unmodified. Reasoning of earlier turns is dropped
 *   from the context (not counted).
 * - Function calling (https://platform.openai.com/docs/guides/function-calling): every
 *   `function_call_output` answers a `function_call` of the input, every call is answered.
 * - Conversation state (https://platform.openai.com/docs/guides/conversation-state): an
 *   `item_reference` names an item the API stored (`store` is on by default).
 * - Compaction (https://platform.openai.com/docs/guides/compaction): a compaction item comes back
 *   unmodified and stands for the context before it (what precedes it is not counted).
 * - Error codes (https://platform.openai.com/docs/guides/error-codes): input over the context
 *   window is `context_length_exceeded`.
 *
 * Tokens are counted as OpenAI might (see `provider-tokens.ts`): cl100k_base here, not ctxmem's
 * o200k_base.
 */
import { type ProviderRequest, startFakeHttpServer } from './http-server.js';
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
  type ScriptedRequest,
  type Signer,
} from './scripted-reply.js';

export const OPENAI_TOKENIZER: ProviderTokenizerSettings = {
  scale: 1,
  punctuationWeight: 0.04,
  cjkWeight: 0.1,
  perMessage: 4,
  perBlock: 1,
  perTool: 12,
  perRequest: 3,
};

export interface OpenAIResponsesServerOptions {
  handler: ScriptedHandler;
  /** The model's context window (input tokens). @default 400_000 */
  contextWindow?: number;
  /** Overrides of how the server counts tokens. @default OPENAI_TOKENIZER */
  tokenizer?: Partial<ProviderTokenizerSettings>;
}

type Item = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorBody(message: string, code: string | null = null, param: string | null = 'input') {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

function itemType(item: Item): string {
  return typeof item.type === 'string' ? item.type : item.role !== undefined ? 'message' : '';
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      isObject(part)
        ? typeof part.text === 'string'
          ? part.text
          : typeof part.refusal === 'string'
            ? part.refusal
            : ''
        : '',
    )
    .join('\n');
}

function itemText(item: Item): string {
  switch (itemType(item)) {
    case 'message':
      return contentText(item.content);
    case 'function_call':
      return `${String(item.name)}${String(item.arguments ?? '')}`;
    case 'function_call_output':
      return typeof item.output === 'string' ? item.output : contentText(item.output);
    case 'reasoning':
      return Array.isArray(item.summary) ? contentText(item.summary) : '';
    default:
      return '';
  }
}

/** What the server remembers of its own output, to check what comes back. */
interface Memory {
  /** Stored items by id (when the request had `store` on). */
  items: Map<string, Item>;
  /** The reasoning item each function call (by `call_id`) followed. */
  reasoningOfCall: Map<string, string>;
  /** The function call item id of each `call_id`. */
  itemOfCall: Map<string, string>;
}

function resolveInput(body: Record<string, unknown>, memory: Memory, signer: Signer): Item[] {
  const input = body.input;
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (!Array.isArray(input)) throw new RuleBreak("Missing required parameter: 'input'.");
  return input.map((value, index) => {
    if (!isObject(value)) throw new RuleBreak(`Invalid type for 'input[${index}]'.`);
    const type = itemType(value);
    if (type === 'item_reference') {
      const stored = memory.items.get(String(value.id));
      if (!stored) {
        throw new RuleBreak(
          `Item with id '${String(value.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        );
      }
      return stored;
    }
    if (type === 'reasoning' || type === 'compaction') {
      const id = String(value.id);
      if (typeof value.encrypted_content === 'string') {
        if (signer.open(type, value.encrypted_content) !== id) {
          throw new RuleBreak(`The encrypted content for item ${id} could not be verified.`);
        }
      } else if (!memory.items.has(id)) {
        throw new RuleBreak(
          `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        );
      }
    }
    return value;
  });
}

function checkItems(items: readonly Item[], memory: Memory): void {
  const calls = new Set<string>();
  const answered = new Set<string>();
  const seenReasoning = new Set<string>();
  items.forEach((item, index) => {
    const type = itemType(item);
    if (type === 'reasoning') {
      seenReasoning.add(String(item.id));
      const next = items[index + 1];
      const nextType = next ? itemType(next) : '';
      const follows =
        nextType === 'function_call' || (nextType === 'message' && next?.role === 'assistant');
      if (!follows) {
        throw new RuleBreak(
          `Item '${String(item.id)}' of type 'reasoning' was provided without its required following item.`,
        );
      }
    }
    if (type === 'function_call') {
      const callId = String(item.call_id);
      const reasoning = memory.reasoningOfCall.get(callId);
      if (reasoning !== undefined && !seenReasoning.has(reasoning)) {
        const id =
          typeof item.id === 'string' ? item.id : (memory.itemOfCall.get(callId) ?? callId);
        throw new RuleBreak(
          `Item '${id}' of type 'function_call' was provided without its required 'reasoning' item: '${reasoning}'.`,
        );
      }
      calls.add(callId);
    }
    if (type === 'function_call_output') {
      const callId = String(item.call_id);
      if (!calls.has(callId)) {
        throw new RuleBreak(`No tool call found for function call output with call_id ${callId}.`);
      }
      answered.add(callId);
    }
  });
  for (const callId of calls) {
    if (!answered.has(callId))
      throw new RuleBreak(`No tool output found for function call ${callId}.`);
  }
}

function countRequest(
  body: Record<string, unknown>,
  items: readonly Item[],
  tokenizer: ProviderTokenizer,
): number {
  const { settings } = tokenizer;
  let tokens = settings.perRequest;
  if (typeof body.instructions === 'string') {
    tokens += settings.perMessage + tokenizer.text(body.instructions);
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) {
      if (!isObject(tool)) continue;
      const { strict: _strict, type: _type, ...definition } = tool;
      tokens += settings.perTool + tokenizer.json(definition);
    }
  }
  let start = 0;
  let lastUser = 0;
  items.forEach((item, index) => {
    if (itemType(item) === 'compaction') start = index;
    if (itemType(item) === 'message' && item.role === 'user') lastUser = index;
  });
  for (let index = start; index < items.length; index++) {
    const item = items[index]!;
    const type = itemType(item);
    // Reasoning of earlier turns is dropped from the context.
    if (type === 'reasoning' && index < lastUser) continue;
    tokens += settings.perMessage;
    if (type === 'compaction') tokens += 400;
    else tokens += tokenizer.text(itemText(item));
  }
  return tokens;
}

function scriptedView(request: ProviderRequest, items: readonly Item[]): ScriptedRequest {
  let lastUser = -1;
  items.forEach((item, index) => {
    if (itemType(item) === 'message' && item.role === 'user') lastUser = index;
  });
  const system = typeof request.body.instructions === 'string' ? request.body.instructions : '';
  const systemItems = items
    .filter(
      (item) =>
        itemType(item) === 'message' && (item.role === 'system' || item.role === 'developer'),
    )
    .map(itemText);
  return {
    raw: request,
    system: [system, ...systemItems].filter(Boolean).join('\n'),
    lastUserText: lastUser === -1 ? '' : itemText(items[lastUser]!),
    toolResultsSinceUser: items
      .slice(lastUser + 1)
      .filter((item) => itemType(item) === 'function_call_output').length,
    text: [system, ...items.map(itemText)].join('\n'),
    tools: Array.isArray(request.body.tools)
      ? request.body.tools.map((tool) => (isObject(tool) ? String(tool.name) : ''))
      : [],
  };
}

/** Starts the fake Responses API. `url` is the base URL for `createOpenAI({ baseURL })`. */
export async function startOpenAIResponsesServer({
  handler,
  contextWindow = 400_000,
  tokenizer: tokenizerOverrides = {},
}: OpenAIResponsesServerOptions): Promise<FakeProviderServer> {
  const signer = createSigner();
  const tokenizer = createProviderTokenizer({ ...OPENAI_TOKENIZER, ...tokenizerOverrides });
  const memory: Memory = { items: new Map(), reasoningOfCall: new Map(), itemOfCall: new Map() };
  let responseCount = 0;
  let itemCount = 0;
  const nextId = (prefix: string) => `${prefix}_fake${String(++itemCount).padStart(16, '0')}`;

  const server = await startFakeHttpServer(
    async (request) => {
      if (request.path !== '/v1/responses') {
        return {
          status: 404,
          json: errorBody(`Unknown request URL: POST ${request.path}.`, 'unknown_url', null),
        };
      }
      const { body } = request;
      let items: Item[];
      try {
        items = resolveInput(body, memory, signer);
        checkItems(items, memory);
      } catch (error) {
        if (!(error instanceof RuleBreak)) throw error;
        return {
          status: 400,
          json: errorBody(error.message),
          rejection: { kind: 'rule' as const, message: error.message },
        };
      }
      const inputTokens = countRequest(body, items, tokenizer);
      request.inputTokens = inputTokens;
      if (inputTokens > contextWindow) {
        const message =
          'Your input exceeds the context window of this model. Please adjust your input and try again.';
        return {
          status: 400,
          json: errorBody(message, 'context_length_exceeded'),
          rejection: { kind: 'overflow' as const, message },
        };
      }
      const reply = await handler(scriptedView(request, items));
      const reasoningOn = isObject(body.reasoning) && body.reasoning.effort !== 'none';
      const showSummary = isObject(body.reasoning) && body.reasoning.summary != null;
      const encrypted =
        Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
      const output: Item[] = [];
      let reasoningId: string | undefined;
      if (reasoningOn && reply.reasoning !== undefined) {
        reasoningId = nextId('rs');
        output.push({
          type: 'reasoning',
          id: reasoningId,
          summary: showSummary ? [{ type: 'summary_text', text: reply.reasoning }] : [],
          ...(encrypted ? { encrypted_content: signer.seal('reasoning', reasoningId) } : {}),
        });
      }
      const calls = reply.toolCalls ?? [];
      const text = reply.text ?? (calls.length > 0 ? '' : 'ok');
      if (text !== '') {
        output.push({
          type: 'message',
          id: nextId('msg'),
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [] }],
        });
      }
      for (const call of calls) {
        const id = nextId('fc');
        const callId = `call_fake${String(itemCount).padStart(12, '0')}`;
        if (reasoningId) memory.reasoningOfCall.set(callId, reasoningId);
        memory.itemOfCall.set(callId, id);
        output.push({
          type: 'function_call',
          id,
          call_id: callId,
          name: call.name,
          arguments: JSON.stringify(call.input),
          status: 'completed',
        });
      }
      if (body.store !== false) for (const item of output) memory.items.set(String(item.id), item);
      const outputCount = outputTokens(reply);
      const usage = {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: outputCount,
        output_tokens_details: { reasoning_tokens: reasoningId ? 16 : 0 },
        total_tokens: inputTokens + outputCount,
      };
      const id = `resp_fake${String(++responseCount).padStart(12, '0')}`;
      const model = String(body.model);
      const response = {
        id,
        object: 'response',
        created_at: 1_700_000_000,
        status: 'completed',
        model,
        output,
        incomplete_details: null,
        error: null,
        usage,
      };
      request.reply = response;
      if (!request.stream) return { status: 200, json: response };
      return { status: 200 as const, events: streamEvents(response) };
    },
    (message) => ({ status: 400, json: errorBody(message, null, null) }),
  );
  return fakeProviderServer(server, `${server.origin}/v1`);
}

function streamEvents(response: Record<string, unknown> & { output: Item[] }) {
  let sequence = 0;
  const events: Array<{ event: string; data: unknown }> = [];
  const push = (data: Record<string, unknown>) =>
    events.push({ event: String(data.type), data: { ...data, sequence_number: sequence++ } });
  const head = { id: response.id, created_at: response.created_at, model: response.model };
  push({ type: 'response.created', response: { ...head, status: 'in_progress' } });
  response.output.forEach((item, outputIndex) => {
    const base = { output_index: outputIndex };
    switch (item.type) {
      case 'reasoning': {
        push({ type: 'response.output_item.added', ...base, item: { ...item, summary: [] } });
        const summary = item.summary as Array<{ text: string }>;
        summary.forEach((part, summaryIndex) => {
          const at = { ...base, item_id: item.id, summary_index: summaryIndex };
          push({
            type: 'response.reasoning_summary_part.added',
            ...at,
            part: { type: 'summary_text', text: '' },
          });
          push({ type: 'response.reasoning_summary_text.delta', ...at, delta: part.text });
          push({ type: 'response.reasoning_summary_part.done', ...at, part });
        });
        break;
      }
      case 'message': {
        push({ type: 'response.output_item.added', ...base, item: { ...item, content: [] } });
        const text = (item.content as Array<{ text: string }>)[0]!.text;
        push({
          type: 'response.output_text.delta',
          ...base,
          item_id: item.id,
          content_index: 0,
          delta: text,
        });
        break;
      }
      case 'function_call':
        push({
          type: 'response.output_item.added',
          ...base,
          item: { ...item, arguments: '', status: 'in_progress' },
        });
        push({
          type: 'response.function_call_arguments.delta',
          ...base,
          item_id: item.id,
          delta: item.arguments,
        });
        break;
    }
    push({ type: 'response.output_item.done', ...base, item });
  });
  push({ type: 'response.completed', response });
  return events;
}
