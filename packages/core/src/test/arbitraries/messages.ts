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
}
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
