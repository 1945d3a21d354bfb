import type {
  AssistantContentPart,
  CompressionContext,
  CompressionState,
  Message,
  StrategyName,
  StrategyReport,
  SystemMessage,
  ToolContentPart,
  ToolResultPart,
} from '../contracts/index.js';
import { BudgetExceededError } from '../errors/index.js';
import { isOpaquePart, isPairSafeCut, lastUserIndex, toolOutputText } from '../messages/index.js';
import { fitSummary, SUMMARY_HEADING } from '../summarize/index.js';
import { isSummaryMessage, promptLayout, summaryMessage, withLeadingBlock } from './layout.js';
import { reloadHint, shrinkToolCall } from './offload-preview.js';
import { currentSummary, historyCuts } from './summary-eviction.js';
import { headOf } from './text.js';

/** Marks the reports of the budget guard, which runs only when the strategies were not enough. */
const GUARD = 'budget-guard';

interface StepResult {
  state: CompressionState;
  offloadIds: string[];
  messagesAffected: number;
}

/** One way to shrink the prompt: what it gives back, or undefined when it cannot help. */
type StepRun = (
  state: CompressionState,
  tokens: number,
  context: CompressionContext,
) => Promise<StepResult | undefined> | StepResult | undefined;

interface GuardStep {
  name: StrategyName;
  reason: string;
  run: StepRun;
}

/**
 * The last resort after the strategies: makes the prompt fit `budgetTokens` by, in order,
 * dropping the oldest kept history pair-safely (system messages stay; dropped messages go to the
 * offload store), cutting current-round payloads down to reload notes, shrinking the summary
 * message, dropping the oldest current-round steps pair-safely (offloaded too), and dropping the
 * summary message (the structured summary stays in the state for the next compaction). Throws
 * `BudgetExceededError` when even the system messages and the newest user message do not fit.
 */
export async function fitToBudget(
  state: CompressionState,
  context: CompressionContext,
): Promise<{ state: CompressionState; reports: StrategyReport[] }> {
  const steps: GuardStep[] = [
    {
      name: 'summarize-rounds',
      reason: 'dropped the oldest kept history to meet the budget (originals offloaded)',
      run: dropHistory,
    },
    {
      name: 'current-round',
      reason: 'cut current-round payloads to reload notes to meet the budget',
      run: squeezeCurrentRound,
    },
    {
      name: 'summarize-rounds',
      reason: 'shrank the summary message to meet the budget',
      run: shrinkSummary,
    },
    {
      name: 'current-round',
      reason: 'dropped the oldest current-round steps to meet the budget (originals offloaded)',
      run: dropCurrentSteps,
    },
    {
      name: 'summarize-rounds',
      reason: 'dropped the summary message to meet the budget',
      run: dropSummaryMessage,
    },
  ];
  const reports: StrategyReport[] = [];
  let current = state;
  for (const step of steps) {
    const tokensBefore = context.counter.countMessages(current.messages);
    if (tokensBefore <= context.budgetTokens) break;
    context.abortSignal?.throwIfAborted();
    const started = performance.now();
    const result = await step.run(current, tokensBefore, context);
    if (!result) continue;
    reports.push({
      strategy: step.name,
      applied: true,
      tokensBefore,
      tokensAfter: context.counter.countMessages(result.state.messages),
      messagesAffected: result.messagesAffected,
      summarizerCalls: 0,
      durationMs: performance.now() - started,
      fallback: { from: GUARD, reason: step.reason },
      ...(result.offloadIds.length > 0 ? { offloadIds: result.offloadIds } : {}),
    });
    current = result.state;
  }
  const tokens = context.counter.countMessages(current.messages);
  if (tokens > context.budgetTokens) {
    const requiredTokens = context.counter.countMessages(minimalPrompt(current.messages));
    throw new BudgetExceededError({
      message: `The prompt cannot fit the budget of ${context.budgetTokens} tokens: the system messages and the newest user message alone need ${requiredTokens}`,
      requiredTokens: Math.max(requiredTokens, context.budgetTokens + 1),
      budgetTokens: context.budgetTokens,
    });
  }
  return { state: current, reports };
}

/** The smallest prompt that keeps every invariant: the system messages and the newest user message. */
export function minimalPrompt(messages: readonly Message[]): Message[] {
  const newestUser = lastUserIndex(messages);
  return messages.filter(
    (message, index) =>
      (message.role === 'system' && !isSummaryMessage(message)) || index === newestUser,
  );
}

async function offloadAll(messages: readonly Message[], context: CompressionContext) {
  const ids: string[] = [];
  for (const message of messages) ids.push(await context.offloadStore.put(context.scope, message));
  return ids;
}

const dropHistory: StepRun = async (state, tokens, context) => {
  // Memory injections are derived data; they are re-injected after compaction anyway.
  const messages = state.messages.filter((message) => message.ctxmem?.kind !== 'memory-injection');
  const current =
    messages.length === state.messages.length ? tokens : context.counter.countMessages(messages);
  const layout = promptLayout(messages);
  // The last resort before failing the call: a provider's compaction may go with its round.
  const cuts = historyCuts(messages, layout, { keepProviderCompaction: false });
  if (cuts.length === 0) {
    return messages.length === state.messages.length
      ? undefined
      : { state: { ...state, messages }, offloadIds: [], messagesAffected: 0 };
  }
  let removed = 0;
  let position = layout.historyStart;
  let chosen = cuts.at(-1)!;
  for (const cut of cuts) {
    for (; position < cut; position++) {
      const message = messages[position]!;
      if (message.role !== 'system') removed += context.counter.countMessage(message);
    }
    if (current - removed <= context.budgetTokens) {
      chosen = cut;
      break;
    }
  }
  const evicted = messages.slice(layout.historyStart, chosen);
  const dropped = evicted.filter((message) => message.role !== 'system');
  const hoisted = evicted.filter(
    (message) => message.role === 'system' && !isSummaryMessage(message),
  );
  const leading = messages.slice(0, layout.historyStart);
  const summary = leading.find(isSummaryMessage) as SystemMessage | undefined;
  const next = withLeadingBlock(leading, hoisted, summary, messages.slice(chosen));
  return {
    state: { ...state, messages: next },
    offloadIds: await offloadAll(dropped, context),
    messagesAffected: dropped.length,
  };
};

function noteResult(part: ToolResultPart, id: string): ToolResultPart {
  const text = toolOutputText(part.output);
  const isError = part.output.type === 'error-text' || part.output.type === 'error-json';
  return {
    ...part,
    output: {
      type: isError ? 'error-text' : 'text',
      value: `[Result offloaded (${text.length} characters): ${reloadHint(id)}]`,
    },
  };
}

/** The smallest form of a current-round step that keeps its tool calls and result pairings. */
function squeezed(message: Message, id: string, previewChars: number): Message | undefined {
  const note = `[Full message: ${reloadHint(id)}]`;
  if (message.role === 'tool') {
    const content: ToolContentPart[] = message.content.map((part) =>
      part.type === 'tool-result' ? noteResult(part, id) : part,
    );
    return { ...message, content, ctxmem: { kind: 'compressed-result', offloadIds: [id] } };
  }
  if (message.role !== 'assistant') return undefined;
  if (typeof message.content === 'string') {
    if (message.content.length <= previewChars) return undefined;
    return {
      ...message,
      content: `${headOf(message.content, previewChars)}\n${note}`,
      ctxmem: { kind: 'offload-preview', offloadIds: [id] },
    };
  }
  const content: AssistantContentPart[] = [];
  for (const part of message.content) {
    // Opaque parts stay whole: a provider rejects signed reasoning that is edited, and the calls
    // of a step whose reasoning is missing.
    if (isOpaquePart(part)) {
      content.push(part);
      continue;
    }
    switch (part.type) {
      case 'text':
        content.push({ type: 'text', text: headOf(part.text, previewChars) });
        break;
      case 'reasoning':
      case 'file':
        break;
      case 'tool-call':
        content.push(shrinkToolCall(part, id, previewChars, previewChars));
        break;
      case 'tool-result':
        content.push(noteResult(part, id));
        break;
      default:
        content.push(part);
    }
  }
  content.push({ type: 'text', text: note });
  return { ...message, content, ctxmem: { kind: 'offload-preview', offloadIds: [id] } };
}

const squeezeCurrentRound: StepRun = async (state, tokens, context) => {
  const newestUser = lastUserIndex(state.messages);
  if (newestUser === -1) return undefined;
  const { counter, settings } = context;
  const messages = [...state.messages];
  const offloadIds: string[] = [];
  let current = tokens;
  for (let index = newestUser + 1; index < messages.length; index++) {
    if (current <= context.budgetTokens) break;
    const original = messages[index]!;
    const probe = squeezed(original, 'x'.repeat(40), settings.offloadPreviewChars);
    if (!probe || counter.countMessage(probe) >= counter.countMessage(original)) continue;
    const id = await context.offloadStore.put(context.scope, original);
    const message = squeezed(original, id, settings.offloadPreviewChars)!;
    messages[index] = message;
    offloadIds.push(id);
    current += counter.countMessage(message) - counter.countMessage(original);
  }
  if (offloadIds.length === 0) return undefined;
  return { state: { ...state, messages }, offloadIds, messagesAffected: offloadIds.length };
};

const shrinkSummary: StepRun = (state, tokens, context) => {
  const index = state.messages.findIndex(isSummaryMessage);
  const summary = currentSummary(state);
  if (index === -1 || !summary) return undefined;
  const { counter } = context;
  const old = state.messages[index]!;
  const headingTokens = counter.countText(SUMMARY_HEADING);
  let room = context.budgetTokens - (tokens - counter.countMessage(old));
  room -= counter.countMessage({ role: 'system', content: '' });
  // A token counter may count a message slightly differently from its text: shrink until it fits.
  for (let attempt = 0; attempt < 4 && room >= headingTokens; attempt++) {
    let fitted: ReturnType<typeof fitSummary>;
    try {
      fitted = fitSummary(summary, room, counter);
    } catch {
      return undefined;
    }
    const message = summaryMessage(fitted);
    const after = tokens - counter.countMessage(old) + counter.countMessage(message);
    if (after <= context.budgetTokens) {
      const messages = [...state.messages];
      messages[index] = message;
      // The full summary stays in the state, so the next compaction merges into all of it.
      return { state: { ...state, summary, messages }, offloadIds: [], messagesAffected: 1 };
    }
    room -= after - context.budgetTokens;
  }
  return undefined;
};

const dropCurrentSteps: StepRun = async (state, tokens, context) => {
  const messages = state.messages;
  const newestUser = lastUserIndex(messages);
  if (newestUser === -1 || newestUser === messages.length - 1) return undefined;
  const start = newestUser + 1;
  if (!isPairSafeCut(messages, start)) return undefined;
  let removed = 0;
  let chosen: number | undefined;
  for (let cut = start + 1; cut <= messages.length; cut++) {
    removed += context.counter.countMessage(messages[cut - 1]!);
    if (!isPairSafeCut(messages, cut)) continue;
    chosen = cut;
    if (tokens - removed <= context.budgetTokens) break;
  }
  if (chosen === undefined) return undefined;
  const dropped = messages.slice(start, chosen);
  return {
    state: { ...state, messages: [...messages.slice(0, start), ...messages.slice(chosen)] },
    offloadIds: await offloadAll(dropped, context),
    messagesAffected: dropped.length,
  };
};

const dropSummaryMessage: StepRun = (state) => {
  const messages = state.messages.filter((message) => !isSummaryMessage(message));
  if (messages.length === state.messages.length) return undefined;
  const summary = currentSummary(state);
  return {
    state: { messages, ...(summary ? { summary } : {}) },
    offloadIds: [],
    messagesAffected: 1,
  };
};
