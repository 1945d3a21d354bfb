/**
 * What a LangChain chat model's own settings say about the requests it sends: its model id, its
 * input window and the output limit it asks for. Reading them is conversion; what ctxmem does
 * with them (the window, the output reserve) is core's decision.
 */

/** The model id of a LangChain chat model (`model` or `modelName`), when it has one. */
export function chatModelId(model: unknown): string | undefined {
  if (typeof model !== 'object' || model === null) return undefined;
  const fields = model as { model?: unknown; modelName?: unknown };
  if (typeof fields.model === 'string' && fields.model) return fields.model;
  if (typeof fields.modelName === 'string' && fields.modelName) return fields.modelName;
  return undefined;
}

/** The input window of a LangChain chat model from its profile, when it has one. */
export function chatModelWindow(model: unknown): number | undefined {
  if (typeof model !== 'object' || model === null) return undefined;
  try {
    const profile = (model as { profile?: { maxInputTokens?: unknown } }).profile;
    const tokens = profile?.maxInputTokens;
    return typeof tokens === 'number' && Number.isInteger(tokens) && tokens > 0
      ? tokens
      : undefined;
  } catch {
    // Some models compute the profile lazily and may throw when it is unknown.
    return undefined;
  }
}

/** The model fields that hold an output limit: ChatOpenAI and ChatAnthropic (`maxTokens`), Google (`maxOutputTokens`). */
const LIMIT_FIELDS = ['maxTokens', 'maxCompletionTokens', 'maxOutputTokens'] as const;

/**
 * The request keys of an output limit, in the extra request parameters (`modelKwargs`,
 * `invocationKwargs`) and in call options bound with `.withConfig` / `.bindTools` or by the agent's
 * `modelSettings`.
 */
const LIMIT_KEYS = [
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'maxTokens',
  'maxOutputTokens',
] as const;

/** Where a model or binding keeps extra request parameters and bound call options. */
const OPTION_HOLDERS = ['modelKwargs', 'invocationKwargs', 'defaultOptions', 'kwargs', 'config'];

/** Bindings wrap bindings; deeper chains are not followed. */
const MAX_BINDING_DEPTH = 8;

function limitOf(value: unknown): number | undefined {
  // ChatOpenAI writes -1 for "no limit".
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function largest(current: number | undefined, value: unknown): number | undefined {
  const limit = limitOf(value);
  if (limit === undefined) return current;
  return current === undefined ? limit : Math.max(current, limit);
}

/** The largest output limit among a set of call options or request parameters. */
function callOptionsMaxOutputTokens(options: unknown): number | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  let found: number | undefined;
  for (const key of LIMIT_KEYS) found = largest(found, (options as Record<string, unknown>)[key]);
  return found;
}

/**
 * The output a LangChain chat model asks for, when it sets one: its own field (`maxTokens`, which
 * ChatOpenAI also fills from `maxCompletionTokens`; `maxOutputTokens` for Google), a limit in its
 * extra request parameters (`modelKwargs`, `invocationKwargs`), or one bound as call options
 * (`.withConfig({ max_tokens })` — a new ChatOpenAI with `defaultOptions`, or a `RunnableBinding`
 * with `config`/`kwargs` around the model, followed through `bound`). Integrations differ in which
 * of these reach the request, so the largest is returned: reserving it always leaves room for the
 * reply. `callOptions`: what the call itself passes (an agent's `modelSettings`), counted too.
 * `undefined` when none is set (ChatOpenAI's `-1` included): the manager's reserve applies.
 */
export function chatModelMaxOutputTokens(
  model: unknown,
  callOptions?: unknown,
): number | undefined {
  let found = callOptionsMaxOutputTokens(callOptions);
  let current: unknown = model;
  for (let depth = 0; depth < MAX_BINDING_DEPTH; depth++) {
    if (typeof current !== 'object' || current === null) break;
    const fields = current as Record<string, unknown>;
    for (const field of LIMIT_FIELDS) found = largest(found, fields[field]);
    for (const holder of OPTION_HOLDERS) {
      found = largest(found, callOptionsMaxOutputTokens(fields[holder]));
    }
    // A RunnableBinding (`.bindTools(…)` on most models, `.withConfig(…)`) wraps the model that
    // holds the setting.
    if (fields.bound === current) break;
    current = fields.bound;
  }
  return found;
}
