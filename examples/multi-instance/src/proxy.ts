import { createServer, request as httpRequest, type Server } from 'node:http';

export interface RoundRobinProxy {
  /** The proxy's URL, on the loopback address. */
  url: string;
  close(): Promise<void>;
}

/**
 * A small load balancer: each request goes to the next backend in turn, as a round-robin balancer
 * in front of stateless app instances does. Loopback only, no retries: a backend's failure is the
 * client's failed request.
 */
export async function startRoundRobinProxy(backends: readonly string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const target = new URL(incoming.url ?? '/', backends[next++ % backends.length]);
    const forwarded = httpRequest(
      target,
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end(String(error));
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
