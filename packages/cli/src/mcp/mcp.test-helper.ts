/**
 * Starts `ctxmem mcp` as a child process, as an MCP client would (through tsx, exactly as the
 * built `dist/bin.js` runs), and drives it with the MCP SDK's own client.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { HistoryStore, OffloadStore, Scope } from '@ctxmem/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));
/** `node --import tsx bin.ts`, run from the repository so tsx maps `@ctxmem/*` to the sources. */
const command = [process.execPath, '--import', 'tsx', bin] as const;

/** The few variables a child needs; the test runner's own `CTXMEM_*` never leak in. */
function childEnvironment(env: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  return { ...base, ...env };
}

export interface StdioServer {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** `ctxmem mcp <args>` over stdio, connected (initialized) with the SDK's `Client`. */
export async function startStdioServer(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: command[0],
    args: [...command.slice(1), 'mcp', ...args],
    env: childEnvironment(env),
    cwd: repositoryRoot,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'ctxmem-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export interface HttpServerProcess {
  child: ChildProcess;
  /** The endpoint, as printed on stderr. */
  url: URL;
  /** The token printed on stderr (a generated one), or undefined. */
  token: string | undefined;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `ctxmem mcp --http <args>` as a child process, once it prints its address. */
export async function startHttpServer(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<HttpServerProcess> {
  const child = spawn(command[0], [...command.slice(1), 'mcp', '--http', ...args], {
    cwd: repositoryRoot,
    env: childEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const ready = new Promise<{ url: URL; token: string | undefined }>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = / at (http:\/\/\S+)$/m.exec(stderr)?.[1];
      if (url === undefined || !/^ctxmem mcp: token.*\n/m.test(stderr)) return;
      // A generated token is printed; a given one is only named.
      const generated = /^ctxmem mcp: token \(.*\): (\S+)$/m.exec(stderr)?.[1];
      resolve({ url: new URL(url), token: generated });
    });
    void exited.then(([code]) => reject(new Error(`ctxmem mcp exited (${code}): ${stderr}`)));
  });
  const { url, token } = await ready;
  return {
    child,
    url,
    token,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      const [code] = await exited;
      // Nothing but MCP may go to stdout; over HTTP nothing at all.
      expect(stdout).toBe('');
      return code;
    },
  };
}

/** An SDK client over Streamable HTTP, sending `token` as a bearer token when given. */
export async function connectHttp(url: URL, token: string | undefined): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'ctxmem-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns its JSON result; fails the test on an error result. */
export async function callTool<Result = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Result> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  // The text and the structured content carry the same result.
  expect(result.structuredContent).toEqual(JSON.parse(text));
  return JSON.parse(text) as Result;
}

/** The error text of a call that must fail (as an error result or a JSON-RPC error). */
export async function callError(client: Client, name: string, args: unknown): Promise<string> {
  try {
    const result = (await client.callTool({
      name,
      arguments: args as Record<string, unknown>,
    })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (!result.isError) throw new Error(`${name} accepted ${JSON.stringify(args)}: ${text}`);
    return text;
  } catch (error) {
    if (error instanceof Error && error.message.includes('accepted')) throw error;
    return error instanceof Error ? error.message : String(error);
  }
}

/** The text of a resource. */
export async function readText(client: Client, uri: string): Promise<string> {
  const { contents } = await client.readResource({ uri });
  return contents.map((content) => ('text' in content ? content.text : '')).join('');
}

/** A short conversation in the history store and one offloaded payload, in `scope`. */
export async function seedConversation(
  stores: { history: HistoryStore; offload: OffloadStore },
  scope: Scope,
): Promise<{ offloadId: string }> {
  await stores.history.append(scope, [
    { role: 'user', content: 'Which port does staging use?' },
    { role: 'assistant', content: 'Staging listens on port 5433.' },
    { role: 'user', content: 'And production?' },
    { role: 'assistant', content: 'Production uses 5432.' },
  ]);
  const offloadId = await stores.offload.put(scope, {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'read_log',
        output: { type: 'text', value: 'build log: 4,000 lines of output, all green' },
      },
    ],
  });
  return { offloadId };
}
