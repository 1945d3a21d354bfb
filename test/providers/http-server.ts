/**
 * The plumbing every fake provider server shares: a local HTTP server on a free port that records
 * each request, JSON and server-sent-event answers, and closing with open connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';

/** One request a fake provider server received, and how it answered. */
export interface ProviderRequest {
  /** The path without the query, e.g. `/v1/messages`. */
  path: string;
  /** The query string parameters, e.g. `{ alt: 'sse' }`. */
  query: Record<string, string>;
  /** The parsed JSON body, exactly as sent. */
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** 0-based position among the requests this server received. */
  index: number;
  /** The input tokens the server counted for the request (as the provider would bill them). */
  inputTokens?: number;
  /** The HTTP status the server answered with. */
  status?: number;
  /** Why the server rejected the request: a broken rule, or an overflow. */
  rejection?: ProviderRejection;
  /** What the server answered (the response object, also when it was streamed as events). */
  reply?: Record<string, unknown>;
}

/** A rejected request: which kind, and the provider's own error message. */
export interface ProviderRejection {
  kind: 'rule' | 'overflow';
  message: string;
}

/** What a route answers: JSON, or a stream of server-sent events. */
export type RouteAnswer =
  | { status: number; json: unknown; rejection?: ProviderRejection }
  | { status: 200; events: ReadonlyArray<{ event?: string; data: unknown }>; done?: boolean };

export type Route = (request: ProviderRequest) => RouteAnswer | Promise<RouteAnswer>;

export interface FakeHttpServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  readonly origin: string;
  /** Every request received, in order. */
  readonly requests: ProviderRequest[];
  close(): Promise<void>;
}

function send(outgoing: ServerResponse, answer: RouteAnswer): void {
  if ('json' in answer) {
    outgoing.writeHead(answer.status, { 'content-type': 'application/json' });
    outgoing.end(JSON.stringify(answer.json));
    return;
  }
  outgoing.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const { event, data } of answer.events) {
    outgoing.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }
  if (answer.done) outgoing.write('data: [DONE]\n\n');
  outgoing.end();
}

/**
 * Starts a server on 127.0.0.1 that parses each POST body as JSON and hands it to `route`.
 * `invalidBody` answers a body that is not a JSON object, in the provider's error shape.
 */
export async function startFakeHttpServer(
  route: Route,
  invalidBody: (message: string) => RouteAnswer,
): Promise<FakeHttpServer> {
  const requests: ProviderRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const url = new URL(incoming.url ?? '/', 'http://localhost');
      let body: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(await text(incoming));
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          throw new Error('not an object');
        }
        body = parsed as Record<string, unknown>;
      } catch {
        send(outgoing, invalidBody('The request body is not valid JSON.'));
        return;
      }
      const request: ProviderRequest = {
        path: url.pathname.replace(/\/+$/, ''),
        query: Object.fromEntries(url.searchParams),
        body,
        headers: incoming.headers,
        stream: body.stream === true || url.searchParams.get('alt') === 'sse',
        index: requests.length,
      };
      requests.push(request);
      const answer = await route(request);
      request.status = 'json' in answer ? answer.status : 200;
      if ('rejection' in answer && answer.rejection) request.rejection = answer.rejection;
      send(outgoing, answer);
    })().catch((error: unknown) => {
      if (outgoing.headersSent) {
        outgoing.end();
        return;
      }
      send(outgoing, { status: 500, json: { error: { message: String(error) } } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
