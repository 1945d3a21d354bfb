/**
 * One process of `pnpm bench telemetry` (see telemetry.bench.ts): loads one copy of core (this
 * checkout's, or the one `CTXMEM_BENCH_CORE` names), prepares the same tool-using conversation
 * call by call `conversations` times per mode after a warm-up, the modes taking turns, and prints
 * the CPU time per prepare of each as JSON. `argv[2]`: modes, comma-separated: `off`, `noop`
 * (enabled, the API's no-op tracer), `sdk` (enabled, an SDK recording every span in memory).
 */
import { context, ProxyTracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type * as Current from '../packages/core/src/index.js';

type Message = Current.Message;
type Mode = 'off' | 'noop' | 'sdk';
const modes = process.argv[2]!.split(',') as Mode[];
const turns = Number(process.argv[3]);
const conversations = Number(process.argv[4]);
const core = (await import(
  process.env.CTXMEM_BENCH_CORE ?? '../packages/core/src/index.js'
)) as typeof Current;

// What an app with OpenTelemetry registers, in every mode alike.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracers = {
  sdk: provider.getTracer('ctxmem'),
  noop: new ProxyTracerProvider().getTracer('ctxmem'),
};

const TOPICS = ['billing', 'deployment', 'testing', 'logging', 'caching', 'search', 'auth'];

/** One round of a tool-using agent: question, tool call, a long result, answer. */
function round(turn: number): Message[] {
  const topic = TOPICS[turn % TOPICS.length]!;
  return [
    { role: 'user', content: `Turn ${turn}: look into the ${topic} module and report.` },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: `call-${turn}`,
          toolName: 'read_file',
          input: { path: `src/${topic}.ts` },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call-${turn}`,
          toolName: 'read_file',
          output: {
            type: 'text',
            value: `export function ${topic}${turn}() { return ${turn}; }\n`.repeat(30),
          },
        },
      ],
    },
    { role: 'assistant', content: `The ${topic} module looks fine in turn ${turn}.` },
  ];
}

/** CPU milliseconds per prepare of one conversation, prepared call by call. */
async function conversation(mode: Mode): Promise<number> {
  const memoryStore = core.createInMemoryMemoryStore();
  await memoryStore.add({ userId: 'u' }, [
    { content: 'The billing module is owned by the payments team', type: 'fact', tags: [] },
    { content: 'Deployments happen on Tuesdays', type: 'fact', tags: [] },
  ]);
  const manager = core.createContextManager({
    contextWindow: 16_000,
    counter: core.createTokenCounter(),
    historyStore: core.createInMemoryHistoryStore(),
    memory: { store: memoryStore, search: core.createMemorySearch({ store: memoryStore }) },
    // An older core has no telemetry option: it is only passed when on.
    ...(mode === 'off' ? {} : { telemetry: { enabled: true, tracer: tracers[mode] } }),
  } as Current.ContextManagerOptions);
  const scope = { userId: 'u', sessionId: 's' };
  const history: Message[] = [{ role: 'system', content: 'You are a careful coding agent.' }];
  let prepares = 0;
  const start = process.cpuUsage();
  for (let turn = 1; turn <= turns; turn++) {
    const messages = round(turn);
    // The host resends the whole history at every step of its tool loop.
    for (const step of [1, 3]) {
      await manager.prepare([...history, ...messages.slice(0, step)], { scope });
      prepares++;
    }
    history.push(...messages);
  }
  const used = process.cpuUsage(start);
  await manager.idle();
  return (used.user + used.system) / 1000 / prepares;
}

// Warm-up: the JIT settles on every mode's code.
for (const mode of modes) await conversation(mode);
const samples = Object.fromEntries(modes.map((mode) => [mode, [] as number[]]));
const spans = Object.fromEntries(modes.map((mode) => [mode, 0]));
for (let index = 0; index < conversations; index++) {
  // The modes take turns, rotating, so the machine's load falls on all alike.
  for (let offset = 0; offset < modes.length; offset++) {
    const mode = modes[(index + offset) % modes.length]!;
    exporter.reset();
    samples[mode]!.push(await conversation(mode));
    spans[mode] = exporter.getFinishedSpans().length;
  }
}
process.stdout.write(`${JSON.stringify({ samples, spans, prepares: turns * 2 })}\n`);
