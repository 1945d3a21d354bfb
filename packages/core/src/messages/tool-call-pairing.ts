/**
 * The tool-call pairing of `validateMessages` and `repairMessages`: each call with its result,
 * in order.
 */
import type {
  AssistantContentPart,
  AssistantMessage,
  Message,
  ToolContentPart,
  ToolMessage,
  ToolResultPart,
} from '../contracts/index.js';
import { fail, type ValidationContext } from './message-shape.js';
import { orphanResultsMessage, PairedOutput } from './paired-output.js';

/** Text of the synthetic result that `repair` gives a tool call whose result is missing. */
export const MISSING_TOOL_RESULT_TEXT = 'No result was recorded for this tool call.';

interface PendingCall {
  /** The id the call was sent with (`finalId` differs when it had to be replaced). */
  originalId: string;
  finalId: string;
  toolName: string;
  /** Where the call is, for repairs and errors (the path string is only built when one is needed). */
  messageIndex: number;
  partIndex: number;
  answered: boolean;
  /** Provider-executed calls and calls awaiting approval may legitimately have no result yet. */
  exempt: boolean;
  /** The step the call belongs to: `pending` keeps the calls of earlier steps until replaced. */
  step: number;
  /** The next call of the same step with the same original id. */
  next: PendingCall | undefined;
  /**
   * On the first call of an id only: the last call of the chain, and the first one not yet
   * answered (results answer calls in order), so that ids repeated thousands of times in one step
   * stay linear.
   */
  last: PendingCall | undefined;
  unanswered: PendingCall | undefined;
}

/**
 * Pairs calls and results the way providers require: the results of an assistant message's calls
 * are in the tool messages right after it. Walks once, one step (an assistant message and the tool
 * messages after it) at a time.
 */
export function pairToolCalls(messages: Message[], context: ValidationContext): Message[] {
  const pairing = new ToolCallPairing(messages, context);
  const output = new PairedOutput(messages);
  let index = 0;
  while (index < messages.length) {
    const first = messages[index]!;
    if (first.role !== 'assistant' && first.role !== 'tool') {
      output.put(index, first);
      index++;
      continue;
    }
    pairing.startStep();
    if (first.role === 'assistant') {
      output.put(index, pairing.assistant(first, index));
      index++;
    }
    while (index < messages.length && messages[index]!.role === 'tool') {
      output.put(index, pairing.tool(messages[index] as ToolMessage, index));
      index++;
    }
    for (const message of pairing.finishStep(index)) output.insert(message);
  }
  return output.result();
}

/** What `finishStep` returns for a step that needs nothing inserted (the usual case). */
const NOTHING_INSERTED: readonly Message[] = [];

function partPath(messageIndex: number, partIndex: number): string {
  return `messages[${messageIndex}].content[${partIndex}]`;
}

interface IdIndex {
  used: Set<string>;
  resultPlaces: Map<string, Array<{ message: number; part: number }>>;
}

class ToolCallPairing {
  private readonly seenCallIds = new Set<string>();
  private readonly providerExecutedIds = new Set<string>();
  /**
   * Calls of the current step by their original id (one id may be used twice). One map and one
   * orphan list serve every step (cleared at each): a call of a long history allocates per repair,
   * not per step.
   */
  private readonly pending = new Map<string, PendingCall>();
  /** The first call of each original id in the current step, in order; `stepCallCount` are current. */
  private readonly stepFirstCalls: PendingCall[] = [];
  private stepCallCount = 0;
  private step = 0;
  private readonly orphans: ToolResultPart[] = [];
  /** Per repeated id, the suffix its next replacement tries first. */
  private readonly nextSuffix = new Map<string, number>();
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
    // Nothing is deleted or truncated (both make V8 allocate): the step number retires the
    // previous step's calls, and the lists are overwritten from the start.
    this.step++;
    this.stepCallCount = 0;
    if (this.orphans.length > 0) this.orphans.length = 0;
  }

  /** The first call of the current step with this original id (the others follow by `next`). */
  private pendingCall(toolCallId: string): PendingCall | undefined {
    const call = this.pending.get(toolCallId);
    return call !== undefined && call.step === this.step ? call : undefined;
  }

  // The context manager pairs the whole history on every call: the two walks below allocate only
  // when a part changes (copy-on-write), so a well-paired history of thousands of messages costs
  // a pass over its parts and no garbage.

  assistant(message: AssistantMessage, messageIndex: number): AssistantMessage {
    if (typeof message.content === 'string') return message;
    const content = message.content;
    let approvalCallIds: Set<string> | undefined;
    for (const part of content) {
      if (part.type === 'tool-approval-request') {
        approvalCallIds ??= new Set();
        approvalCallIds.add(part.toolCallId);
      }
    }
    let parts: AssistantContentPart[] | undefined;
    for (let partIndex = 0; partIndex < content.length; partIndex++) {
      const part = content[partIndex]!;
      let next: AssistantContentPart | undefined = part;
      if (part.type === 'tool-call') {
        const finalId = this.callId(part.toolCallId, messageIndex, partIndex);
        if (part.providerExecuted === true) this.providerExecutedIds.add(finalId);
        const call: PendingCall = {
          originalId: part.toolCallId,
          finalId,
          toolName: part.toolName,
          messageIndex,
          partIndex,
          answered: false,
          exempt: part.providerExecuted === true || approvalCallIds?.has(part.toolCallId) === true,
          step: this.step,
          next: undefined,
          last: undefined,
          unanswered: undefined,
        };
        const first = this.pendingCall(part.toolCallId);
        if (first === undefined) {
          call.last = call;
          call.unanswered = call;
          this.pending.set(part.toolCallId, call);
          this.stepFirstCalls[this.stepCallCount++] = call;
        } else {
          first.last!.next = call;
          first.last = call;
          first.unanswered ??= call;
        }
        if (finalId !== part.toolCallId) next = { ...part, toolCallId: finalId };
      } else if (part.type === 'tool-result') {
        // Provider-executed results live in the assistant message, after their call.
        if (
          !this.providerExecutedIds.has(part.toolCallId) ||
          this.pendingCall(part.toolCallId) !== undefined
        ) {
          next = this.answer(part, messageIndex, partIndex);
        }
      } else if (part.type === 'tool-approval-request') {
        const call = this.pendingCall(part.toolCallId);
        if (call !== undefined && call.finalId !== part.toolCallId) {
          next = { ...part, toolCallId: call.finalId };
        }
      }
      if (next !== part && parts === undefined) parts = content.slice(0, partIndex);
      if (parts !== undefined && next !== undefined) parts.push(next);
    }
    return parts === undefined ? message : { ...message, content: parts };
  }

  /** The tool message with its results renamed or removed as needed; `undefined` when emptied. */
  tool(message: ToolMessage, messageIndex: number): ToolMessage | undefined {
    const content = message.content;
    let parts: ToolContentPart[] | undefined;
    for (let partIndex = 0; partIndex < content.length; partIndex++) {
      const part = content[partIndex]!;
      const next =
        this.moved.size > 0 && this.moved.has(`${messageIndex}:${partIndex}`)
          ? undefined
          : part.type === 'tool-result'
            ? this.answer(part, messageIndex, partIndex)
            : part;
      if (next !== part && parts === undefined) parts = content.slice(0, partIndex);
      if (parts !== undefined && next !== undefined) parts.push(next);
    }
    if (parts === undefined) return message;
    // A tool message left empty by the repair would be rejected by providers.
    return parts.length > 0 ? { ...message, content: parts } : undefined;
  }

  /**
   * The messages to insert after the step (which ends before message `stepEnd`): late results
   * moved up and synthetic results for calls that have none, then kept orphan results.
   */
  finishStep(stepEnd: number): readonly Message[] {
    let missing: ToolResultPart[] | undefined;
    for (let first = 0; first < this.stepCallCount; first++) {
      for (let call = this.stepFirstCalls[first]; call !== undefined; call = call.next) {
        const originalId = call.originalId;
        if (call.answered || call.exempt) continue;
        const late = this.lateResult(originalId, stepEnd);
        if (late !== undefined) {
          const [result, path] = late;
          if (!this.context.repair) {
            fail(
              partPath(call.messageIndex, call.partIndex),
              `tool call ${JSON.stringify(call.finalId)} is answered only at ${path}, after other messages; a result must follow its call's assistant message`,
            );
          }
          this.context.repairs.push({ kind: 'late-tool-result', path, toolCallId: originalId });
          call.answered = true;
          missing ??= [];
          missing.push(
            call.finalId === result.toolCallId ? result : { ...result, toolCallId: call.finalId },
          );
          continue;
        }
        const path = partPath(call.messageIndex, call.partIndex);
        if (!this.context.repair) {
          fail(path, `tool call ${JSON.stringify(call.finalId)} has no result`);
        }
        this.context.repairs.push({
          kind: 'missing-tool-result',
          path,
          toolCallId: call.finalId,
          toolName: call.toolName,
        });
        missing ??= [];
        missing.push({
          type: 'tool-result',
          toolCallId: call.finalId,
          toolName: call.toolName,
          output: { type: 'error-text', value: MISSING_TOOL_RESULT_TEXT },
        });
      }
    }
    if (missing === undefined && this.orphans.length === 0) return NOTHING_INSERTED;
    const inserted: Message[] = [];
    if (missing !== undefined) inserted.push({ role: 'tool', content: missing });
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
  private callId(toolCallId: string, messageIndex: number, partIndex: number): string {
    if (!this.seenCallIds.has(toolCallId)) {
      this.seenCallIds.add(toolCallId);
      return toolCallId;
    }
    const path = `${partPath(messageIndex, partIndex)}.toolCallId`;
    if (!this.context.repair) {
      fail(path, `tool-call id ${JSON.stringify(toolCallId)} is used twice`);
    }
    // Each id resumes at the suffix after its last replacement: an id repeated thousands of times
    // stays linear.
    let counter = this.nextSuffix.get(toolCallId) ?? 2;
    const used = this.idIndex().used;
    while (used.has(`${toolCallId}-${counter}`)) counter++;
    const replacementId = `${toolCallId}-${counter}`;
    this.nextSuffix.set(toolCallId, counter + 1);
    used.add(replacementId);
    this.seenCallIds.add(replacementId);
    this.context.repairs.push({ kind: 'duplicate-tool-call-id', path, toolCallId, replacementId });
    return replacementId;
  }

  /** Matches a result to the first unanswered call of the step with its id; orphans go. */
  private answer(
    part: ToolResultPart,
    messageIndex: number,
    partIndex: number,
  ): ToolResultPart | undefined {
    const first = this.pendingCall(part.toolCallId);
    let call = first?.unanswered;
    while (call?.answered) call = call.next;
    if (first !== undefined) first.unanswered = call?.next;
    if (call === undefined) {
      const path = partPath(messageIndex, partIndex);
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
