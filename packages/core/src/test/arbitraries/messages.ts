/** fast-check arbitraries for valid core conversation histories (see `arbitraryMessages`). */
import fc from 'fast-check';
import type {
  AssistantContentPart,
  JsonValue,
  Message,
  ToolContentPart,
  ToolResultOutput,
  ToolResultPart,
  UserContentPart,
} from '../../contracts/index.js';
import {
  arbitraryJsonValue,
  arbitraryText,
  arbitraryToolInput,
  imageSource,
  tinyPng,
  toolNames,
} from './values.js';

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
  /**
   * Put opaque parts in assistant messages, as providers return them: signed reasoning
   * (Anthropic thinking with a signature, sometimes long), redacted reasoning, OpenAI reasoning
   * with an item id and encrypted content, `custom` parts (`anthropic.message_start`), and now
   * and then an Anthropic compaction block at the start of an answer.
   * @default false
   */
  withOpaqueParts?: boolean;
}
interface CallPlan {
  toolName: string;
  input: { [key: string]: JsonValue };
  output: ToolResultOutput;
}

interface StepPlan {
  /** Opaque parts the step starts with. */
  opaque: AssistantContentPart[];
  text: string | undefined;
  calls: CallPlan[];
  /** One tool message per result (OpenAI style) instead of one message for all. */
  splitResults: boolean;
}

interface RoundPlan {
  user: string | UserContentPart[];
  steps: StepPlan[];
  answer: string;
  /** Opaque parts the answer starts with (a compaction first, then reasoning). */
  answerOpaque: AssistantContentPart[];
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
    withOpaqueParts = false,
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
  const longReasoning = fc
    .tuple(text, fc.integer({ min: 2_000, max: 12_000 }))
    .map(([chunk, length]) => {
      // Whole repetitions only, so that a surrogate pair is never cut in half.
      const unit = chunk === '' ? 'thinking ' : chunk;
      return unit.repeat(Math.ceil(length / unit.length));
    });
  const opaque: fc.Arbitrary<AssistantContentPart[]> = withOpaqueParts
    ? fc.array(
        fc.oneof(
          fc.tuple(fc.oneof(text, longReasoning), fc.nat()).map(([reasoning, seed]) => ({
            type: 'reasoning' as const,
            text: reasoning,
            providerOptions: { anthropic: { signature: `sig-${seed}` } },
          })),
          fc.nat().map((seed) => ({
            type: 'reasoning' as const,
            text: '',
            providerOptions: { anthropic: { redactedData: `redacted-${seed}` } },
          })),
          fc.tuple(text, fc.nat()).map(([reasoning, seed]) => ({
            type: 'reasoning' as const,
            text: reasoning,
            providerOptions: {
              openai: { itemId: `rs_${seed}`, reasoningEncryptedContent: `enc-${seed}` },
            },
          })),
          fc.nat().map((seed) => ({
            type: 'custom' as const,
            kind: 'anthropic.message_start',
            providerOptions: { anthropic: { id: `msg_${seed}` } },
          })),
        ),
        { maxLength: 2 },
      )
    : fc.constant([]);
  const compaction: fc.Arbitrary<AssistantContentPart[]> = withOpaqueParts
    ? fc.option(
        text.map((summary) => [
          {
            type: 'text' as const,
            text: summary || 'Summary of earlier turns.',
            providerOptions: { anthropic: { type: 'compaction' } },
          },
        ]),
        { nil: [], freq: 6 },
      )
    : fc.constant([]);
  const step: fc.Arbitrary<StepPlan> = fc.record({
    opaque,
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
    answerOpaque: fc.tuple(compaction, opaque).map(([first, rest]) => [...first, ...rest]),
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
        const content: AssistantContentPart[] = [
          ...plan.opaque,
          ...(plan.text === undefined ? [] : [{ type: 'text' as const, text: plan.text }]),
        ];
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
        if (complete) {
          messages.push({
            role: 'assistant',
            content:
              plan.answerOpaque.length === 0
                ? plan.answer
                : [...plan.answerOpaque, { type: 'text', text: plan.answer }],
          });
        }
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
