/** What every fake provider server shares: the rule-break signal and the server handle. */
import type { FakeHttpServer, ProviderRequest } from './http-server.js';

/** A broken provider rule: the server answers it with the provider's error for that rule. */
export class RuleBreak extends Error {
  override name = 'RuleBreak';
}

export interface FakeProviderServer {
  /** The base URL a provider package takes (`baseURL`). */
  readonly url: string;
  /** `http://127.0.0.1:<port>`, for clients that add the API version themselves. */
  readonly origin: string;
  /** Every request received, in order, with the tokens counted and how it was answered. */
  readonly requests: ProviderRequest[];
  /** The requests rejected for a broken rule or (with `kind`) for one kind of rejection. */
  rejected(kind?: 'rule' | 'overflow'): ProviderRequest[];
  close(): Promise<void>;
}

export function fakeProviderServer(server: FakeHttpServer, url: string): FakeProviderServer {
  return {
    url,
    origin: server.origin,
    requests: server.requests,
    rejected: (kind) =>
      server.requests.filter(
        (request) => request.rejection && (kind === undefined || request.rejection.kind === kind),
      ),
    close: () => server.close(),
  };
}
