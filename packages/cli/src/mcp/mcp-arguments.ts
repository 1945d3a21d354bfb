import type { Scope } from '@ctxmem/core';
import { InvalidArgumentError } from '@ctxmem/core';
import { optionalString, parseArguments } from '../arguments.js';
import { storeDriverOf } from '../inspector/open-session-store.js';
import {
  parseRetrievalArguments,
  parseScopeFlags,
  RETRIEVAL_OPTIONS,
  type RetrievalArguments,
  SCOPE_FLAGS,
  STORE_OPTIONS,
  validateScope,
} from '../memory/memory-arguments.js';
import { noPositionals } from '../memory/memory-store.js';

/** Read when `--store` is not given: a URL with a password is better kept out of the arguments. */
export const STORE_VARIABLE = 'CTXMEM_STORE';
/** Read when `--token` is not given. */
export const TOKEN_VARIABLE = 'CTXMEM_MCP_TOKEN';
/** Read for the scope fields that no flag sets. */
export const SCOPE_VARIABLES = {
  userId: 'CTXMEM_USER_ID',
  agentId: 'CTXMEM_AGENT_ID',
  sessionId: 'CTXMEM_SESSION_ID',
} as const;

/** The shortest `--token` accepted: a guessable token would open the memory to any local process. */
export const MIN_TOKEN_LENGTH = 16;

export interface McpArguments {
  /** A folder, `postgres://…` or `redis://…`, as given (resolve a folder against the context's `cwd`). */
  store: string;
  /**
   * The server's scope, from the flags and the environment. Its fields are fixed: a call's own
   * `scope` argument may add the others, never change these.
   */
  scope: Scope;
  /** Where each fixed field came from (`--user`, `CTXMEM_USER_ID`), for messages. */
  scopeSources: Partial<Record<keyof Scope, string>>;
  /** `--embedder`, `--fusion`, `--sequence-context` for `search_memory`. */
  retrieval: RetrievalArguments;
  /** Streamable HTTP on 127.0.0.1 instead of stdio. */
  http?: {
    /** 0: a free port. */
    port: number;
    /** Absent: generate one and print it. */
    token?: string;
    /** Where the token came from, for messages. */
    tokenSource?: string;
  };
}

export function parseMcpArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): McpArguments {
  const { values, positionals } = parseArguments(argv, {
    ...STORE_OPTIONS,
    ...RETRIEVAL_OPTIONS,
    http: { type: 'boolean' },
    port: { type: 'string' },
    token: { type: 'string' },
  });
  noPositionals(positionals, 'mcp');
  const store = optionalString(values.store, '--store') ?? nonEmpty(env[STORE_VARIABLE]);
  if (store === undefined) {
    throw new InvalidArgumentError({
      message: `ctxmem mcp needs --store <dir|postgres://…|redis://…> (or ${STORE_VARIABLE}): where the memory lives`,
      argument: '--store',
    });
  }

  // An unsupported URL is a usage error, found before anything starts.
  storeDriverOf(store);

  const flags = parseScopeFlags(values);
  const scope: Scope = {};
  const scopeSources: McpArguments['scopeSources'] = {};
  for (const [flag, field] of SCOPE_FLAGS) {
    const fromFlag = flags[field];
    const fromEnvironment = nonEmpty(env[SCOPE_VARIABLES[field]]);
    if (fromFlag !== undefined) {
      scope[field] = fromFlag;
      scopeSources[field] = `--${flag}`;
    } else if (fromEnvironment !== undefined) {
      scope[field] = fromEnvironment;
      scopeSources[field] = SCOPE_VARIABLES[field];
    }
  }

  const http = values.http === true;
  if (!http) {
    for (const flag of ['port', 'token'] as const) {
      if (values[flag] !== undefined) {
        throw new InvalidArgumentError({
          message: `--${flag} is an option of --http (the default transport is stdio)`,
          argument: `--${flag}`,
        });
      }
    }
  }
  const token = optionalString(values.token, '--token') ?? nonEmpty(env[TOKEN_VARIABLE]);
  const tokenSource = values.token !== undefined ? '--token' : TOKEN_VARIABLE;
  if (http && token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new InvalidArgumentError({
      message: `${tokenSource} must be at least ${MIN_TOKEN_LENGTH} characters long (leave it out for a random one)`,
      argument: tokenSource,
    });
  }
  return {
    store,
    scope: validateScope(scope, 'scope'),
    scopeSources,
    retrieval: parseRetrievalArguments(values),
    ...(http
      ? {
          http: {
            port: values.port === undefined ? 0 : parsePort(values.port),
            ...(token !== undefined ? { token, tokenSource } : {}),
          },
        }
      : {}),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function parsePort(value: string | boolean): number {
  const text = String(value).trim();
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(port) || port > 65_535) {
    throw new InvalidArgumentError({
      message: `--port must be a port number from 0 to 65535 (0: a free one), got "${text}"`,
      argument: '--port',
    });
  }
  return port;
}
