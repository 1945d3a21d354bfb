/**
 * The child's side of the multi-process tests (`testSharedStoresProcesses`): the work a writer
 * process does and how it waits to be released. Kept apart from the suite, which imports vitest, so
 * that a writer process loads only what it runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CompleteHistoryStore, MemoryStore } from '../contracts/index.js';
import { ConflictError } from '../errors/index.js';
import { playSharedConversation } from './shared-conversation.js';

/**
 * What a writer process of the multi-process tests is asked to do (see `runSharedStoresJob`).
 * `startAt` is the moment (epoch ms) the processes start together; without it, each waits for its
 * release (a `go` line on standard input, see `released`).
 */
export type SharedStoresJob =
  | { mode: 'write'; label: string; count?: number }
  | { mode: 'state'; label: string; count: number; startAt?: number }
  | { mode: 'converse'; startAt?: number };

/** The stores a writer process uses. */
export interface ProcessStores {
  memory: MemoryStore;
  history: CompleteHistoryStore;
}

/** The scope every writer process works in. */
export const PROCESS_SCOPE = { userId: 'process-test', sessionId: 'one' };
const scope = PROCESS_SCOPE;

/**
 * In a writer process: resolves once the parent writes a line (`go`) to standard input, then stops
 * reading it so that the process can exit. Processes that must act at the same moment print
 * `ready` and wait for this, so they start together however long each took to start.
 */
export function released(): Promise<void> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    let text = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.destroy();
      if (error) reject(error);
      else resolve();
    };
    const onData = (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) finish();
    };
    const onEnd = () => finish(new Error('standard input ended before the release'));
    input.setEncoding('utf8');
    input.on('data', onData);
    input.once('end', onEnd);
  });
}

/**
 * The work of a writer process, in that process, printing one line per acknowledged step:
 * - `write`: adds a card and appends a message per step (`count`, or until killed), printing
 *   `card <content>` / `message <index> <content>` once each write is acknowledged;
 * - `state`: `count` times reads the working state and writes it back one message longer at the
 *   version it read, retrying on `ConflictError`; prints `won <version>` for each write that went
 *   through;
 * - `converse`: serves every turn of the shared 30-turn conversation with its own context manager
 *   (see `playSharedConversation`).
 * `state` and `converse` start at `startAt`, or once released when it is absent.
 */
export async function runSharedStoresJob(
  stores: ProcessStores,
  job: SharedStoresJob,
  print: (line: string) => Promise<void>,
): Promise<void> {
  if (job.mode === 'write') {
    const count = job.count ?? Number.POSITIVE_INFINITY;
    for (let step = 0; step < count; step++) {
      const content = `note ${job.label} ${step}`;
      await stores.memory.add(scope, [{ content, type: 'todo' }]);
      await print(`card ${content}`);
      const [stored] = await stores.history.append(scope, [
        { role: 'user', content: `message ${job.label} ${step}` },
      ]);
      await print(`message ${stored!.index} message ${job.label} ${step}`);
    }
    return;
  }
  if (job.startAt === undefined) await released();
  else await sleep(Math.max(0, job.startAt - Date.now()));
  if (job.mode === 'converse') {
    await playSharedConversation(stores.history, { scope });
    return;
  }
  for (let step = 0; step < job.count; step++) {
    for (;;) {
      const current = await stores.history.getState(scope);
      const messages = [
        ...(current?.messages ?? []),
        { role: 'user' as const, content: `${job.label} ${step}` },
      ];
      try {
        const version = await stores.history.setState(
          scope,
          { summarizedCount: 0, messages, cycle: 0 },
          current?.version ?? 0,
        );
        await print(`won ${version}`);
        break;
      } catch (error) {
        if (!ConflictError.isInstance(error)) throw error;
      }
    }
  }
}
