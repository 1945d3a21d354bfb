/**
 * A local OpenAI-compatible HTTP server for end-to-end tests of adapters (`@ai-sdk/openai`,
 * `@langchain/openai`): `POST /v1/chat/completions` and `POST /v1/responses` (each with and
 * without streaming) and `POST /v1/embeddings`. It records every request body, so a test can
 * assert what really went over the wire, and answers with scripted text or tool calls.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { chatChunks, chatCompletion } from './chat-completions.js';
import { argumentsText, estimateTokens, type ResolvedReply } from './reply.js';
import { response, responseEvents } from './responses.js';

export type OpenAIServerEndpoint = 'chat.completions' | 'responses' | 'embeddings';

/** One request the server received. */
export interface OpenAIServerRequest {
  endpoint: OpenAIServerEndpoint;
  /** The parsed JSON body, exactly as sent. */
  body: Record<string, unknown>;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** 0-based position among all requests to the chat and responses endpoints. */
  index: number;
  headers: IncomingMessage['headers'];
}

/** A scripted tool call; `arguments` may be a value (sent as its JSON) or a JSON string. */
export interface OpenAIServerToolCall {
  /** @default `call_<n>` */
  id?: string;
  name: string;
  arguments: unknown;
}

/** What the model answers: text, tool calls, or an HTTP error. */
export interface OpenAIServerReply {
  /** @default '' with tool calls, else 'ok' */
  text?: string;
  toolCalls?: readonly OpenAIServerToolCall[];
  /** Fail with this HTTP status and an OpenAI error body. @default undefined (success) */
  status?: number;
  /** The error message when `status` is set. @default 'scripted error' */
  error?: string;
}

export type OpenAIServerHandler = (
  request: OpenAIServerRequest,
) => OpenAIServerReply | string | Promise<OpenAIServerReply | string>;

export interface OpenAICompatibleServerOptions {
  /**
   * Computes the reply to each chat or responses request.
   * @default plays `replies` in order, then answers 'ok'
   */
  handler?: OpenAIServerHandler;
  /** Replies of the default handler, in order (a string is a text reply). @default [] */
  replies?: ReadonlyArray<OpenAIServerReply | string>;
  /** Length of the deterministic vectors `/v1/embeddings` returns, unless the request sets `dimensions`. @default 16 */
  embeddingDimensions?: number;
}

export interface OpenAICompatibleServer {
  /** Base URL including `/v1`, for a client's `baseURL`. */
  readonly url: string;
  /** Every request received, in order (embeddings included). */
  readonly requests: OpenAIServerRequest[];
  /** Stops the server and closes open connections. */
  close(): Promise<void>;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, {
    error: {
      message,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: null,
    },
  });
}

function sendEvents(response: ServerResponse, events: readonly unknown[], done: boolean): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
  if (done) response.write('data: [DONE]\n\n');
  response.end();
}

/** A deterministic unit vector of the words of `text` (hashed into buckets). */
function embed(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    let hash = 2166136261;
    for (let index = 0; index < word.length; index++)
      hash = Math.imul(hash ^ word.charCodeAt(index), 16777619);
    vector[(hash >>> 0) % dimensions]! += 1;
  }
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
  return vector.map((value) => value / length);
}

/**
 * Starts the server on 127.0.0.1 on a free port. Close it in `afterAll`/`afterEach`.
 *
 * @example
 * const server = await startOpenAICompatibleServer({ replies: ['Hello!'] });
 * const openai = createOpenAI({ baseURL: server.url, apiKey: 'test' });
 */
export async function startOpenAICompatibleServer({
  handler,
  replies = [],
  embeddingDimensions = 16,
}: OpenAICompatibleServerOptions = {}): Promise<OpenAICompatibleServer> {
  const requests: OpenAIServerRequest[] = [];
  let replyIndex = 0;
  let callIndex = 0;
  let completionIndex = 0;
  const reply: OpenAIServerHandler = handler ?? (() => replies[replyIndex++] ?? 'ok');

  async function resolveReply(
    request: OpenAIServerRequest,
  ): Promise<ResolvedReply | OpenAIServerReply> {
    const answer = await reply(request);
    const scripted: OpenAIServerReply = typeof answer === 'string' ? { text: answer } : answer;
    if (scripted.status !== undefined) return scripted;
    const toolCalls = (scripted.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++callIndex}`,
      name: call.name,
      arguments: argumentsText(call.arguments),
    }));
    const text = scripted.text ?? (toolCalls.length > 0 ? '' : 'ok');
    return {
      text,
      toolCalls,
      promptTokens: estimateTokens(JSON.stringify(request.body)),
      completionTokens: estimateTokens(text + toolCalls.map((call) => call.arguments).join('')),
    };
  }

  async function route(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const path = (incoming.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    const endpoint: OpenAIServerEndpoint | undefined =
      path === '/v1/chat/completions'
        ? 'chat.completions'
        : path === '/v1/responses'
          ? 'responses'
          : path === '/v1/embeddings'
            ? 'embeddings'
            : undefined;
    if (incoming.method !== 'POST' || !endpoint) {
      sendError(outgoing, 404, `No route for ${incoming.method} ${path}`);
      return;
    }
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(await text(incoming));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      sendError(outgoing, 400, 'The request body is not a JSON object.');
      return;
    }
    const stream = body.stream === true;
    const model = typeof body.model === 'string' ? body.model : 'unknown-model';
    const index = endpoint === 'embeddings' ? -1 : completionIndex++;
    const request: OpenAIServerRequest = {
      endpoint,
      body,
      stream,
      index,
      headers: incoming.headers,
    };
    requests.push(request);

    if (endpoint === 'embeddings') {
      const input = Array.isArray(body.input) ? body.input : [body.input];
      const dimensions =
        typeof body.dimensions === 'number' ? body.dimensions : embeddingDimensions;
      sendJson(outgoing, 200, {
        object: 'list',
        model,
        data: input.map((text, position) => ({
          object: 'embedding',
          index: position,
          embedding: embed(String(text), dimensions),
        })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      });
      return;
    }

    const resolved = await resolveReply(request);
    if (!('promptTokens' in resolved)) {
      sendError(outgoing, resolved.status ?? 500, resolved.error ?? 'scripted error');
      return;
    }
    const id = `${endpoint === 'responses' ? 'resp' : 'chatcmpl'}_${index + 1}`;
    if (endpoint === 'chat.completions') {
      const includeUsage =
        (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      if (stream) sendEvents(outgoing, chatChunks(id, model, resolved, includeUsage), true);
      else sendJson(outgoing, 200, chatCompletion(id, model, resolved));
    } else if (stream) {
      sendEvents(outgoing, responseEvents(id, model, resolved), false);
    } else {
      sendJson(outgoing, 200, response(id, model, resolved));
    }
  }

  const server = createServer((incoming, outgoing) => {
    route(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) {
        sendError(outgoing, 500, error instanceof Error ? error.message : String(error));
      } else {
        outgoing.end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
