import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INSPECTOR_CONTENT_SECURITY_POLICY } from './render-html.js';

export interface ServeInspectorOptions {
  /** The page to serve. */
  html: string;
  /** @default 0 (a random free port) */
  port?: number;
  /** Required as `?token=` on every request. @default 32 random bytes, base64url */
  token?: string;
}

export interface InspectorServer {
  /** The page's address, token included. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

/** Only ever bound here: the page shows whole conversations. */
export const INSPECTOR_HOST = '127.0.0.1';

const HEADERS = {
  'content-security-policy': INSPECTOR_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The token is in the address: never send it on as a referrer, never cache the page.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * Serves one page, read-only, on 127.0.0.1: GET or HEAD of `/` with the right token answers the
 * page; a missing or wrong token answers 403 (before anything else is looked at), a foreign Host
 * header (DNS rebinding) 403, any other method 405, any other path 404. There is nothing to write.
 */
export async function serveInspector({
  html,
  port = 0,
  token = randomBytes(32).toString('base64url'),
}: ServeInspectorOptions): Promise<InspectorServer> {
  const expected = Buffer.from(token);
  const body = Buffer.from(html);
  const server = createServer((request, response) => {
    handle(request, response);
  });
  let boundPort = 0;

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', `http://${INSPECTOR_HOST}`);
    const given = Buffer.from(url.searchParams.get('token') ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      answer(response, 403, 'forbidden: the token is missing or wrong\n');
      return;
    }
    const host = request.headers.host ?? '';
    if (host !== `${INSPECTOR_HOST}:${boundPort}` && host !== `localhost:${boundPort}`) {
      answer(response, 403, 'forbidden: unexpected Host header\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      answer(response, 405, 'method not allowed: the inspector is read-only\n');
      return;
    }
    if (url.pathname !== '/') {
      answer(response, 404, 'not found\n');
      return;
    }
    response.writeHead(200, {
      ...HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-length': body.length,
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, INSPECTOR_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  boundPort = (server.address() as AddressInfo).port;
  return {
    url: `http://${INSPECTOR_HOST}:${boundPort}/?token=${token}`,
    port: boundPort,
    token,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { ...HEADERS, 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}
