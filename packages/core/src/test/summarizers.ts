import type {
  CompleteFn,
  CompleteRequest,
  CompleteResult,
  SummarizeRequest,
  SummarizeResult,
  Summarizer,
} from '../contracts/index.js';
import { SummarizerError } from '../errors/index.js';

/**
 * One answer of a scripted model: a string to return, an `Error` to throw, `'hang'` to never answer
 * (the promise rejects only when the request's `abortSignal` fires), or a function that computes
 * the answer from the request.
 */
export type ScriptedStep =
  | string
  | CompleteResult
  | Error
  | 'hang'
  | ((
      request: CompleteRequest,
      callIndex: number,
    ) => string | CompleteResult | Promise<string | CompleteResult>);

/** A `CompleteFn` that answers from a script and records what it was asked. */
export interface ScriptedComplete extends CompleteFn {
  /** Every request received, in order (including the ones that threw or hung). */
  readonly requests: CompleteRequest[];
}

export interface ScriptedCompleteOptions {
  /** Keep answering with the last step once the script is used up, instead of throwing. @default false */
  repeatLast?: boolean;
}

/**
 * A fake model call for tests: the n-th call plays the n-th step of `steps`. Running out of steps
 * throws (so a test notices an unexpected extra call) unless `repeatLast` is set.
 */
export function createScriptedComplete(
  steps: readonly ScriptedStep[],
  { repeatLast = false }: ScriptedCompleteOptions = {},
): ScriptedComplete {
  const requests: CompleteRequest[] = [];
  const complete = async (request: CompleteRequest): Promise<string | CompleteResult> => {
    const callIndex = requests.length;
    requests.push(request);
    const step = steps[callIndex] ?? (repeatLast ? steps[steps.length - 1] : undefined);
    if (step === undefined) {
      throw new Error(`createScriptedComplete: no step for call ${callIndex + 1}`);
    }
    if (step === 'hang') return hang(request.abortSignal);
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(request, callIndex);
    return step;
  };
  return Object.assign(complete, { requests });
}

function hang(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (!signal) return;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** A summarizer that always fails, for testing fallbacks. */
export interface FailingSummarizer extends Summarizer {
  /** The requests it was given. */
  readonly requests: SummarizeRequest[];
}

/**
 * A summarizer whose every call throws `error`; a string becomes a `SummarizerError` with that
 * message.
 */
export function createFailingSummarizer(
  error: unknown = 'scripted failure',
  { name = 'failing' }: { /** @default 'failing' */ name?: string } = {},
): FailingSummarizer {
  const requests: SummarizeRequest[] = [];
  return {
    name,
    requests,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      requests.push(request);
      throw typeof error === 'string'
        ? new SummarizerError({ message: error, summarizer: name })
        : error;
    },
  };
}

/**
 * A reply a summarizer model would give (`{ summary, memories }` JSON), for scripted model servers
 * and completes: `background` says which summary it is; `memories` become extracted facts.
 */
export function summaryReply(label: string, memories: readonly string[] = []): string {
  return JSON.stringify({
    summary: {
      goal: ['Run the project.'],
      background: [`Summary ${label}.`],
      keyFacts: [],
      constraints: [],
      decisions: [],
      todos: [],
      snippets: [],
    },
    memories: memories.map((content) => ({ content, type: 'fact', tags: [], source: 1 })),
  });
}
