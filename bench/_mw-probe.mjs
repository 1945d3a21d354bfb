// Child process of `large-payload.bench.ts`: a host that received a request body whose last message
// is one huge tool result, and the AI SDK middleware's first call that carries it. Prints the
// call's wall and CPU time as JSON; the process's own figures come from `process-usage.mjs`.
import { readFileSync } from 'node:fs';
import { contextMemoryMiddleware } from '../packages/ai-sdk/dist/index.js';
import { createExtractiveSummarizer, createTokenCounter } from '../packages/core/dist/index.js';

const mb = (l) => {
  const m = process.memoryUsage();
  console.error(
    l.padEnd(10),
    'rss',
    m.rss >> 20,
    'heap',
    m.heapUsed >> 20,
    'ext',
    m.external >> 20,
    'ab',
    m.arrayBuffers >> 20,
    'maxrss',
    process.resourceUsage().maxRSS >> 10,
  );
};
mb('import');
const body = JSON.parse(readFileSync(process.argv[2], 'utf8'));
mb('parse');
const [system, user, assistant, tool] = body.messages;
const call = assistant.tool_calls[0];
// The AI SDK prompt of the agent step, as the SDK hands it to a middleware.
const prompt = [
  { role: 'system', content: system.content },
  { role: 'user', content: [{ type: 'text', text: user.content }] },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool-call',
        toolCallId: call.id,
        toolName: call.function.name,
        input: JSON.parse(call.function.arguments),
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: call.id,
        toolName: call.function.name,
        output: { type: 'text', value: tool.content },
      },
    ],
  },
];
body.messages = undefined;
const model = {
  specificationVersion: 'v4',
  provider: 'bench',
  modelId: 'gpt-4o',
  async doGenerate() {
    throw new Error('not called: the extractive summarizer writes any summary');
  },
};
const middleware = contextMemoryMiddleware({
  contextWindow: Number(process.argv[3]),
  backgroundCompaction: false,
  summarizer: createExtractiveSummarizer({ counter: createTokenCounter({ model: 'gpt-4o' }) }),
});
mb('before');
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = await middleware.transformParams({ type: 'generate', params: { prompt }, model });
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(
  JSON.stringify({
    callMs: performance.now() - started,
    callCpuMs: (cpu.user + cpu.system) / 1000,
    promptChars: JSON.stringify(result.prompt).length,
  }),
);
mb('after');
