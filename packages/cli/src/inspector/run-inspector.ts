import { stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  createFileMemoryStore,
  createMemorySearch,
  InvalidArgumentError,
  type MemorySearcher,
  type MemoryStore,
  type ReserveOptions,
  type Scope,
  StorageError,
} from '@ctxmem/core';
import type { CliDependencies } from '../dependencies.js';
import { parseConversationText, readConversation } from '../read-conversation.js';
import type { CliContext } from '../run-cli.js';
import { readStandardInput, STANDARD_STREAM } from '../standard-input.js';
import { inspectConversation } from './inspect-conversation.js';
import { inspectSession } from './inspect-session.js';
import type { Inspection } from './inspection.js';
import { openSessionStore, storeDriverOf } from './open-session-store.js';
import { renderInspectorHtml } from './render-html.js';
import { serveInspector } from './serve-inspector.js';

export interface RunInspectorOptions {
  /** A conversation file, or a session id in the store when no such file exists. */
  target: string;
  contextWindow: { tokens: number; source: string };
  /** The messages' budget of the dry run: the window becomes this with no output reserve. */
  budgetTokens?: number;
  model?: string;
  html?: string;
  serve: boolean;
  /** @default 0 (a random free port) */
  port?: number;
  /** A folder (the file store), `postgres://…` or `redis://…`. @default `<cwd>/.ctxmem` */
  store?: string;
  userId?: string;
  agentId?: string;
  memoryStore?: string;
  /** Resolves when the server should stop. @default the first SIGINT or SIGTERM */
  until?: Promise<unknown>;
}

/** `ctxmem inspect … --html` / `--serve`: builds the inspection, writes and/or serves the page. */
export async function runInspector(
  options: RunInspectorOptions,
  context: CliContext,
  dependencies: CliDependencies,
): Promise<number> {
  const inspection = await buildInspection(options, context, dependencies);
  const html = renderInspectorHtml(inspection);
  const compactions = inspection.calls.filter((call) => call.compaction).length;
  const counts = `${inspection.calls.length} calls, ${compactions} compactions, ${inspection.offloads.length} offloaded payloads`;
  if (options.html === STANDARD_STREAM) {
    context.stdout.write(html);
  } else if (options.html !== undefined) {
    const path = resolve(context.cwd, options.html);
    try {
      await writeFile(path, html);
    } catch (cause) {
      throw new StorageError({
        message: `cannot write ${options.html}: ${String(cause)}`,
        path,
        cause,
      });
    }
    context.stdout.write(`wrote ${options.html} (${counts})\n`);
  }
  if (!options.serve) return 0;
  const server = await serveInspector({
    html,
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  context.stdout.write(`inspector (read-only, ${counts}) at ${server.url}\npress Ctrl+C to stop\n`);
  try {
    await (options.until ?? untilSignal());
  } finally {
    await server.close();
  }
  return 0;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

async function buildInspection(
  options: RunInspectorOptions,
  context: CliContext,
  dependencies: CliDependencies,
): Promise<Inspection> {
  const counter = dependencies.createTokenCounter(options.model ? { model: options.model } : {});
  // An explicit budget is the whole room for messages: no reserve on top of it.
  const window =
    options.budgetTokens !== undefined
      ? { tokens: options.budgetTokens, reserve: { ratio: 0, min: 0 } as ReserveOptions }
      : { tokens: options.contextWindow.tokens };
  const windowNote =
    options.budgetTokens !== undefined
      ? `Budget ${options.budgetTokens} tokens for the messages (--budget), no output reserve.`
      : `Context window ${options.contextWindow.tokens} tokens ${options.contextWindow.source}.`;
  const memory = options.memoryStore
    ? await openMemoryStore(resolve(context.cwd, options.memoryStore), options.memoryStore)
    : undefined;
  const memorySearch = memory?.search;
  const path = resolve(context.cwd, options.target);
  const fromStdin = options.target === STANDARD_STREAM;
  if (options.store === undefined && (fromStdin || (await isFile(path)))) {
    const input = fromStdin
      ? parseConversationText(
          await readStandardInput(context, {
            example: 'ctxmem inspect - --budget 8k --html report.html < conversation.json',
          }),
          'stdin',
          dependencies,
        )
      : await readConversation(path, options.target, dependencies);
    const tools = Array.isArray(input.envelope?.tools) ? (input.envelope.tools as unknown[]) : [];
    return inspectConversation({
      messages: input.messages,
      counter,
      contextWindow: window.tokens,
      ...(window.reserve ? { reserve: window.reserve } : {}),
      tools,
      ...(memorySearch ? { memorySearch } : {}),
      title: options.target,
      notes: [
        `Dry run: ${input.format} conversation of ${input.messages.length} messages replayed call by call through the context manager with the extractive summarizer; nothing is written and no model is called.`,
        windowNote,
      ],
    });
  }
  if (options.store === undefined || storeDriverOf(options.store) === undefined) {
    const root = resolve(context.cwd, options.store ?? '.ctxmem');
    if (!(await isDirectory(root))) {
      throw new StorageError({
        message: `${options.target} is neither a conversation file nor a session in a store (no store at ${options.store ?? '.ctxmem'}; pass --store <dir>, postgres://… or redis://…)`,
        path: root,
      });
    }
  }
  const store = await openSessionStore({
    cwd: context.cwd,
    ...(options.store !== undefined ? { store: options.store } : {}),
  });
  const scope: Scope = {
    sessionId: options.target,
    ...(options.userId !== undefined ? { userId: options.userId } : {}),
    ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
  };
  try {
    const inspection = await inspectSession({
      historyStore: store.history,
      offloadStore: store.offload,
      scope,
      counter,
      contextWindow: window.tokens,
      ...(window.reserve ? { reserve: window.reserve } : {}),
      ...(memory ? { memorySearch: memory.search, memoryStore: memory.store } : {}),
      title: `session ${options.target} in ${store.displayName}`,
      notes: [windowNote],
    });
    if (inspection.calls.length === 0 && !inspection.recorded) {
      throw new InvalidArgumentError({
        message: `no conversation file and no stored session named "${options.target}" in ${store.displayName}`,
        argument: 'file',
      });
    }
    return inspection;
  } finally {
    await store.close();
  }
}

async function openMemoryStore(
  root: string,
  displayName: string,
): Promise<{ store: MemoryStore; search: MemorySearcher }> {
  if (!(await isDirectory(root))) {
    throw new StorageError({
      message: `--memory-store ${displayName} is not a folder`,
      path: root,
    });
  }
  const store = createFileMemoryStore({ root, corruption: 'strict' });
  return { store, search: createMemorySearch({ store }) };
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
