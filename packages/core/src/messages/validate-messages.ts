import type {
  AssistantContentPart,
  AssistantMessage,
  CtxmemMessageKind,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolContentPart,
  ToolMessage,
  ToolResultPart,
  UserContentPart,
  UserMessage,
} from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import {
  describeValue,
  type InspectContext,
  inspectJsonValue,
  isBinaryOrUrl,
  isPlainObject,
  isWellFormedText,
  joinPath,
  toWellFormedText,
} from './json-values.js';
import { toolOutputText } from './message-utils.js';

/** Text of the synthetic result that `repair` gives a tool call whose result is missing. */
export const MISSING_TOOL_RESULT_TEXT = 'No result was recorded for this tool call.';

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
 * needed, unknown or malformed parts, missing or empty ids, non-JSON values (NaN, Infinity,
 * functions, cycles, nesting deeper than `MAX_MESSAGE_JSON_DEPTH`), lone surrogates, and (with
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
 * (the context manager checks each message's shape once). Linear in the number of parts.
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

interface ValidationContext extends InspectContext {
  repairs: MessageRepair[];
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
  const messages = input.map((message, index) => checkMessage(message, index, context));
  const paired = settings.checkToolPairing ? pairToolCalls(messages, context) : messages;
  return { messages: paired, repairs };
}

function fail(path: string, problem: string): never {
  throw new InvalidMessageError({ message: `${path}: ${problem}`, path });
}

/** Copy-on-write editing of one object: unchanged input comes back as the same object. */
function editable<T extends object>(source: T) {
  let copy: Record<string, unknown> | undefined;
  return {
    set(key: string, value: unknown): void {
      if ((copy ?? (source as Record<string, unknown>))[key] === value) return;
      copy ??= { ...(source as Record<string, unknown>) };
      copy[key] = value;
    },
    result: (): T => (copy ?? source) as T,
  };
}

function checkText(
  value: unknown,
  path: string,
  context: ValidationContext,
  { nonEmpty = false }: { nonEmpty?: boolean } = {},
): string {
  if (typeof value !== 'string') fail(path, `expected a string, got ${describeValue(value)}`);
  if (nonEmpty && value.length === 0) fail(path, 'must not be empty');
  if (!context.checkText || isWellFormedText(value)) return value;
  if (!context.repair) fail(path, 'string contains a lone surrogate (invalid UTF-16)');
  context.repairs.push({ kind: 'lone-surrogate', path });
  return toWellFormedText(value);
}

function checkProviderOptions(value: unknown, path: string, context: ValidationContext): unknown {
  if (!isPlainObject(value)) fail(path, `expected an object, got ${describeValue(value)}`);
  for (const [provider, options] of Object.entries(value)) {
    if (options !== undefined && !isPlainObject(options)) {
      fail(joinPath(path, provider), `expected an object, got ${describeValue(options)}`);
    }
  }
  return inspectJsonValue(value, path, context);
}

function checkDataContent(value: unknown, path: string, context: ValidationContext): unknown {
  if (typeof value === 'string') return checkText(value, path, context);
  if (isBinaryOrUrl(value)) return value;
  fail(path, `expected a base64 or URL string, bytes or a URL, got ${describeValue(value)}`);
}

const roles = new Set(['system', 'user', 'assistant', 'tool']);
const ctxmemKinds = new Set<CtxmemMessageKind>([
  'summary',
  'memory-injection',
  'tool-run-record',
  'offload-preview',
  'compressed-result',
  'bootstrap',
]);
const partTypesByRole: Record<string, ReadonlySet<string>> = {
  user: new Set(['text', 'image', 'file']),
  assistant: new Set([
    'text',
    'file',
    'reasoning',
    'tool-call',
    'tool-result',
    'tool-approval-request',
  ]),
  tool: new Set(['tool-result', 'tool-approval-response']),
};
const knownPartTypes = new Set(Object.values(partTypesByRole).flatMap((types) => [...types]));

function checkMessage(value: unknown, index: number, context: ValidationContext): Message {
  const path = `messages[${index}]`;
  if (!isPlainObject(value)) fail(path, `expected a message object, got ${describeValue(value)}`);
  const role = value.role;
  if (typeof role !== 'string' || !roles.has(role)) {
    fail(
      `${path}.role`,
      typeof role === 'string'
        ? `unknown role ${JSON.stringify(role)} (expected system, user, assistant or tool)`
        : `expected a role string, got ${describeValue(role)}`,
    );
  }
  const message = editable(value);
  if (value.id !== undefined) {
    message.set('id', checkText(value.id, `${path}.id`, context, { nonEmpty: true }));
  }
  if (value.name !== undefined) message.set('name', checkText(value.name, `${path}.name`, context));
  if (value.providerOptions !== undefined) {
    message.set(
      'providerOptions',
      checkProviderOptions(value.providerOptions, `${path}.providerOptions`, context),
    );
  }
  if (value.ctxmem !== undefined) checkCtxmem(value.ctxmem, `${path}.ctxmem`);

  const contentPath = `${path}.content`;
  const content = value.content;
  if (role === 'system') {
    if (typeof content !== 'string') {
      fail(contentPath, `a system message needs string content, got ${describeValue(content)}`);
    }
    message.set('content', checkText(content, contentPath, context));
  } else if (role === 'tool') {
    if (!Array.isArray(content)) {
      fail(contentPath, `a tool message needs an array of parts, got ${describeValue(content)}`);
    }
    message.set('content', checkParts(content, role, contentPath, context));
  } else if (typeof content === 'string') {
    message.set('content', checkText(content, contentPath, context));
  } else if (Array.isArray(content)) {
    message.set('content', checkParts(content, role, contentPath, context));
  } else {
    fail(
      contentPath,
      `a ${role} message needs a string or an array of parts, got ${describeValue(content)}`,
    );
  }
  return message.result() as unknown as Message;
}

function checkCtxmem(value: unknown, path: string): void {
  if (!isPlainObject(value)) fail(path, `expected an object, got ${describeValue(value)}`);
  if (typeof value.kind !== 'string' || !ctxmemKinds.has(value.kind as CtxmemMessageKind)) {
    fail(`${path}.kind`, `unknown ctxmem message kind ${describeValue(value.kind)}`);
  }
  for (const key of ['offloadIds', 'replaces'] as const) {
    const list = value[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(`${path}.${key}`, `expected an array of strings`);
    list.forEach((item, index) => {
      if (typeof item !== 'string') {
        fail(`${path}.${key}[${index}]`, `expected a string, got ${describeValue(item)}`);
      }
    });
  }
}

function checkParts(
  parts: unknown[],
  role: string,
  path: string,
  context: ValidationContext,
): unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index];
    const checked = checkPart(part, role, `${path}[${index}]`, context);
    if (checked !== part) {
      copy ??= parts.slice();
      copy[index] = checked;
    }
  }
  return copy ?? parts;
}

function checkPart(
  value: unknown,
  role: string,
  path: string,
  context: ValidationContext,
): unknown {
  if (!isPlainObject(value))
    fail(path, `expected a content part object, got ${describeValue(value)}`);
  const type = value.type;
  if (typeof type !== 'string')
    fail(`${path}.type`, `expected a part type, got ${describeValue(type)}`);
  if (!partTypesByRole[role]!.has(type)) {
    fail(
      path,
      knownPartTypes.has(type)
        ? `a ${role} message cannot hold a '${type}' part`
        : `unknown part type ${JSON.stringify(type)}`,
    );
  }
  const part = editable(value);
  const field = (key: string) => `${path}.${key}`;
  if (value.providerOptions !== undefined) {
    part.set(
      'providerOptions',
      checkProviderOptions(value.providerOptions, field('providerOptions'), context),
    );
  }
  switch (type) {
    case 'text':
    case 'reasoning':
      part.set('text', checkText(value.text, field('text'), context));
      break;
    case 'image':
      part.set('image', checkDataContent(value.image, field('image'), context));
      if (value.mediaType !== undefined) {
        part.set('mediaType', checkText(value.mediaType, field('mediaType'), context));
      }
      break;
    case 'file':
      part.set('data', checkDataContent(value.data, field('data'), context));
      part.set('mediaType', checkText(value.mediaType, field('mediaType'), context));
      if (value.filename !== undefined) {
        part.set('filename', checkText(value.filename, field('filename'), context));
      }
      break;
    case 'tool-call':
      part.set(
        'toolCallId',
        checkText(value.toolCallId, field('toolCallId'), context, { nonEmpty: true }),
      );
      part.set(
        'toolName',
        checkText(value.toolName, field('toolName'), context, { nonEmpty: true }),
      );
      if (value.input === undefined) fail(field('input'), 'a tool call needs an input');
      part.set('input', inspectJsonValue(value.input, field('input'), context));
      if (value.providerExecuted !== undefined && typeof value.providerExecuted !== 'boolean') {
        fail(
          field('providerExecuted'),
          `expected a boolean, got ${describeValue(value.providerExecuted)}`,
        );
      }
      break;
    case 'tool-result':
      part.set(
        'toolCallId',
        checkText(value.toolCallId, field('toolCallId'), context, { nonEmpty: true }),
      );
      part.set('toolName', checkText(value.toolName, field('toolName'), context));
      part.set('output', checkOutput(value.output, field('output'), context));
      break;
    case 'tool-approval-request':
      part.set(
        'approvalId',
        checkText(value.approvalId, field('approvalId'), context, { nonEmpty: true }),
      );
      part.set(
        'toolCallId',
        checkText(value.toolCallId, field('toolCallId'), context, { nonEmpty: true }),
      );
      break;
    case 'tool-approval-response':
      part.set(
        'approvalId',
        checkText(value.approvalId, field('approvalId'), context, { nonEmpty: true }),
      );
      if (typeof value.approved !== 'boolean') {
        fail(field('approved'), `expected a boolean, got ${describeValue(value.approved)}`);
      }
      if (value.reason !== undefined) {
        part.set('reason', checkText(value.reason, field('reason'), context));
      }
      break;
  }
  return part.result();
}

function checkOutput(value: unknown, path: string, context: ValidationContext): unknown {
  if (!isPlainObject(value))
    fail(path, `expected a tool result output, got ${describeValue(value)}`);
  const output = editable(value);
  const field = (key: string) => `${path}.${key}`;
  if (value.providerOptions !== undefined) {
    output.set(
      'providerOptions',
      checkProviderOptions(value.providerOptions, field('providerOptions'), context),
    );
  }
  switch (value.type) {
    case 'text':
    case 'error-text':
      output.set('value', checkText(value.value, field('value'), context));
      break;
    case 'json':
    case 'error-json':
      if (value.value === undefined) fail(field('value'), 'a JSON output needs a value');
      output.set('value', inspectJsonValue(value.value, field('value'), context));
      break;
    case 'execution-denied':
      if (value.reason !== undefined) {
        output.set('reason', checkText(value.reason, field('reason'), context));
      }
      break;
    case 'content': {
      const items = value.value;
      if (!Array.isArray(items)) {
        fail(field('value'), `expected an array of content items, got ${describeValue(items)}`);
      }
      items.forEach((item, index) => {
        const itemPath = `${path}.value[${index}]`;
        if (!isPlainObject(item) || typeof item.type !== 'string') {
          fail(itemPath, `expected a content item with a type, got ${describeValue(item)}`);
        }
        if (item.type === 'text' && typeof item.text !== 'string') {
          fail(`${itemPath}.text`, `expected a string, got ${describeValue(item.text)}`);
        }
        if (item.type === 'media') {
          for (const key of ['data', 'mediaType']) {
            if (typeof item[key] !== 'string') {
              fail(`${itemPath}.${key}`, `expected a string, got ${describeValue(item[key])}`);
            }
          }
        }
      });
      // Item shapes beyond text and media vary between AI SDK versions; they only need to be JSON.
      output.set('value', inspectJsonValue(items, field('value'), context));
      break;
    }
    default:
      fail(
        field('type'),
        `unknown tool output type ${typeof value.type === 'string' ? JSON.stringify(value.type) : describeValue(value.type)}`,
      );
  }
  return output.result();
}

// ---------------------------------------------------------------------------------------------
// Tool pairing

interface PendingCall {
  finalId: string;
  toolName: string;
  path: string;
  answered: boolean;
  /** Provider-executed calls and calls awaiting approval may legitimately have no result yet. */
  exempt: boolean;
}

/**
 * Pairs calls and results the way providers require: the results of an assistant message's calls
 * are in the tool messages right after it. Walks once, one step (an assistant message and the tool
 * messages after it) at a time.
 */
function pairToolCalls(messages: Message[], context: ValidationContext): Message[] {
  const pairing = new ToolCallPairing(messages, context);
  const output: Message[] = [];
  let index = 0;
  while (index < messages.length) {
    const first = messages[index]!;
    if (first.role !== 'assistant' && first.role !== 'tool') {
      output.push(first);
      index++;
      continue;
    }
    pairing.startStep();
    if (first.role === 'assistant') {
      output.push(pairing.assistant(first, index));
      index++;
    }
    while (index < messages.length && messages[index]!.role === 'tool') {
      const message = pairing.tool(messages[index] as ToolMessage, index);
      if (message !== undefined) output.push(message);
      index++;
    }
    output.push(...pairing.finishStep(index));
  }
  return output;
}

interface IdIndex {
  used: Set<string>;
  resultPlaces: Map<string, Array<{ message: number; part: number }>>;
}

class ToolCallPairing {
  private readonly seenCallIds = new Set<string>();
  private readonly providerExecutedIds = new Set<string>();
  /** Calls of the current step by their original id (one id may be used twice). */
  private pending = new Map<string, PendingCall[]>();
  private orphans: ToolResultPart[] = [];
  /** Late results already moved up to their call (`message:part`), skipped where they were. */
  private readonly moved = new Set<string>();
  /** Built on the first problem that needs it: a well-paired history (the usual case) never does. */
  private ids: IdIndex | undefined;

  constructor(
    private readonly messages: readonly Message[],
    private readonly context: ValidationContext,
  ) {}

  /**
   * Every id in the input (so that replacement ids never collide with one), and where each id's
   * results sit in tool messages of a step without a call of that id (candidates for a late
   * result), in order.
   */
  private idIndex(): IdIndex {
    if (this.ids) return this.ids;
    const ids: IdIndex = { used: new Set(), resultPlaces: new Map() };
    // The call ids of the assistant message that opens the current step: a result answering a
    // call of its own step is never someone else's late result (ids can repeat across steps).
    let stepCallIds = new Set<string>();
    this.messages.forEach((message, messageIndex) => {
      if (message.role !== 'tool' && stepCallIds.size > 0) stepCallIds = new Set();
      if (message.role === 'system' || typeof message.content === 'string') return;
      message.content.forEach((part, partIndex) => {
        if (!('toolCallId' in part)) return;
        ids.used.add(part.toolCallId);
        if (part.type === 'tool-call') stepCallIds.add(part.toolCallId);
        if (message.role !== 'tool' || part.type !== 'tool-result') return;
        if (stepCallIds.has(part.toolCallId)) return;
        const places = ids.resultPlaces.get(part.toolCallId) ?? [];
        places.push({ message: messageIndex, part: partIndex });
        ids.resultPlaces.set(part.toolCallId, places);
      });
    });
    this.ids = ids;
    return ids;
  }

  startStep(): void {
    this.pending = new Map();
    this.orphans = [];
  }

  assistant(message: AssistantMessage, messageIndex: number): AssistantMessage {
    if (typeof message.content === 'string') return message;
    const approvalCallIds = new Set<string>();
    for (const part of message.content) {
      if (part.type === 'tool-approval-request') approvalCallIds.add(part.toolCallId);
    }
    const parts: AssistantContentPart[] = [];
    let changed = false;
    message.content.forEach((part, partIndex) => {
      const path = `messages[${messageIndex}].content[${partIndex}]`;
      let next: AssistantContentPart | undefined = part;
      if (part.type === 'tool-call') {
        const finalId = this.callId(part.toolCallId, `${path}.toolCallId`);
        if (part.providerExecuted === true) this.providerExecutedIds.add(finalId);
        const calls = this.pending.get(part.toolCallId) ?? [];
        calls.push({
          finalId,
          toolName: part.toolName,
          path,
          answered: false,
          exempt: part.providerExecuted === true || approvalCallIds.has(part.toolCallId),
        });
        this.pending.set(part.toolCallId, calls);
        if (finalId !== part.toolCallId) next = { ...part, toolCallId: finalId };
      } else if (part.type === 'tool-result') {
        // Provider-executed results live in the assistant message, after their call.
        if (!this.providerExecutedIds.has(part.toolCallId) || this.pending.has(part.toolCallId)) {
          next = this.answer(part, path);
        }
      } else if (part.type === 'tool-approval-request') {
        const call = this.pending.get(part.toolCallId)?.[0];
        if (call !== undefined && call.finalId !== part.toolCallId) {
          next = { ...part, toolCallId: call.finalId };
        }
      }
      if (next !== undefined) parts.push(next);
      changed ||= next !== part;
    });
    return changed ? { ...message, content: parts } : message;
  }

  /** The tool message with its results renamed or removed as needed; `undefined` when emptied. */
  tool(message: ToolMessage, messageIndex: number): ToolMessage | undefined {
    const parts: ToolContentPart[] = [];
    let changed = false;
    message.content.forEach((part, partIndex) => {
      const next = this.moved.has(`${messageIndex}:${partIndex}`)
        ? undefined
        : part.type === 'tool-result'
          ? this.answer(part, `messages[${messageIndex}].content[${partIndex}]`)
          : part;
      if (next !== undefined) parts.push(next);
      changed ||= next !== part;
    });
    if (!changed) return message;
    // A tool message left empty by the repair would be rejected by providers.
    return parts.length > 0 ? { ...message, content: parts } : undefined;
  }

  /**
   * The messages to insert after the step (which ends before message `stepEnd`): late results
   * moved up and synthetic results for calls that have none, then kept orphan results.
   */
  finishStep(stepEnd: number): Message[] {
    const missing: ToolResultPart[] = [];
    for (const [originalId, calls] of this.pending) {
      for (const call of calls) {
        if (call.answered || call.exempt) continue;
        const late = this.lateResult(originalId, stepEnd);
        if (late !== undefined) {
          const [result, path] = late;
          if (!this.context.repair) {
            fail(
              call.path,
              `tool call ${JSON.stringify(call.finalId)} is answered only at ${path}, after other messages; a result must follow its call's assistant message`,
            );
          }
          this.context.repairs.push({ kind: 'late-tool-result', path, toolCallId: originalId });
          call.answered = true;
          missing.push(
            call.finalId === result.toolCallId ? result : { ...result, toolCallId: call.finalId },
          );
          continue;
        }
        if (!this.context.repair) {
          fail(call.path, `tool call ${JSON.stringify(call.finalId)} has no result`);
        }
        this.context.repairs.push({
          kind: 'missing-tool-result',
          path: call.path,
          toolCallId: call.finalId,
          toolName: call.toolName,
        });
        missing.push({
          type: 'tool-result',
          toolCallId: call.finalId,
          toolName: call.toolName,
          output: { type: 'error-text', value: MISSING_TOOL_RESULT_TEXT },
        });
      }
    }
    const inserted: Message[] = [];
    if (missing.length > 0) inserted.push({ role: 'tool', content: missing });
    if (this.orphans.length > 0) inserted.push(orphanResultsMessage(this.orphans));
    return inserted;
  }

  /** The first result for `toolCallId` in a tool message at or after `from`, marked as moved. */
  private lateResult(toolCallId: string, from: number): [ToolResultPart, string] | undefined {
    const place = this.idIndex()
      .resultPlaces.get(toolCallId)
      ?.find(
        (candidate) =>
          candidate.message >= from && !this.moved.has(`${candidate.message}:${candidate.part}`),
      );
    if (place === undefined) return undefined;
    this.moved.add(`${place.message}:${place.part}`);
    const message = this.messages[place.message] as ToolMessage;
    return [
      message.content[place.part] as ToolResultPart,
      `messages[${place.message}].content[${place.part}]`,
    ];
  }

  /** The id a call ends up with: its own, or a fresh one when the id was used before. */
  private callId(toolCallId: string, path: string): string {
    if (!this.seenCallIds.has(toolCallId)) {
      this.seenCallIds.add(toolCallId);
      return toolCallId;
    }
    if (!this.context.repair) {
      fail(path, `tool-call id ${JSON.stringify(toolCallId)} is used twice`);
    }
    let counter = 2;
    const used = this.idIndex().used;
    while (used.has(`${toolCallId}-${counter}`)) counter++;
    const replacementId = `${toolCallId}-${counter}`;
    used.add(replacementId);
    this.seenCallIds.add(replacementId);
    this.context.repairs.push({ kind: 'duplicate-tool-call-id', path, toolCallId, replacementId });
    return replacementId;
  }

  /** Matches a result to the first unanswered call of the step with its id; orphans go. */
  private answer(part: ToolResultPart, path: string): ToolResultPart | undefined {
    const call = this.pending.get(part.toolCallId)?.find((candidate) => !candidate.answered);
    if (call === undefined) {
      if (!this.context.repair) {
        fail(path, `tool result ${JSON.stringify(part.toolCallId)} answers no preceding tool call`);
      }
      this.context.repairs.push({ kind: 'orphan-tool-result', path, toolCallId: part.toolCallId });
      this.orphans.push(part);
      return undefined;
    }
    call.answered = true;
    return call.finalId === part.toolCallId ? part : { ...part, toolCallId: call.finalId };
  }
}

/** Keeps the content of orphan tool results as a user message (text, images and files). */
function orphanResultsMessage(results: readonly ToolResultPart[]): UserMessage {
  const content: UserContentPart[] = [];
  for (const result of results) {
    const heading = `Result of tool ${JSON.stringify(result.toolName || 'unknown')} (call id ${JSON.stringify(result.toolCallId)}) whose call is missing from the history:`;
    if (result.output.type !== 'content') {
      content.push({ type: 'text', text: `${heading}\n${toolOutputText(result.output)}` });
      continue;
    }
    const texts: string[] = [heading];
    const media: Array<ImagePart | FilePart> = [];
    for (const item of result.output.value) {
      const record = item as Record<string, unknown>;
      if (item.type === 'text' && typeof record.text === 'string') {
        texts.push(record.text);
        continue;
      }
      const data = record.data ?? record.url;
      const mediaType = typeof record.mediaType === 'string' ? record.mediaType : undefined;
      if (
        typeof data === 'string' &&
        (item.type.startsWith('image') || mediaType?.startsWith('image/'))
      ) {
        media.push({ type: 'image', image: data, ...(mediaType ? { mediaType } : {}) });
      } else if (typeof data === 'string' && mediaType) {
        media.push({
          type: 'file',
          data,
          mediaType,
          ...(typeof record.filename === 'string' ? { filename: record.filename } : {}),
        });
      } else {
        texts.push(`[${item.type}]`);
      }
    }
    content.push({ type: 'text', text: texts.join('\n') } satisfies TextPart, ...media);
  }
  return { role: 'user', content };
}
