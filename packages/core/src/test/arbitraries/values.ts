/** fast-check arbitraries for the values inside messages: text, JSON, tool inputs, image sources. */
import fc from 'fast-check';
import type { JsonValue } from '../../contracts/index.js';

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

export const toolNames = fc.constantFrom(
  'search',
  'read_file',
  'get_weather',
  'run_command',
  'lookup',
);
export const tinyPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
export const imageSource = fc.constantFrom(
  `data:image/png;base64,${tinyPng}`,
  'https://example.com/cat.jpg',
  'https://example.com/chart.png?size=large',
);
