/**
 * Streamable HTTP for local apps: bound to 127.0.0.1 only, a bearer token required on every
 * request, stateless (a fresh `McpServer` and transport per POST, as the MCP SDK's stateless
 * example does), JSON answers rather than SSE streams.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CtxmemError } from '@ctxmem/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Only ever bound here: the server reads and writes the user's memory. */
export const MCP_HTTP_HOST = '127.0.0.1';
/** The endpoint's path. */
export const MCP_HTTP_PATH = '/mcp';

/** The HTTP server could not listen: the port is taken or not allowed. */
export class McpListenError extends CtxmemError<{ port: number }> {
  static override readonly errorName = 'CtxmemMcpListenError';
  declare readonly port: number;

  static override readonly isInstance = CtxmemError.markerGuard<McpListenError>(this);
}

/** How long `close` lets requests in flight finish before it ends their connections. */
const CLOSE_GRACE_MS = 5_000;

export interface McpHttpOptions {
  /** 0: a free port. */
  port: number;
  /** Required as `Authorization: Bearer <token>` on every request. */
  token: string;
  /** A server for one request. */
  createServer(): McpServer;
  /** Told about a request that failed inside the SDK (the client gets a 500). */
  onError(error: unknown): void;
}

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

/** Compares digests, so neither the length nor the content of the token leaks through timing. */
function sameToken(given: string, expected: Buffer): boolean {
  const digest = createHash('sha256').update(given).digest();
  return timingSafeEqual(digest, expected);
}

function answer(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  // A JSON-RPC error body, as the SDK's own HTTP examples answer.
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function serveMcpHttp({
  port,
  token,
  createServer: createMcpServer,
  onError,
}: McpHttpOptions): Promise<McpHttpServer> {
  const expected = createHash('sha256').update(token).digest();
  let boundPort = 0;
  const loopback = () => [`${MCP_HTTP_HOST}:${boundPort}`, `localhost:${boundPort}`];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const authorization = request.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (bearer === undefined || !sameToken(bearer, expected)) {
      answer(response, 401, 'unauthorized: send the token as "Authorization: Bearer <token>"', {
        'www-authenticate': 'Bearer',
      });
      return;
    }
    // DNS rebinding: a page on another site reaching 127.0.0.1 under its own name.
    if (!loopback().includes(request.headers.host ?? '')) {
      answer(response, 403, 'forbidden: unexpected Host header');
      return;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !loopback().some((host) => origin === `http://${host}`)) {
      answer(response, 403, 'forbidden: unexpected Origin header');
      return;
    }
    const path = new URL(request.url ?? '/', `http://${MCP_HTTP_HOST}`).pathname;
    if (path !== MCP_HTTP_PATH) {
      answer(response, 404, `not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
      return;
    }
    if (request.method !== 'POST') {
      // Stateless: no SSE stream to GET, no session to DELETE.
      answer(response, 405, 'method not allowed: POST MCP messages', { allow: 'POST' });
      return;
    }
    const server = createMcpServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  }

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      onError(error);
      if (!response.headersSent) answer(response, 500, 'internal error');
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        new McpListenError({
          message: `cannot listen on ${MCP_HTTP_HOST}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use (choose another --port, or 0 for a free one)' : error.message}`,
          port,
          cause: error,
        }),
      );
    http.once('error', failed);
    http.listen(port, MCP_HTTP_HOST, () => {
      http.off('error', failed);
      resolve();
    });
  });
  boundPort = (http.address() as AddressInfo).port;
  return {
    url: `http://${MCP_HTTP_HOST}:${boundPort}${MCP_HTTP_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Requests in flight finish (their store writes are acknowledged), up to a grace period.
        const force = setTimeout(() => http.closeAllConnections(), CLOSE_GRACE_MS);
        force.unref();
        http.close(() => {
          clearTimeout(force);
          resolve();
        });
        http.closeIdleConnections();
      }),
  };
}
