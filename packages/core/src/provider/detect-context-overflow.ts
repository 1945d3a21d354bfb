import { ContextOverflowError } from '../errors/index.js';

/** A provider's "too long" rejection, as ctxmem understood it. */
export interface ContextOverflow {
  /** The provider's count of the request's input, when its error said. */
  providerTokens?: number;
  /** The provider's limit (its context window, or its input limit), when its error said. */
  limitTokens?: number;
  /** The output the request asked for, when the provider's error said. */
  outputTokens?: number;
  /** The provider's own words, shortened. */
  message: string;
}

/** Error objects looked at at most: the error, its causes, a retry's errors, a body. */
const MAX_NODES = 24;
/** Characters of one text searched: a response body can be large, its message is at the start. */
const MAX_TEXT = 8_192;
/** Characters of the provider's message kept in `ContextOverflow.message`. */
const MAX_MESSAGE = 300;

/** Codes providers and frameworks give the rejection (OpenAI, Groq, OpenRouter; LangChain). */
const OVERFLOW_CODES: ReadonlySet<string> = new Set([
  'context_length_exceeded',
  'CONTEXT_OVERFLOW',
]);

/** What LangChain brands its `ContextOverflowError` with (`@langchain/core/errors`). */
const LANGCHAIN_OVERFLOW = Symbol.for('langchain.error.context-overflow');

/** Codes of failures that are never an overflow, whatever their text says (rate limits). */
const NOT_OVERFLOW_CODES: ReadonlySet<string> = new Set([
  'rate_limit_exceeded',
  'rate_limit_error',
  'RESOURCE_EXHAUSTED',
  'ThrottlingException',
  'MODEL_RATE_LIMIT',
]);

/**
 * The words of a "too long" rejection, provider by provider (the tests cite each body):
 * Anthropic's `prompt is too long: N tokens > M maximum` and `input length and max_tokens exceed
 * context limit`, OpenAI's and OpenAI-compatible servers' (vLLM, Groq, OpenRouter) `maximum
 * context length is N tokens` and the Responses API's `Your input exceeds the context window`,
 * Gemini's `The input token count (N) exceeds the maximum number of tokens allowed (M)`, and
 * Bedrock's `Input is too long for requested model`.
 */
const OVERFLOW_TEXT = new RegExp(
  [
    'prompt is too long',
    'input length and `?max_tokens`? exceed context limit',
    'exceeds? the context window',
    'maximum context length',
    'context[_ ]length[_ ]exceeded',
    'input token count \\(?\\d*\\)? ?exceeds the maximum number of tokens',
    'input is too long',
    'reduce the length of the messages',
  ].join('|'),
  'i',
);

type Numbers = Omit<ContextOverflow, 'message'>;

/** Patterns that carry the provider's numbers, tried in order; the first match wins per field. */
const NUMBER_PATTERNS: ReadonlyArray<{ pattern: RegExp; read: (match: number[]) => Numbers }> = [
  {
    // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum".
    pattern: /prompt is too long:\s*(\d+)\s*tokens?\s*>\s*(\d+)/i,
    read: ([input, limit]) => ({ providerTokens: input!, limitTokens: limit! }),
  },
  {
    // Anthropic: "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648".
    pattern: /exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)/i,
    read: ([input, output, limit]) => ({
      providerTokens: input!,
      outputTokens: output!,
      limitTokens: limit!,
    }),
  },
  {
    // Gemini: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)".
    pattern: /input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/i,
    read: ([input, limit]) => ({ providerTokens: input!, limitTokens: limit! }),
  },
  {
    // OpenAI (older) and vLLM 0.10: "you requested 4120 tokens (3120 in the messages, 1000 in the completion)".
    pattern:
      /requested \d+ tokens \((\d+) in (?:the messages|your prompt)[,;] (\d+) (?:in|for) the completion\)/i,
    read: ([input, output]) => ({ providerTokens: input!, outputTokens: output! }),
  },
  {
    // vLLM 0.19: "you requested 800 output tokens and your prompt contains 31000 input tokens".
    pattern: /requested (\d+) output tokens and your prompt contains (\d+) input tokens/i,
    read: ([output, input]) => ({ providerTokens: input!, outputTokens: output! }),
  },
  {
    // OpenAI: "However, your messages resulted in 8227 tokens"; vLLM: "your request has 40000 input tokens".
    pattern: /(?:messages resulted in|request has) (\d+)(?: input)? tokens/i,
    read: ([input]) => ({ providerTokens: input! }),
  },
  {
    // OpenRouter: "you requested about 42832 tokens (42832 of text input)".
    pattern: /\((\d+) of text input/i,
    read: ([input]) => ({ providerTokens: input! }),
  },
  {
    // vLLM: "'max_tokens' or 'max_completion_tokens' is too large: 8000".
    pattern: /max_(?:completion_)?tokens'? is too large:\s*(\d+)/i,
    read: ([output]) => ({ outputTokens: output! }),
  },
  {
    // OpenAI, vLLM, OpenRouter: "maximum context length is 32768 tokens".
    pattern: /maximum context length is (\d+)/i,
    read: ([limit]) => ({ limitTokens: limit! }),
  },
];

interface Gathered {
  /** Every text searched: messages and raw bodies. */
  texts: string[];
  /** The `message` fields alone: the provider's words without a body's JSON around them. */
  messages: string[];
  overflow: boolean;
  known?: ContextOverflow;
}

function record(value: unknown): Record<PropertyKey, unknown> | undefined {
  return typeof value === 'object' && value !== null
    ? (value as Record<PropertyKey, unknown>)
    : undefined;
}

function statusOf(node: Record<PropertyKey, unknown>): number | undefined {
  for (const value of [
    node.status,
    node.statusCode,
    record(node.$metadata)?.httpStatusCode,
    node.code,
  ]) {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
  }
  return undefined;
}

function codesOf(node: Record<PropertyKey, unknown>): string[] {
  const codes: string[] = [];
  for (const value of [node.code, node.lc_error_code, node.type, node.status, node.name]) {
    if (typeof value === 'string') codes.push(value);
  }
  return codes;
}

/**
 * Walks an error and what it wraps (causes, a `RetryError`'s attempts, an SDK error's parsed body,
 * an AI SDK `APICallError`'s `data` and `responseBody`), collecting texts and codes. A rate limit
 * or a server error is a branch of its own that is not searched: its words ("too many tokens per
 * minute") are never an overflow.
 */
function gather(error: unknown): Gathered {
  const gathered: Gathered = { texts: [], messages: [], overflow: false };
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < MAX_NODES) {
    const value = queue.shift();
    if (typeof value === 'string') {
      gathered.texts.push(value.slice(0, MAX_TEXT));
      continue;
    }
    const node = record(value);
    if (!node || seen.has(node)) continue;
    seen.add(node);
    if (ContextOverflowError.isInstance(node)) {
      gathered.known ??= {
        message: node.message.slice(0, MAX_MESSAGE),
        ...numbersOf(node),
      };
      continue;
    }
    const status = statusOf(node);
    const codes = codesOf(node);
    if (
      (status !== undefined && (status === 429 || status >= 500)) ||
      codes.some((code) => NOT_OVERFLOW_CODES.has(code))
    ) {
      continue;
    }
    if (
      codes.some((code) => OVERFLOW_CODES.has(code)) ||
      (LANGCHAIN_OVERFLOW in node && node[LANGCHAIN_OVERFLOW] === true)
    ) {
      gathered.overflow = true;
    }
    if (typeof node.message === 'string') {
      gathered.texts.push(node.message.slice(0, MAX_TEXT));
      gathered.messages.push(node.message.slice(0, MAX_TEXT));
    }
    if (typeof node.responseBody === 'string') {
      gathered.texts.push(node.responseBody.slice(0, MAX_TEXT));
    }
    // A RetryError's last attempt, then the others; an SDK error's body (`error`, `data`,
    // `errorDetails`); and the cause.
    if (node.lastError !== undefined) queue.push(node.lastError);
    if (Array.isArray(node.errors)) queue.push(...[...node.errors].reverse());
    for (const key of ['error', 'data', 'errorDetails', 'cause'] as const) {
      const next = node[key];
      if (Array.isArray(next)) queue.push(...next);
      else if (next !== undefined && next !== null) queue.push(next);
    }
  }
  return gathered;
}

function numbersOf(overflow: Numbers): Numbers {
  const numbers: Numbers = {};
  if (overflow.providerTokens !== undefined) numbers.providerTokens = overflow.providerTokens;
  if (overflow.limitTokens !== undefined) numbers.limitTokens = overflow.limitTokens;
  if (overflow.outputTokens !== undefined) numbers.outputTokens = overflow.outputTokens;
  return numbers;
}

function parseNumbers(texts: readonly string[]): Numbers {
  const numbers: Numbers = {};
  for (const { pattern, read } of NUMBER_PATTERNS) {
    for (const text of texts) {
      const match = pattern.exec(text);
      if (!match) continue;
      const parsed = read(match.slice(1).map(Number));
      for (const [field, value] of Object.entries(parsed) as Array<[keyof Numbers, number]>) {
        if (numbers[field] === undefined && Number.isSafeInteger(value) && value > 0) {
          numbers[field] = value;
        }
      }
      break;
    }
  }
  return numbers;
}

/**
 * Whether `error` is a provider's rejection of a request as too long for the model's window, and
 * what the provider said about it. Recognizes each shape it arrives in: the AI SDK's
 * `APICallError` (its message, `responseBody` and `data`), also inside a `RetryError`; LangChain's
 * `ContextOverflowError` (`lc_error_code` `CONTEXT_OVERFLOW`) and the provider SDK errors it wraps
 * (`@anthropic-ai/sdk`'s `BadRequestError` with its `error` body, `openai`'s with its `code`);
 * Bedrock's `ValidationException`; ctxmem's own `ContextOverflowError`; and the words of
 * Anthropic, OpenAI, Groq, OpenRouter, vLLM, Gemini and Bedrock in any error's message. The
 * provider's counts (its count of the input, its limit, the output asked for) are read from its
 * words when they carry them. Rate limits and server errors are never an overflow. Returns
 * undefined for any other error.
 */
export function detectContextOverflow(error: unknown): ContextOverflow | undefined {
  const gathered = gather(error);
  if (gathered.known) return gathered.known;
  const overflow = gathered.overflow || gathered.texts.some((text) => OVERFLOW_TEXT.test(text));
  if (!overflow) return undefined;
  const message =
    gathered.messages.find((text) => OVERFLOW_TEXT.test(text)) ??
    gathered.texts.find((text) => OVERFLOW_TEXT.test(text)) ??
    gathered.messages.at(-1) ??
    gathered.texts[0] ??
    'context overflow';
  return { ...parseNumbers(gathered.texts), message: message.slice(0, MAX_MESSAGE) };
}
