/**
 * fast-check arbitraries for conversation histories, for property tests across ctxmem and its
 * adapters: valid core histories, OpenAI Chat Completions request histories, and AI SDK
 * `ModelMessage` histories.
 */
import fc from 'fast-check';
import type {
  AssistantContentPart,
  JsonValue,
  Message,
  ProviderOptions,
  ToolContentPart,
  ToolResultOutput,
  ToolResultPart,
  UserContentPart,
} from '../../contracts/index.js';

export interface ArbitraryMessagesOptions {
  /**
   * Upper bound on the number of messages in a history (at least 1).
   * @default 16
   */
  maxMessages?: number;
  /**
   * Include assistant steps with (parallel) tool calls and their results.
   * @default true
   */
  withTools?: boolean;
  /**
   * Include image parts in user messages and media in tool results.
   * @default false
   */
  withImages?: boolean;
  /**
   * Mix CJK text and emoji (surrogate pairs) into the text.
   * @default false
   */
  withCjk?: boolean;
  /**
   * Make some tool outputs large (20,000 to 120,000 characters).
   * @default false
   */
  withHugeOutputs?: boolean;
}

const cjkCharacter = fc
  .integer({ min: 0x4e00, max: 0x9fa5 })
  .map((code) => String.fromCharCode(code));
const emoji = fc.constantFrom('😀', '👍🏽', '🎉', '🧪', '👩‍💻');

/** Text: printable ASCII, with CJK and emoji mixed in when `withCjk`. */
export function arbitraryText({
  withCjk = false,
  minLength = 0,
  maxLength = 60,
}: {
  /** @default false */
  withCjk?: boolean;
  /** @default 0 */
  minLength?: number;
  /** @default 60 */
  maxLength?: number;
} = {}): fc.Arbitrary<string> {
  const unit: fc.Arbitrary<string> = withCjk
    ? fc.oneof(
        { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 1 }) },
        { weight: 2, arbitrary: cjkCharacter },
        { weight: 1, arbitrary: emoji },
      )
    : fc.string({ minLength: 1, maxLength: 1 });
  return fc.string({ unit, minLength, maxLength });
}

/** A JSON value that survives `JSON.parse(JSON.stringify(value))` unchanged (no `-0`). */
export function arbitraryJsonValue(maxDepth = 3): fc.Arbitrary<JsonValue> {
  return fc.jsonValue({ maxDepth }).map((value) => JSON.parse(JSON.stringify(value)) as JsonValue);
}

/** Tool arguments: a JSON object, as models produce. */
export function arbitraryToolInput(): fc.Arbitrary<{ [key: string]: JsonValue }> {
  return fc
    .dictionary(fc.string({ minLength: 1, maxLength: 12 }), arbitraryJsonValue(2), { maxKeys: 4 })
    .map((value) => JSON.parse(JSON.stringify(value)) as { [key: string]: JsonValue });
}

const toolNames = fc.constantFrom('search', 'read_file', 'get_weather', 'run_command', 'lookup');
const tinyPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const imageSource = fc.constantFrom(
  `data:image/png;base64,${tinyPng}`,
  'https://example.com/cat.jpg',
  'https://example.com/chart.png?size=large',
);

interface CallPlan {
  toolName: string;
  input: { [key: string]: JsonValue };
  output: ToolResultOutput;
}

interface StepPlan {
  text: string | undefined;
  calls: CallPlan[];
  /** One tool message per result (OpenAI style) instead of one message for all. */
  splitResults: boolean;
}

interface RoundPlan {
  user: string | UserContentPart[];
  steps: StepPlan[];
  answer: string;
}

/**
 * Valid core histories: an optional leading system message, then rounds of a user message,
 * assistant steps with (parallel) tool calls whose results follow in tool messages, and a final
 * assistant answer. The newest message is a user message or the tool results of the current
 * round. Tool-call ids are unique; every call has exactly one result right after it.
 */
export function arbitraryMessages(options: ArbitraryMessagesOptions = {}): fc.Arbitrary<Message[]> {
  const {
    maxMessages = 16,
    withTools = true,
    withImages = false,
    withCjk = false,
    withHugeOutputs = false,
  } = options;
  const limit = Math.max(1, Math.floor(maxMessages));
  const text = arbitraryText({ withCjk });
  const hugeText = fc
    .tuple(
      arbitraryText({ withCjk, minLength: 1, maxLength: 40 }),
      fc.integer({ min: 20_000, max: 120_000 }),
    )
    // Whole repetitions only, so that a surrogate pair is never cut in half.
    .map(([chunk, length]) => chunk.repeat(Math.ceil(length / chunk.length)));
  const outputText = withHugeOutputs
    ? fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: hugeText })
    : text;

  const contentItems = fc.array(
    withImages
      ? fc.oneof(
          text.map((value) => ({ type: 'text' as const, text: value })),
          fc.constant({ type: 'media' as const, data: tinyPng, mediaType: 'image/png' }),
        )
      : text.map((value) => ({ type: 'text' as const, text: value })),
    { minLength: 1, maxLength: 3 },
  );
  const output: fc.Arbitrary<ToolResultOutput> = fc.oneof(
    outputText.map((value) => ({ type: 'text' as const, value })),
    arbitraryJsonValue().map((value) => ({ type: 'json' as const, value })),
    text.map((value) => ({ type: 'error-text' as const, value })),
    contentItems.map((value) => ({ type: 'content' as const, value })),
  );
  const call: fc.Arbitrary<CallPlan> = fc.record({
    toolName: toolNames,
    input: arbitraryToolInput(),
    output,
  });
  const step: fc.Arbitrary<StepPlan> = fc.record({
    text: fc.option(text, { nil: undefined }),
    calls: fc.array(call, { minLength: 1, maxLength: 3 }),
    splitResults: fc.boolean(),
  });
  const userContent: fc.Arbitrary<string | UserContentPart[]> = withImages
    ? fc.oneof(
        text,
        fc.tuple(text, imageSource, fc.boolean()).map(([value, image, withMediaType]) => [
          { type: 'text' as const, text: value },
          {
            type: 'image' as const,
            image,
            ...(withMediaType && image.startsWith('data:') ? { mediaType: 'image/png' } : {}),
          },
        ]),
      )
    : text;
  const round: fc.Arbitrary<RoundPlan> = fc.record({
    user: userContent,
    steps: withTools ? fc.array(step, { maxLength: 2 }) : fc.constant([]),
    answer: text,
  });

  return fc
    .record({
      system: fc.option(text, { nil: undefined }),
      rounds: fc.array(round, { maxLength: Math.max(0, Math.ceil(limit / 3)) }),
      current: round,
      endsWithResults: fc.boolean(),
      idPrefix: fc.string({
        unit: fc.constantFrom(...'abcdef0123456789'),
        minLength: 4,
        maxLength: 6,
      }),
    })
    .map(({ system, rounds, current, endsWithResults, idPrefix }) => {
      let counter = 0;
      const nextId = () => `pending_${++counter}`;
      const stepMessages = (plan: StepPlan): Message[] => {
        const results: ToolResultPart[] = [];
        const content: AssistantContentPart[] =
          plan.text === undefined ? [] : [{ type: 'text', text: plan.text }];
        for (const planned of plan.calls) {
          const toolCallId = nextId();
          content.push({
            type: 'tool-call',
            toolCallId,
            toolName: planned.toolName,
            input: planned.input,
          });
          results.push({
            type: 'tool-result',
            toolCallId,
            toolName: planned.toolName,
            output: planned.output,
          });
        }
        const tools: Message[] = plan.splitResults
          ? results.map((result) => ({ role: 'tool', content: [result] as ToolContentPart[] }))
          : [{ role: 'tool', content: results }];
        return [{ role: 'assistant', content }, ...tools];
      };
      const roundMessages = (plan: RoundPlan, complete: boolean, budget: number): Message[] => {
        const messages: Message[] = [{ role: 'user', content: plan.user }];
        const steps = complete || endsWithResults ? plan.steps : [];
        for (const planned of steps) {
          const next = stepMessages(planned);
          if (messages.length + next.length + (complete ? 1 : 0) > budget) break;
          messages.push(...next);
        }
        if (complete) messages.push({ role: 'assistant', content: plan.answer });
        return messages;
      };

      const head: Message[] =
        system !== undefined && limit >= 2 ? [{ role: 'system', content: system }] : [];
      const tail = roundMessages(current, false, limit - head.length);
      const body: Message[][] = [];
      let used = head.length + tail.length;
      // Newest complete rounds first, so that the history ends where a real one would.
      for (let index = rounds.length - 1; index >= 0; index--) {
        const messages = roundMessages(rounds[index]!, true, limit - used);
        if (used + messages.length > limit) break;
        body.unshift(messages);
        used += messages.length;
      }
      // Rounds were built newest first; number the call ids in reading order instead.
      const renamed = new Map<string, string>();
      const rename = (id: string) => {
        if (!renamed.has(id)) renamed.set(id, `call_${idPrefix}_${renamed.size + 1}`);
        return renamed.get(id)!;
      };
      return [...head, ...body.flat(), ...tail].map((message): Message => {
        if (message.role !== 'assistant' && message.role !== 'tool') return message;
        if (typeof message.content === 'string') return message;
        const content = message.content.map((part) =>
          part.type === 'tool-call' || part.type === 'tool-result'
            ? { ...part, toolCallId: rename(part.toolCallId) }
            : part,
        );
        return { ...message, content } as Message;
      });
    });
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions

export interface ArbitraryOpenAIChatOptions {
  /**
   * Upper bound on the number of rounds (a user message and the assistant's steps).
   * @default 4
   */
  maxRounds?: number;
  /**
   * Also produce the odd but valid shapes: parts arrays, refusals, `content` absent, unknown
   * fields, non-canonical and unparsable `arguments`, `developer`, `name`.
   * @default true
   */
  withEdgeCases?: boolean;
}

type Json = { [key: string]: JsonValue };

/**
 * OpenAI Chat Completions request histories (plain JSON): system or developer messages, user
 * messages with text, images (data and http URLs, `detail`), audio and files, assistant messages
 * with `content: null` and parallel `tool_calls`, refusals, names, and one tool message per call.
 */
export function arbitraryOpenAIChatMessages(
  options: ArbitraryOpenAIChatOptions = {},
): fc.Arbitrary<Json[]> {
  const { maxRounds = 4, withEdgeCases = true } = options;
  const text = arbitraryText({ withCjk: true });
  const maybe = <T>(arbitrary: fc.Arbitrary<T>) =>
    withEdgeCases ? fc.option(arbitrary, { nil: undefined }) : fc.constant(undefined);
  const extra: fc.Arbitrary<Json | undefined> = maybe(
    fc.constantFrom<Json>(
      { cache_control: { type: 'ephemeral' } },
      { annotations: [] },
      { audio: null },
      { x_custom: [1, 'two', { three: true }] },
    ),
  );
  const name = maybe(fc.constantFrom('alice', 'bob_2', 'assistant-x'));
  const withExtra = (object: Json, fields: Json | undefined): Json => ({ ...fields, ...object });
  const withName = (object: Json, value: string | undefined): Json =>
    value === undefined ? object : { ...object, name: value };
  const textPart = fc
    .tuple(text, extra)
    .map(([value, fields]) => withExtra({ type: 'text', text: value }, fields));

  const system = fc
    .tuple(
      withEdgeCases ? fc.constantFrom('system', 'developer') : fc.constant('system'),
      withEdgeCases ? fc.oneof(text, fc.array(textPart, { maxLength: 3 })) : text,
      name,
      extra,
    )
    .map(([role, content, who, fields]) => withName(withExtra({ role, content }, fields), who));

  const userPart: fc.Arbitrary<Json> = fc.oneof(
    textPart,
    fc
      .tuple(
        fc.constantFrom(
          `data:image/png;base64,${tinyPng}`,
          'https://example.com/a.png',
          'http://example.com/b.jpg',
        ),
        fc.option(fc.constantFrom('auto', 'low', 'high'), { nil: undefined }),
        extra,
      )
      .map(([url, detail, fields]) =>
        withExtra(
          { type: 'image_url', image_url: detail === undefined ? { url } : { url, detail } },
          fields,
        ),
      ),
    fc
      .tuple(
        fc.constantFrom('wav', 'mp3', 'x-wav', 'mpeg', 'flac'),
        fc.base64String({ maxLength: 16 }),
      )
      .map(([format, data]) => ({ type: 'input_audio', input_audio: { data, format } })),
    fc
      .tuple(
        fc.constantFrom<Json>(
          { file_data: `data:application/pdf;base64,${tinyPng}` },
          { file_data: `data:audio/wav;base64,${tinyPng}` },
          { file_data: tinyPng },
          { file_id: 'file-abc123' },
          { file_id: 'assistant-file-9' },
          { file_data: 'data:text/plain;base64,aGk=', file_id: 'file-both' },
        ),
        fc.option(fc.constantFrom('report.pdf', 'notes.txt'), { nil: undefined }),
      )
      .map(([file, filename]) => ({
        type: 'file',
        file: filename === undefined ? file : { ...file, filename },
      })),
  );
  const user = fc
    .tuple(fc.oneof(text, fc.array(userPart, { maxLength: 3 })), name, extra)
    .map(([content, who, fields]) => withName(withExtra({ role: 'user', content }, fields), who));

  const argumentsText = fc.oneof(
    { weight: 6, arbitrary: arbitraryToolInput().map((input) => JSON.stringify(input)) },
    ...(withEdgeCases
      ? [
          {
            weight: 1,
            arbitrary: arbitraryToolInput().map((input) => JSON.stringify(input, null, 2)),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              '{"a": 1.0}',
              '{"n":-0}',
              '{"big":12345678901234567890}',
              '',
            ),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom('{"path": "/tmp', 'not json', '{"a":1}}', '[1,2'),
          },
        ]
      : []),
  );
  const toolCall = fc.record({ toolName: toolNames, arguments: argumentsText, extra });
  const assistantContent = withEdgeCases
    ? fc.oneof(
        text,
        fc.constant(null),
        fc.constant(undefined),
        fc.array(
          fc.oneof(
            textPart,
            text.map((refusal) => ({ type: 'refusal', refusal })),
          ),
          { maxLength: 2 },
        ),
      )
    : fc.oneof(text, fc.constant(null));
  const assistantStep = fc.record({
    content: assistantContent,
    refusal: withEdgeCases
      ? fc.option(fc.oneof(text, fc.constant(null)), { nil: undefined })
      : fc.constant(undefined),
    calls: fc.array(toolCall, { maxLength: 3 }),
    name,
    extra,
    results: fc.array(fc.tuple(fc.oneof(text, fc.array(textPart, { maxLength: 2 })), extra), {
      minLength: 3,
      maxLength: 3,
    }),
  });
  const round = fc.record({ user, steps: fc.array(assistantStep, { maxLength: 3 }) });

  return fc
    .record({
      system: fc.option(system, { nil: undefined }),
      rounds: fc.array(round, { maxLength: maxRounds }),
    })
    .map(({ system: first, rounds }) => {
      const messages: Json[] = first === undefined ? [] : [first];
      let counter = 0;
      for (const planned of rounds) {
        messages.push(planned.user);
        for (const step of planned.steps) {
          const calls = step.calls.map((call) => {
            const id = `call_${++counter}`;
            return withExtra(
              {
                id,
                type: 'function',
                function: { name: call.toolName, arguments: call.arguments },
              },
              call.extra,
            );
          });
          const assistant: Json = { role: 'assistant' };
          if (step.content !== undefined) assistant.content = step.content as JsonValue;
          if (step.refusal !== undefined) assistant.refusal = step.refusal;
          if (calls.length > 0) assistant.tool_calls = calls;
          messages.push(withName(withExtra(assistant, step.extra), step.name));
          calls.forEach((call, index) => {
            const [content, fields] = step.results[index]!;
            messages.push(
              withExtra({ role: 'tool', tool_call_id: call.id as string, content }, fields),
            );
          });
        }
      }
      return messages;
    });
}

// ---------------------------------------------------------------------------------------------
// AI SDK

/**
 * AI SDK `ModelMessage` histories (plain JSON, AI SDK 5+ shapes): valid core histories without
 * ctxmem fields, with `providerOptions` on messages and parts, reasoning parts, files, and tool
 * approval requests and responses mixed in.
 */
export function arbitraryModelMessages(
  options: ArbitraryMessagesOptions = {},
): fc.Arbitrary<Message[]> {
  const providerOptions = fc.option(
    fc.constantFrom<ProviderOptions>(
      { anthropic: { cacheControl: { type: 'ephemeral' } } },
      { openai: { imageDetail: 'low' } },
      { google: { thoughtSignature: 'sig-1' } },
    ),
    { nil: undefined },
  );
  return fc
    .tuple(
      arbitraryMessages({ withImages: true, ...options }),
      fc.array(fc.tuple(providerOptions, providerOptions, fc.boolean(), arbitraryText()), {
        minLength: 64,
        maxLength: 64,
      }),
    )
    .map(([messages, decorations]) => {
      let approvalId: string | undefined;
      return messages.map((message, index): Message => {
        const [messageOptions, partOptions, addExtras, reasoning] =
          decorations[index % decorations.length]!;
        const decorated: Message = messageOptions
          ? ({ ...message, providerOptions: messageOptions } as Message)
          : message;
        if (typeof decorated.content === 'string' || decorated.role === 'system') return decorated;
        const parts = (decorated.content as Array<{ type: string }>).map((part) =>
          partOptions ? { ...part, providerOptions: partOptions } : part,
        );
        if (addExtras && decorated.role === 'assistant') {
          const call = parts.find((part) => part.type === 'tool-call') as
            | { toolCallId: string }
            | undefined;
          parts.unshift({ type: 'reasoning', text: reasoning } as { type: string });
          parts.push({
            type: 'file',
            data: tinyPng,
            mediaType: 'image/png',
            filename: 'plot.png',
          } as { type: string });
          if (call) {
            approvalId = `approval-${index}`;
            parts.push({
              type: 'tool-approval-request',
              approvalId,
              toolCallId: call.toolCallId,
            } as {
              type: string;
            });
          }
        }
        if (decorated.role === 'tool' && approvalId !== undefined) {
          // The user's answer to the approval request of the assistant message before.
          parts.unshift({ type: 'tool-approval-response', approvalId, approved: true } as {
            type: string;
          });
          approvalId = undefined;
        }
        return { ...decorated, content: parts } as Message;
      });
    });
}
