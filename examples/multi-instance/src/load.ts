/**
 * A bounded load on the deployment: `sessions` conversations of `turns` turns each, a few at a
 * time, every request carrying the whole conversation through the round-robin proxy, and every
 * `hedgeEvery`-th turn sent to two instances at once (a hedged or retried request). Then it checks
 * what came back and what the shared store holds:
 * - **invalid prompts**: a prompt that does not start with the system message, does not end with
 *   the turn's user message, exceeds the context window, holds a message twice, or has the
 *   conversation's messages out of order;
 * - **duplicates / losses**: stored history messages beyond one copy of each sent message, and
 *   sent messages the store does not hold (compared with the last request of each session);
 * - **added latency**: the time ctxmem took to prepare each prompt in the instance (reading and
 *   writing the shared store), and the whole request through the proxy.
 */
import type { Message } from '@ctxmem/core';
import { type ChatRequest, type ChatResponse, CONTEXT_WINDOW } from './app-server-types.js';
import { type Deployment, startDeployment } from './deployment.js';
import { openStores, type StoreKind } from './stores.js';

export interface LoadOptions {
  store: StoreKind;
  url: string;
  /** PostgreSQL schema or Redis key prefix; a fresh one keeps runs apart. */
  namespace: string;
  /** @default 100 */
  sessions?: number;
  /** @default 20 */
  turns?: number;
  /** Sessions in flight at once. @default 10 */
  concurrency?: number;
  /** Every n-th turn of a session goes to two instances at once (0: never). @default 4 */
  hedgeEvery?: number;
  /** @default 3 */
  instances?: number;
  /** The script each instance runs (see `DeploymentOptions`). @default src/app-server.ts */
  instanceEntry?: string;
}

export interface LoadReport {
  store: StoreKind;
  instances: number;
  sessions: number;
  turns: number;
  requests: number;
  hedgedTurns: number;
  failedRequests: number;
  invalidPrompts: number;
  duplicates: number;
  losses: number;
  /** Sessions whose stored history is not exactly the sent messages in order. */
  misordered: number;
  compactedResponses: number;
  prepareP50Ms: number;
  addedLatencyP99Ms: number;
  requestP99Ms: number;
  problems: string[];
}

const SYSTEM: Message = { role: 'system', content: 'You are the planning assistant of a team.' };

function userMessage(session: string, turn: number): Message {
  return {
    role: 'user',
    content: `Session ${session}, turn ${turn}: please record that task ${turn} of ${session} moves to review, and remind me what changed since the last check-in.`,
  };
}

const text = (message: Message) =>
  typeof message.content === 'string' ? message.content : JSON.stringify(message.content);

/** Why a prompt is invalid, or undefined when it is fine. */
export function promptProblem(
  prompt: readonly Message[],
  conversation: readonly Message[],
  tokens: number,
): string | undefined {
  if (prompt.length === 0 || text(prompt[0]!) !== text(SYSTEM)) return 'no system message first';
  if (text(prompt.at(-1)!) !== text(conversation.at(-1)!)) return 'not ending with the turn';
  if (tokens > CONTEXT_WINDOW) return `${tokens} tokens in a ${CONTEXT_WINDOW}-token window`;
  const seen = new Set<string>();
  for (const message of prompt) {
    const key = `${message.role}:${text(message)}`;
    if (seen.has(key)) return `a message twice: ${key.slice(0, 80)}`;
    seen.add(key);
  }
  // The conversation's own messages (not ctxmem's summaries) keep their order.
  const positions = new Map(conversation.map((message, index) => [text(message), index]));
  let last = -1;
  for (const message of prompt) {
    if (message.ctxmem !== undefined) continue;
    const position = positions.get(text(message));
    if (position === undefined) continue;
    if (position < last) return 'messages out of order';
    last = position;
  }
  return undefined;
}

async function post(url: string, request: ChatRequest): Promise<ChatResponse> {
  const answer = await fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  const body = await answer.text();
  if (!answer.ok) throw new Error(`HTTP ${answer.status}: ${body.slice(0, 200)}`);
  return JSON.parse(body) as ChatResponse;
}

const percentile = (values: number[], share: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
};

/** Starts the deployment, runs the load, audits the store, stops everything. */
export async function runLoad({
  store,
  url,
  namespace,
  sessions = 100,
  turns = 20,
  concurrency = 10,
  hedgeEvery = 4,
  instances = 3,
  instanceEntry,
}: LoadOptions): Promise<LoadReport> {
  const deployment: Deployment = await startDeployment({
    store,
    url,
    namespace,
    instances,
    instanceEntry,
  });
  const problems: string[] = [];
  const prepareTimes: number[] = [];
  const requestTimes: number[] = [];
  const conversations = new Map<string, Message[]>();
  let requests = 0;
  let hedgedTurns = 0;
  let failedRequests = 0;
  let invalidPrompts = 0;
  let compactedResponses = 0;

  const check = (session: string, conversation: Message[], response: ChatResponse) => {
    prepareTimes.push(response.prepareMs);
    if (response.compacted) compactedResponses++;
    const problem = promptProblem(response.prompt, conversation, response.tokens);
    if (problem) {
      invalidPrompts++;
      problems.push(`${session} (${response.instance}): ${problem}`);
    }
  };

  async function send(target: string, session: string, conversation: Message[]) {
    requests++;
    const started = performance.now();
    try {
      const response = await post(target, { sessionId: session, messages: conversation });
      requestTimes.push(performance.now() - started);
      check(session, conversation, response);
      return response;
    } catch (error) {
      failedRequests++;
      problems.push(`${session}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  async function runSession(index: number): Promise<void> {
    const session = `s${String(index).padStart(3, '0')}`;
    const conversation: Message[] = [SYSTEM];
    conversations.set(session, conversation);
    for (let turn = 1; turn <= turns; turn++) {
      conversation.push(userMessage(session, turn));
      const sent = [...conversation];
      let reply: ChatResponse | undefined;
      if (hedgeEvery > 0 && turn % hedgeEvery === 0) {
        // The same request to two instances at once; the first answer wins, as a hedging client
        // or a retrying balancer would have it.
        hedgedTurns++;
        const first = (index + turn) % deployment.instances.length;
        const second = (first + 1) % deployment.instances.length;
        const both = [
          send(deployment.instances[first]!, session, sent),
          send(deployment.instances[second]!, session, sent),
        ];
        reply = await Promise.any(
          both.map((pending) => pending.then((answer) => answer ?? Promise.reject())),
        ).catch(() => undefined);
        await Promise.all(both);
      } else {
        reply = await send(deployment.url, session, sent);
      }
      if (!reply) return;
      conversation.push({ role: 'assistant', content: reply.reply });
    }
  }

  let duplicates = 0;
  let losses = 0;
  let misordered = 0;
  try {
    // Each instance loads its tokenizer and connects on its first request: a running service has
    // done so long before, so that request is not measured.
    await Promise.all(
      deployment.instances.map((instance) =>
        post(instance, { sessionId: 'warm-up', messages: [SYSTEM, userMessage('warm-up', 1)] }),
      ),
    );
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, sessions) }, async () => {
        while (next < sessions) await runSession(next++);
      }),
    );
    const stores = await openStores(store, url, namespace);
    try {
      for (const [session, conversation] of conversations) {
        // The last request held every message but the last reply.
        const sent =
          conversation.at(-1)?.role === 'assistant' ? conversation.slice(0, -1) : conversation;
        const stored = (await stores.history.read({ userId: 'demo', sessionId: session })).map(
          (entry) => text(entry.message),
        );
        const remaining = new Map<string, number>();
        for (const content of stored) remaining.set(content, (remaining.get(content) ?? 0) + 1);
        for (const message of sent) {
          const left = remaining.get(text(message)) ?? 0;
          if (left === 0) losses++;
          else remaining.set(text(message), left - 1);
        }
        duplicates += [...remaining.values()].reduce((sum, left) => sum + left, 0);
        if (
          stored.length !== sent.length ||
          stored.some((content, at) => content !== text(sent[at]!))
        ) {
          misordered++;
        }
      }
    } finally {
      await stores.close();
    }
  } finally {
    await deployment.stop();
  }
  const round = (value: number) => Number(value.toFixed(2));
  return {
    store,
    instances,
    sessions,
    turns,
    requests,
    hedgedTurns,
    failedRequests,
    invalidPrompts,
    duplicates,
    losses,
    misordered,
    compactedResponses,
    prepareP50Ms: round(percentile(prepareTimes, 0.5)),
    addedLatencyP99Ms: round(percentile(prepareTimes, 0.99)),
    requestP99Ms: round(percentile(requestTimes, 0.99)),
    problems: problems.slice(0, 20),
  };
}
