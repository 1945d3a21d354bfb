import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { type InspectorServer, serveInspector } from './index.js';

const PAGE = '<!doctype html><p>inspector page</p>';
let server: InspectorServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function send(
  url: string,
  {
    method = 'GET',
    host,
    headers = {},
  }: { method?: string; host?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: host ?? target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        headers,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('serveInspector', () => {
  it('serves the page with its token, on 127.0.0.1 and a random port', async () => {
    server = await serveInspector({ html: PAGE });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    expect(server.port).toBeGreaterThan(0);
    const answer = await send(server.url);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(PAGE);
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
  });

  it('refuses every request without the right token with 403', async () => {
    server = await serveInspector({ html: PAGE });
    const base = `http://127.0.0.1:${server.port}`;
    for (const url of [
      `${base}/`,
      `${base}/?token=`,
      `${base}/?token=wrong`,
      `${base}/?token=${server.token}x`,
      `${base}/other`,
      `${base}/?token=${server.token.slice(0, -1)}`,
    ]) {
      const answer = await send(url);
      expect(answer.status, url).toBe(403);
      expect(answer.body).not.toContain('inspector page');
    }
    expect((await send(`${base}/`, { method: 'POST' })).status).toBe(403);
  });

  it('has no write endpoints and nothing besides the page', async () => {
    server = await serveInspector({ html: PAGE });
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const answer = await send(server.url, { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe('GET, HEAD');
    }
    const other = server.url.replace('/?', '/api?');
    expect((await send(other)).status).toBe(404);
    const head = await send(server.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('refuses a foreign Host header (DNS rebinding) even with the token', async () => {
    server = await serveInspector({ html: PAGE });
    const answer = await send(server.url, { headers: { host: `evil.example:${server.port}` } });
    expect(answer.status).toBe(403);
    expect((await send(server.url, { headers: { host: `localhost:${server.port}` } })).status).toBe(
      200,
    );
  });

  it('listens on loopback only: another address of this machine cannot connect', async () => {
    server = await serveInspector({ html: PAGE, token: 'fixed-token' });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=fixed-token`);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && !address.internal && address.family === 'IPv4');
    if (external === undefined) {
      console.warn(
        'serve-inspector test: no non-loopback IPv4 address here; only the bind address is checked',
      );
      return;
    }
    await expect(send(server.url, { host: external.address })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('uses the port it is given', async () => {
    const probe = await serveInspector({ html: PAGE });
    const port = probe.port;
    await probe.close();
    server = await serveInspector({ html: PAGE, port });
    expect(server.port).toBe(port);
    expect((await send(server.url)).status).toBe(200);
  });
});
