/**
 * `pnpm --filter @ctxmem/example-langchain-agent start`: a `createAgent` agent whose tool-heavy
 * conversation the ctxmem middleware keeps inside the model's window. With `OPENAI_API_KEY` (and
 * optionally `OPENAI_BASE_URL`, `OPENAI_MODEL`, `CTXMEM_CONTEXT_WINDOW`) it talks to a real
 * OpenAI-compatible model; without, a scripted local model answers. In a terminal it is
 * interactive; `--demo` (or piped input) plays a scripted conversation. Every compaction is
 * printed as it happens.
 */
import { createInterface } from 'node:readline/promises';
import { createAgentSession, demoQuestions } from './agent.js';

const session = createAgentSession();
console.log(
  session.real
    ? `Talking to ${process.env.OPENAI_MODEL ?? 'gpt-4o-mini'} through ${process.env.OPENAI_BASE_URL ?? 'OpenAI'}.`
    : 'No OPENAI_API_KEY: a scripted local model answers (window 6,000 tokens, so compactions come quickly).',
);

async function ask(question: string): Promise<void> {
  console.log(`\nyou> ${question}`);
  try {
    console.log(`assistant> ${await session.send(question)}`);
    console.log(
      `  (the agent state holds ${session.messages.length} messages${session.real ? '' : `; the model saw ${session.lastPrompt.length}`})`,
    );
  } catch (error) {
    console.error(`error> ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof Error && /context window|contextWindow/i.test(error.message)) {
      console.error('Set CTXMEM_CONTEXT_WINDOW to the model’s context window in tokens.');
    }
    process.exitCode = 1;
  }
}

if (process.stdin.isTTY && !process.argv.includes('--demo')) {
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  console.log('Type a message (empty line to quit).');
  for (;;) {
    const line = (await terminal.question('> ')).trim();
    if (!line) break;
    await ask(line);
  }
  terminal.close();
} else {
  for (const question of demoQuestions(session.real ? 4 : 15)) await ask(question);
}
await session.idle();
