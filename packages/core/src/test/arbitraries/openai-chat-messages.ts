/** fast-check arbitraries for OpenAI Chat Completions request histories (plain JSON). */
import fc from 'fast-check';
import type { JsonValue } from '../../contracts/index.js';
import { arbitraryText, arbitraryToolInput, tinyPng, toolNames } from './values.js';

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
