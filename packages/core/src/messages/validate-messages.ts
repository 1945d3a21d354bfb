import type { Message } from '../contracts/index.js';
import { describeValue } from './json-values.js';
import { checkMessage, fail, requireEntry, type ValidationContext } from './message-shape.js';
import { pairToolCalls } from './tool-call-pairing.js';

export { MISSING_TOOL_RESULT_TEXT } from './tool-call-pairing.js';

export interface ValidateMessagesOptions {
  /**
   * Fix what can be fixed without guessing, instead of throwing (see `MessageRepair` for the
   * list): lone surrogates, tool calls without results, tool results without calls, and
   * duplicate tool-call ids. Shape errors (unknown roles, missing ids, wrong types, NaN) still
   * throw, because no repair would be honest.
   * @default false
   */
  repair?: boolean;
  /**
   * Check that every tool call is answered by a result in the tool messages right after its
   * assistant message, that every result answers such a call, and that tool-call ids are unique.
   * Turn off for histories that are still in flight (calls waiting for their results).
   * @default true
   */
  checkToolPairing?: boolean;
}

/**
 * One change that `repairMessages` made. `path` points into the INPUT (`messages[3].content[1]`),
 * so it can be shown next to the original data.
 */
export type MessageRepair =
  | {
      /** Lone surrogates (invalid UTF-16) in a string or key were replaced with U+FFFD. */
      kind: 'lone-surrogate';
      path: string;
    }
  | {
      /**
       * A tool call had no result; a tool message with an `error-text` result
       * (`MISSING_TOOL_RESULT_TEXT`) was inserted after the call's tool messages, so providers
       * accept the prompt and the model learns the call produced nothing.
       */
      kind: 'missing-tool-result';
      path: string;
      toolCallId: string;
      toolName: string;
    }
  | {
      /**
       * A tool result answered no call of the assistant message before it. It was removed and its
       * content kept in a user message placed after the tool messages, headed by the tool name
       * and call id. This is the least lossy honest repair: dropping loses the data, and
       * inventing the missing call would put words in the model's mouth.
       */
      kind: 'orphan-tool-result';
      path: string;
      toolCallId: string;
    }
  | {
      /**
       * A tool result arrived late: after another assistant or user message instead of right
       * after its call's assistant message (a tool that answered while the conversation went on).
       * It was moved to the tool messages right after its call, where providers require it; the
       * result's content is unchanged. `path` is where the result was.
       */
      kind: 'late-tool-result';
      path: string;
      toolCallId: string;
    }
  | {
      /**
       * A tool-call id was used before. The later call was renamed to `replacementId`, and so
       * were the results in the tool messages right after it.
       */
      kind: 'duplicate-tool-call-id';
      path: string;
      toolCallId: string;
      replacementId: string;
    };

export interface RepairMessagesResult {
  messages: Message[];
  repairs: MessageRepair[];
}

/**
 * Checks that `input` is a valid ctxmem `Message[]` and returns it typed. Valid messages are
 * returned as the same objects (caches key on identity); repaired ones are new objects.
 *
 * Throws `InvalidMessageError` whose `path` names the exact place, for example
 * `messages[3].content[1].toolCallId`: unknown roles, null or non-string content where a string is
 * needed, unknown or malformed parts, missing or empty ids, holes in the array, non-JSON values
 * anywhere in a message, including fields ctxmem does not know (NaN, Infinity, BigInt, functions,
 * class instances, cycles, getters that throw, nesting deeper than `MAX_MESSAGE_JSON_DEPTH`; only
 * the data of image and file parts may be bytes or a URL), lone surrogates, and (with
 * `checkToolPairing`) unanswered calls, late and orphan results and duplicate call ids. With `repair`, the
 * repairable problems are fixed instead; use `repairMessages` to also learn what changed.
 *
 * Never recurses on the depth of user data, so deep or huge input gives an error, not a crash.
 */
export function validateMessages(input: unknown, options: ValidateMessagesOptions = {}): Message[] {
  const { repair = false, checkToolPairing = true } = options;
  return runValidation(input, { repair, checkToolPairing, checkText: true }).messages;
}

/**
 * `validateMessages` with `repair: true` that also reports every repair it made. Problems that
 * cannot be repaired still throw `InvalidMessageError`.
 */
export function repairMessages(
  input: unknown,
  options: Omit<ValidateMessagesOptions, 'repair'> = {},
): RepairMessagesResult {
  const { checkToolPairing = true } = options;
  return runValidation(input, { repair: true, checkToolPairing, checkText: true });
}

/**
 * Shape check only (no text or pairing checks), for converters that must accept histories in
 * any state. Returns the same objects it was given.
 */
export function checkMessageShapes(input: unknown): Message[] {
  return runValidation(input, { repair: false, checkToolPairing: false, checkText: false })
    .messages;
}

export interface ToolPairingProblem {
  kind: 'call-without-result' | 'result-without-call' | 'late-result' | 'duplicate-call-id';
  toolCallId: string;
  /** Index of the message where the problem shows (for a late result: where the result is). */
  index: number;
}

const problemKinds = {
  'missing-tool-result': 'call-without-result',
  'orphan-tool-result': 'result-without-call',
  'late-tool-result': 'late-result',
  'duplicate-tool-call-id': 'duplicate-call-id',
} as const satisfies Partial<Record<MessageRepair['kind'], ToolPairingProblem['kind']>>;

/**
 * The tool pairing problems of already-shaped messages, by the same rules `validateMessages`
 * enforces and `repairMessages` repairs: the results of an assistant message's calls are in the
 * tool messages right after it; a call without one (unless provider-executed or awaiting
 * approval), a result without a call, a late result and a repeated call id are problems.
 */
export function checkToolPairing(messages: readonly Message[]): ToolPairingProblem[] {
  const problems: ToolPairingProblem[] = [];
  for (const repair of repairToolPairing(messages).repairs) {
    if (repair.kind === 'lone-surrogate') continue;
    problems.push({
      kind: problemKinds[repair.kind],
      toolCallId: repair.toolCallId,
      index: Number(/^messages\[(\d+)\]/.exec(repair.path)?.[1] ?? -1),
    });
  }
  return problems;
}

/**
 * The pairing repairs of `repairMessages` alone, for messages whose shape is already checked
 * (the context manager checks each message's shape once). Linear in the number of parts; the
 * messages are the input array itself when nothing needed a repair.
 */
export function repairToolPairing(messages: readonly Message[]): RepairMessagesResult {
  const repairs: MessageRepair[] = [];
  const context: ValidationContext = {
    repair: true,
    checkText: false,
    repairs,
    onRepair: () => {},
  };
  return { messages: pairToolCalls(messages as Message[], context), repairs };
}

/**
 * Checks the shape of one message (what `checkMessageShapes` checks), with paths as if it sat at
 * `index`: throws `InvalidMessageError` for a malformed message. Returns whether its text needs
 * the lone-surrogate repair of `repairMessages`.
 */
export function checkMessageShape(message: unknown, index: number): boolean {
  const repairs: MessageRepair[] = [];
  checkMessage(message, index, {
    repair: true,
    checkText: true,
    repairs,
    onRepair: (path) => repairs.push({ kind: 'lone-surrogate', path }),
  });
  return repairs.length > 0;
}

function runValidation(
  input: unknown,
  settings: { repair: boolean; checkToolPairing: boolean; checkText: boolean },
): RepairMessagesResult {
  if (!Array.isArray(input)) {
    fail('messages', `expected an array of messages, got ${describeValue(input)}`);
  }
  const repairs: MessageRepair[] = [];
  const context: ValidationContext = {
    repair: settings.repair,
    checkText: settings.checkText,
    repairs,
    onRepair: (path) => repairs.push({ kind: 'lone-surrogate', path }),
  };
  // A loop, not `map`: `map` skips the holes of a sparse array and would keep them.
  const messages: Message[] = new Array(input.length);
  for (let index = 0; index < input.length; index++) {
    requireEntry(input, index, `messages[${index}]`);
    messages[index] = checkMessage(input[index], index, context);
  }
  const paired = settings.checkToolPairing ? pairToolCalls(messages, context) : messages;
  return { messages: paired, repairs };
}
