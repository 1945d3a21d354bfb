/**
 * `pnpm bench messages`: cost of the message boundary every call crosses: converting OpenAI Chat
 * and AI SDK histories to core messages and back, validating and repairing them, assigning ids,
 * and the worst cases (10 MB strings, 10,000-deep tool arguments). Histories are generated with
 * the fast-check arbitraries from a fixed seed, so runs are comparable.
 */
import fc from 'fast-check';
import {
  fromModelMessages,
  fromOpenAIChat,
  repairMessages,
  toModelMessages,
  toOpenAIChat,
  validateMessages,
  withMessageIds,
} from '../packages/core/src/messages/index.js';
import {
  arbitraryMessages,
  arbitraryOpenAIChatMessages,
} from '../packages/core/src/test/arbitraries/index.js';
import type { BenchRun, BenchSection } from './types.js';

/** Median milliseconds of `runs` calls after five warm-up calls (so the JIT has settled). */
function measure(runs: number, action: () => unknown): number {
  for (let warmUp = 0; warmUp < 5; warmUp++) action();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    action();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

export const run: BenchRun = async ({ quick }) => {
  const runs = quick ? 9 : 31;
  const target = quick ? 1000 : 5000;

  // Concatenate generated histories until the target length; each piece is valid on its own.
  const openai: Array<Record<string, unknown>> = [];
  for (const piece of fc.sample(arbitraryOpenAIChatMessages({ maxRounds: 6 }), {
    seed: 7,
    numRuns: 2000,
  })) {
    openai.push(...piece);
    if (openai.length >= target) break;
  }
  const core: ReturnType<typeof fromOpenAIChat> = [];
  for (const piece of fc.sample(
    arbitraryMessages({ maxMessages: 40, withImages: true, withCjk: true }),
    {
      seed: 11,
      numRuns: 2000,
    },
  )) {
    core.push(...piece.filter((message) => message.role !== 'system'));
    if (core.length >= target) break;
  }
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

  const fromCore = fromOpenAIChat(openai);
  const rows: BenchSection['rows'] = [];
  const add = (operation: string, messages: number, size: number, milliseconds: number) =>
    rows.push({
      operation,
      messages,
      'JSON MB': round(size / 1e6),
      'median ms': round(milliseconds),
      'messages/s': Math.round((messages / milliseconds) * 1000),
    });
  add(
    'fromOpenAIChat',
    openai.length,
    bytes(openai),
    measure(runs, () => fromOpenAIChat(openai)),
  );
  add(
    'toOpenAIChat',
    fromCore.length,
    bytes(openai),
    measure(runs, () => toOpenAIChat(fromCore)),
  );
  add(
    'fromModelMessages',
    core.length,
    bytes(core),
    measure(runs, () => fromModelMessages(core)),
  );
  add(
    'toModelMessages',
    core.length,
    bytes(core),
    measure(runs, () => toModelMessages(core)),
  );
  add(
    'validateMessages',
    core.length,
    bytes(core),
    measure(runs, () => validateMessages(core)),
  );
  const broken = core.filter((_message, index) => index % 7 !== 3);
  add(
    'repairMessages (every 7th message dropped)',
    broken.length,
    bytes(broken),
    measure(runs, () => repairMessages(broken)),
  );
  add(
    'withMessageIds',
    core.length,
    bytes(core),
    measure(runs, () => withMessageIds(core)),
  );

  // Two-byte text (CJK), so the lone-surrogate scan really reads all 10 MB.
  const huge = [{ role: 'user' as const, content: '文字x'.repeat(3_333_334) }];
  const deepText = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  const deepCall = [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: deepText } }],
    },
  ];
  let deepValue: unknown = 1;
  for (let level = 0; level < 10_000; level++) deepValue = [deepValue];
  const deepCore = [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: deepValue }],
    },
  ];
  const worst: BenchSection['rows'] = [
    {
      case: 'validateMessages, one 10 MB string',
      'median ms': round(measure(runs, () => validateMessages(huge))),
    },
    {
      case: 'fromOpenAIChat, one 10 MB string',
      'median ms': round(measure(runs, () => fromOpenAIChat(huge))),
    },
    {
      case: 'withMessageIds, one 10 MB string',
      'median ms': round(measure(runs, () => withMessageIds(huge))),
    },
    {
      case: 'fromOpenAIChat, 10,000-deep arguments (kept as text)',
      'median ms': round(measure(runs, () => fromOpenAIChat(deepCall))),
    },
    {
      case: 'validateMessages, 10,000-deep input (rejected)',
      'median ms': round(
        measure(runs, () => {
          try {
            validateMessages(deepCore);
          } catch {
            // Expected: InvalidMessageError at the depth limit.
          }
        }),
      ),
    },
  ];
  return [
    {
      title: 'Message conversion and validation throughput',
      rows,
      notes: [
        `Median of ${runs} runs after 5 warm-up runs, one thread. OpenAI histories include edge cases (parts, refusals, unknown fields, non-canonical arguments); core histories include images, CJK and parallel tool calls.`,
        'The OpenAI histories are edge-case heavy: at seed 7, 67 of the first 448 tool calls have unparsable arguments, and each costs a thrown SyntaxError inside JSON.parse; most of fromOpenAIChat’s time is JSON.parse and JSON.stringify of arguments.',
        'fromModelMessages and validateMessages return valid messages as the same objects, so their cost is the checks alone.',
      ],
    },
    {
      title: 'Message worst cases',
      rows: worst,
      notes: ['None of these overflow the stack or hang.'],
    },
  ];
};
