/**
 * The tool-call pairing of `validateMessages` and `repairMessages`: each call with its result,
 * in order.
 */
import type {
  AssistantContentPart,
  AssistantMessage,
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
import { fail, type ValidationContext } from './message-shape.js';
import { toolOutputText } from './message-utils.js';

/** Text of the synthetic result that `repair` gives a tool call whose result is missing. */
export const MISSING_TOOL_RESULT_TEXT = 'No result was recorded for this tool call.';

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
export function pairToolCalls(messages: Message[], context: ValidationContext): Message[] {
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
