/**
 * `pnpm --filter @ctxmem/example-ai-sdk-chat start`: a chat whose prompts ctxmem keeps inside the
 * model's window. With `OPENAI_API_KEY` (and optionally `OPENAI_BASE_URL`, `OPENAI_MODEL`,
 * `CTXMEM_CONTEXT_WINDOW`) it talks to a real OpenAI-compatible model; without, a scripted local
 * model answers. In a terminal it is interactive; `--demo` (or piped input) plays a scripted
 * conversation. Every compaction is printed as it happens. `--ui` plays the demo through the
 * `useChat` route instead, printing ctxmem's status parts as a chat UI shows them (`ui-demo.ts`).
 */
import { createInterface } from 'node:readline/promises';
import { createChat, demoQuestions } from './chat.js';

async function terminalChat(): Promise<void> {
  const chat = createChat();
  console.log(
    chat.real
      ? `Talking to ${process.env.OPENAI_MODEL ?? 'gpt-4o-mini'} through ${process.env.OPENAI_BASE_URL ?? 'OpenAI'}.`
      : 'No OPENAI_API_KEY: a scripted local model answers (window 6,000 tokens, so compactions come quickly).',
  );

  async function ask(question: string): Promise<void> {
    console.log(`\nyou> ${question}`);
    try {
      console.log(`assistant> ${await chat.send(question)}`);
    } catch (error) {
      console.error(`error> ${error instanceof Error ? error.message : String(error)}`);
      if (error instanceof Error && /context window/i.test(error.message)) {
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
    for (const question of demoQuestions(chat.real ? 4 : 18)) await ask(question);
  }
  await chat.idle();
}

if (process.argv.includes('--ui')) await import('./ui-demo.js');
else await terminalChat();
