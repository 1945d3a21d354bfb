/**
 * One process of `pnpm bench telemetry` (see telemetry.bench.ts): loads one copy of core (this
 * checkout's, or the one `CTXMEM_BENCH_CORE` names), prepares the same tool-using conversation
 * call by call `conversations` times after a warm-up, and prints the CPU time per prepare of each
 * as JSON. `argv[2]`: `off`, `noop` (enabled, the API's no-op tracer) or `sdk` (enabled, an SDK
 * recording every span in memory).
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
const mode = process.argv[2] as 'off' | 'noop' | 'sdk';
const turns = Number(process.argv[3]);
const conversations = Number(process.argv[4]);
const core = (await import(
  process.env.CTXMEM_BENCH_CORE ?? '../packages/core/src/index.js'
)) as typeof Current;

// What an app with OpenTelemetry registers, in every mode alike.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer =
  mode === 'sdk' ? provider.getTracer('ctxmem') : new ProxyTracerProvider().getTracer('ctxmem');

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
async function conversation(): Promise<number> {
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
    ...(mode === 'off' ? {} : { telemetry: { enabled: true, tracer } }),
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

await conversation(); // warm-up: the JIT settles
exporter.reset();
const samples: number[] = [];
for (let index = 0; index < conversations; index++) samples.push(await conversation());
const spans = exporter.getFinishedSpans().length / conversations;
process.stdout.write(`${JSON.stringify({ samples, spans, prepares: turns * 2 })}\n`);
