import { InvalidArgumentError, type Scope } from '@ctxmem/core';

/** The key of the call's `providerOptions` that carries ctxmem's per-request settings. */
export const CTXMEM_PROVIDER_OPTIONS_KEY = 'ctxmem';

/**
 * What a call may put in `providerOptions.ctxmem`. The middleware removes it before the provider
 * sees the call.
 */
export interface CtxmemCallOptions {
  userId?: string;
  sessionId?: string;
  agentId?: string;
  /** Send this call's prompt untouched (ctxmem's own summarizer calls use it). @default false */
  bypass?: boolean;
}

const SCOPE_FIELDS = ['userId', 'sessionId', 'agentId'] as const;

function invalid(message: string): never {
  throw new InvalidArgumentError({
    message: `providerOptions.${CTXMEM_PROVIDER_OPTIONS_KEY}: ${message}`,
    argument: `providerOptions.${CTXMEM_PROVIDER_OPTIONS_KEY}`,
  });
}

function readCallOptions(value: unknown): CtxmemCallOptions {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('expected an object like { userId, sessionId, agentId }');
  }
  const options: CtxmemCallOptions = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    if (key === 'bypass') {
      if (typeof field !== 'boolean') invalid('bypass must be a boolean');
      options.bypass = field;
    } else if ((SCOPE_FIELDS as readonly string[]).includes(key)) {
      if (typeof field !== 'string' || field.length === 0) {
        invalid(`${key} must be a non-empty string`);
      }
      options[key as (typeof SCOPE_FIELDS)[number]] = field;
    } else {
      // A typo such as `session_id` would silently mix conversations: reject it.
      invalid(`unknown field "${key}" (expected userId, sessionId, agentId or bypass)`);
    }
  }
  return options;
}

/**
 * Splits a call's `providerOptions` into ctxmem's options and the provider's. The provider's part
 * is `undefined` when nothing else was set, as if ctxmem's key had never been there.
 */
export function splitProviderOptions<Options extends Record<string, unknown>>(
  providerOptions: Options | undefined,
): { ctxmem?: CtxmemCallOptions; providerOptions: Options | undefined } {
  if (providerOptions === undefined || !(CTXMEM_PROVIDER_OPTIONS_KEY in providerOptions)) {
    return { providerOptions };
  }
  const { [CTXMEM_PROVIDER_OPTIONS_KEY]: value, ...rest } = providerOptions;
  return {
    ctxmem: value === undefined ? {} : readCallOptions(value),
    providerOptions: Object.keys(rest).length === 0 ? undefined : (rest as Options),
  };
}

/** `base` with the scope fields of the call's options on top. */
export function mergeScope(base: Scope, call: CtxmemCallOptions | undefined): Scope {
  if (!call) return base;
  const scope: Scope = { ...base };
  for (const field of SCOPE_FIELDS) {
    if (call[field] !== undefined) scope[field] = call[field];
  }
  return scope;
}
