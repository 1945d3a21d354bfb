/**
 * Large request bodies for the whole-process benches, generated at bench time into a temporary
 * folder (never committed): an agent step whose tool returned a file as base64 (one line), one whose
 * tool returned a build log, and a long synthetic agent transcript. All OpenAI Chat Completions
 * bodies, deterministic (seeded).
 */
import type { Message } from '../packages/core/src/contracts/index.js';
import { createRandom } from '../packages/core/src/test/memory-index-vectors.js';

/** One agent step: the user's request, the tool call and the tool's (huge) result, last. */
function toolStepBody(toolName: string, argumentsJson: string, result: string): string {
  // Built by hand around the payload: JSON.stringify of the result is the only copy of it.
  const head = JSON.stringify({
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'You are a coding agent. Use the tools to answer.' },
      { role: 'user', content: 'Read the release artifact and tell me what is in it.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_read_1',
            type: 'function',
            function: { name: toolName, arguments: argumentsJson },
          },
        ],
      },
    ],
  });
  const tool = `{"role":"tool","tool_call_id":"call_read_1","content":${JSON.stringify(result)}}`;
  return `${head.slice(0, -2)},${tool}]}`;
}

/** Seeded random bytes. */
function randomBytes(length: number, seed: number): Buffer {
  const next = createRandom(seed);
  const bytes = Buffer.allocUnsafe(length);
  for (let index = 0; index < length; index += 4) {
    const value = Math.floor(next() * 4294967296);
    bytes[index] = value & 0xff;
    if (index + 1 < length) bytes[index + 1] = (value >>> 8) & 0xff;
    if (index + 2 < length) bytes[index + 2] = (value >>> 16) & 0xff;
    if (index + 3 < length) bytes[index + 3] = value >>> 24;
  }
  return bytes;
}

/** A body of about `bytes` bytes whose last message is one tool result: a file as base64, one line. */
export function base64ToolBody(bytes: number, seed = 1): string {
  const payload = randomBytes(Math.floor((bytes * 3) / 4), seed).toString('base64');
  return toolStepBody('read_file_base64', '{"path":"dist/release.tar.gz"}', payload);
}

const LOG_MODULES = ['ledger', 'parser', 'sync', 'config', 'router', 'cache', 'auth', 'billing'];
const LOG_LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'DEBUG', 'WARN', 'ERROR'];

/** A body of about `bytes` bytes whose last message is one tool result: a build log. */
export function buildLogBody(bytes: number, seed = 2): string {
  const next = createRandom(seed);
  const lines: string[] = [];
  let size = 0;
  let time = Date.UTC(2026, 0, 5, 9, 0, 0);
  while (size < bytes) {
    time += Math.floor(next() * 900);
    const level = LOG_LEVELS[Math.floor(next() * LOG_LEVELS.length)]!;
    const module = LOG_MODULES[Math.floor(next() * LOG_MODULES.length)]!;
    const file = `src/${module}/${module}_${Math.floor(next() * 400)}.ts`;
    const line =
      level === 'ERROR'
        ? `${new Date(time).toISOString()} [${level}] ${file}:${Math.floor(next() * 900)}:${Math.floor(next() * 80)} TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.`
        : level === 'WARN'
          ? `${new Date(time).toISOString()} [${level}] ${file} uses a deprecated API (${module}.legacyResolve); build cache key ${Math.floor(next() * 2 ** 48).toString(16)}`
          : `${new Date(time).toISOString()} [${level}] compiled ${file} in ${Math.floor(next() * 2_000)} ms (${Math.floor(next() * 90_000)} bytes)`;
    lines.push(line);
    size += line.length + 1;
  }
  return toolStepBody('run_command', '{"command":"pnpm build --verbose"}', lines.join('\n'));
}

const WORDS =
  'the build fails because the parser rejects trailing commas in the config file so we switch to a tolerant reader and add a regression test for the ledger sync job'.split(
    ' ',
  );

function prose(next: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(' ');
}

/** An agent history: rounds of a request, 1–6 tool steps (some parallel, some with large output) and an answer. */
export function syntheticHistory(messageCount: number, seed: number): Message[] {
  const next = createRandom(seed);
  const messages: Message[] = [
    { role: 'system', content: `You are a coding agent. ${prose(next, 80)}` },
  ];
  let call = 0;
  while (messages.length < messageCount - 1) {
    messages.push({ role: 'user', content: prose(next, 20 + Math.floor(next() * 60)) });
    const steps = 1 + Math.floor(next() * 6);
    for (let step = 0; step < steps && messages.length < messageCount - 3; step++) {
      const parallel = next() < 0.3 ? 3 : 1;
      const ids = Array.from({ length: parallel }, () => `call_${++call}`);
      messages.push({
        role: 'assistant',
        content: ids.map((toolCallId) => ({
          type: 'tool-call' as const,
          toolCallId,
          toolName: next() < 0.5 ? 'read_file' : 'run_command',
          input: { path: `src/module_${Math.floor(next() * 100)}.py` },
        })),
      });
      messages.push({
        role: 'tool',
        content: ids.map((toolCallId) => ({
          type: 'tool-result' as const,
          toolCallId,
          toolName: 'read_file',
          output: { type: 'text' as const, value: prose(next, next() < 0.1 ? 2_000 : 60) },
        })),
      });
    }
    messages.push({ role: 'assistant', content: prose(next, 40) });
  }
  messages.push({
    role: 'user',
    content: 'Now run the whole test suite and summarize the failures.',
  });
  return messages;
}
