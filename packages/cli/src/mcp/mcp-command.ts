/**
 * `ctxmem mcp`: serves a store's memory to MCP clients, over stdio (the default) or Streamable
 * HTTP on 127.0.0.1 (`--http`). Loaded only when `ctxmem mcp` runs: it pulls in the MCP SDK.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { createMemorySearch, InvalidArgumentError, scopeKey } from '@ctxmem/core';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { oneLine } from '../format.js';
import { createCliEmbedder, retrievalSearchOptions } from '../memory/memory-embedder.js';
import type { CliContext } from '../run-cli.js';
import { createDrainingTransport } from './draining-transport.js';
import { type McpArguments, parseMcpArguments, TOKEN_VARIABLE } from './mcp-arguments.js';
import { serveMcpHttp } from './mcp-http.js';
import { createScopeResolver } from './mcp-scope.js';
import { createMcpServer, createMcpTools, type McpServices } from './mcp-server.js';
import { openMcpStores } from './mcp-stores.js';

/** How long a shutdown waits for the calls in flight to be answered. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Runs `ctxmem mcp …` until the client goes away (stdin ends, for stdio) or SIGTERM / SIGINT, then
 * closes the stores and returns 0. Bad arguments and stores that cannot be opened are thrown for
 * `runCli` to report; a bad call only fails that call.
 */
export async function runMcpCommand(argv: readonly string[], context: CliContext): Promise<number> {
  const options = parseMcpArguments(argv, context.env);
  const streams = options.http ? undefined : stdioStreams(context);
  const stores = await openMcpStores(options.store, context);
  const log = (line: string) => context.stderr.write(`ctxmem mcp: ${line}\n`);
  const onUnexpectedError = (error: unknown) => {
    // A call the client cancelled (or a shutdown) aborts its store operation: not a fault.
    if (error instanceof Error && error.name === 'AbortError') return;
    log(`unexpected error, the server keeps serving: ${oneLine(describe(error))}`);
    if (context.env.CTXMEM_DEBUG === '1' && error instanceof Error && error.stack) {
      context.stderr.write(`${error.stack}\n`);
    }
  };
  // A stray rejection (a background index build, a dropped connection) must not end the server.
  const onRejection = (reason: unknown) => onUnexpectedError(reason);
  process.on('unhandledRejection', onRejection);
  try {
    const embedder = await createCliEmbedder(options.retrieval, { env: context.env });
    const search = createMemorySearch({
      store: stores.memory,
      ...retrievalSearchOptions(options.retrieval, embedder),
    });
    const services: McpServices = {
      tools: createMcpTools(stores, search),
      stores,
      resolveScope: createScopeResolver(options.scope, options.scopeSources),
      version: await readVersion(),
      onUnexpectedError,
    };
    const serving = `${stores.displayName} (scope ${scopeKey(options.scope)})`;
    let reason: string;
    if (streams) {
      const server = createMcpServer(services);
      const closed = new Promise<string>((resolve) => {
        server.server.onclose = () => resolve('the client closed the connection');
      });
      const transport = createDrainingTransport(
        new StdioServerTransport(streams.stdin, streams.stdout),
      );
      // A line that is not a JSON-RPC message is dropped by the SDK; say so.
      server.server.onerror = (error) => log(`ignored: ${oneLine(error.message)}`);
      await server.connect(transport);
      if (context.quiet !== true) log(`serving ${serving} over stdio`);
      reason = await Promise.race([closed, shutdownSignal(streams.stdin)]);
      // Requests already read are answered before the server closes (closing aborts them).
      await transport.drained(DRAIN_TIMEOUT_MS);
      await server.close();
    } else {
      reason = await serveHttp(options.http!, services, serving, log);
    }
    if (context.quiet !== true) log(`stopped (${reason})`);
    return 0;
  } finally {
    process.off('unhandledRejection', onRejection);
    await stores.close();
  }
}

async function serveHttp(
  http: NonNullable<McpArguments['http']>,
  services: McpServices,
  serving: string,
  log: (line: string) => void,
): Promise<string> {
  const token = http.token ?? randomBytes(32).toString('base64url');
  const server = await serveMcpHttp({
    port: http.port,
    token,
    createServer: () => createMcpServer(services),
    onError: services.onUnexpectedError,
  });
  try {
    // The address and the token are what a client needs: printed even with --quiet.
    log(`serving ${serving} at ${server.url}`);
    log(
      http.token === undefined
        ? `token (send "Authorization: Bearer <token>"; set ${TOKEN_VARIABLE} or --token to choose one): ${token}`
        : `token: the one in ${http.tokenSource}`,
    );
    return await shutdownSignal();
  } finally {
    await server.close();
  }
}

/** Resolves with the reason on SIGTERM or SIGINT, or when `stdin` (the client's pipe) ends. */
function shutdownSignal(stdin?: Readable): Promise<string> {
  return new Promise((resolve) => {
    const events: Array<[NodeJS.EventEmitter, string]> = [
      [process, 'SIGTERM'],
      [process, 'SIGINT'],
      ...(stdin
        ? ([
            [stdin, 'end'],
            [stdin, 'close'],
          ] as Array<[NodeJS.EventEmitter, string]>)
        : []),
    ];
    const listeners = events.map(([emitter, event]) => {
      const listener = () => {
        for (const [other, name, handler] of listeners) other.off(name, handler);
        resolve(event === 'end' || event === 'close' ? 'stdin ended' : event);
      };
      emitter.on(event, listener);
      return [emitter, event, listener] as const;
    });
  });
}

/** The streams of stdio: `bin.ts` passes the process's. */
function stdioStreams(context: CliContext): { stdin: Readable; stdout: Writable } {
  const stdin = context.stdin as Partial<Readable> | undefined;
  const stdout = context.stdout as Partial<Writable>;
  if (typeof stdin?.on !== 'function' || typeof stdout.once !== 'function') {
    throw new InvalidArgumentError({
      message: 'ctxmem mcp over stdio needs the process’s stdin and stdout streams (or use --http)',
      argument: 'stdin',
    });
  }
  return { stdin: stdin as Readable, stdout: stdout as Writable };
}

async function readVersion(): Promise<string> {
  // The same relative path works from src/mcp (tsx) and from dist/mcp (built).
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
