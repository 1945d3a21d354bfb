import { type Budget, checkTrigger } from '../budget/index.js';
import { KeyedLru } from '../cache/index.js';
import { compact } from '../compression/index.js';
import type {
  CallCompactionSource,
  CompactionReport,
  Lease,
  MemoryCardDraft,
  Message,
  Scope,
  Summarizer,
  TokenCounter,
} from '../contracts/index.js';
import { recordCompaction, type Telemetry } from '../telemetry/index.js';
import { boundedCounter } from '../tokens/index.js';
import type { ContextManagerOptions } from './context-manager-types.js';
import { hashFingerprints } from './message-fingerprint.js';
import { explainBudget } from './request-preparation.js';
import {
  type CompactionEntry,
  knownWorkingState,
  type SessionPersistence,
  type SessionState,
} from './session-state.js';
import { errorText } from './with-timeout.js';

/** Whether `entry` stands for a prefix of the history with these fingerprints. */
export function matchesPrefix(entry: CompactionEntry, fingerprints: readonly string[]): boolean {
  if (entry.covered.length > fingerprints.length) return false;
  for (let index = entry.covered.length - 1; index >= 0; index--) {
    if (entry.covered[index] !== fingerprints[index]) return false;
  }
  return true;
}

/** How long a compaction lease is held at most: past the summarizer's own deadlines. */
export const COMPACTION_LEASE_MS = 120_000;

/**
 * The manager's options the scheduler works with (resolved: the defaults are the manager's), plus
 * the parts the manager builds for it.
 */
export interface CompactionSchedulerOptions
  extends Pick<ContextManagerOptions, 'leases' | 'settings' | 'onEvent'>,
    Required<
      Pick<
        ContextManagerOptions,
        'offloadStore' | 'history' | 'repairInput' | 'backgroundCompaction' | 'cacheSize'
      >
    > {
  counter: TokenCounter;
  summarizer: Summarizer;
  /** The offline summarizer a call uses while another instance holds the compaction lease. */
  extractive: Summarizer;
  contextWindow: number;
  persistence: SessionPersistence;
  /** Stores the cards a summary extracted. */
  storeCards: (scope: Scope, cards: readonly MemoryCardDraft[]) => Promise<void>;
  /** Keeps a background run so `idle()` can wait for it. */
  track: (run: Promise<unknown>) => void;
  /** Runs each compaction in a `ctxmem.compaction` span. @default undefined (off) */
  telemetry?: Telemetry;
}

/** The history of one call as compaction sees it. */
export interface CompactionInput {
  scope: Scope;
  /** The session's key (its scope, serialised). */
  key: string;
  state: SessionState;
  /** The repaired history and its fingerprints. */
  messages: readonly Message[];
  fingerprints: readonly string[];
  budget: Budget;
}

/** Where a session's prompt starts from: its known compaction plus the messages after it. */
export interface ResumedSession {
  entry: CompactionEntry | undefined;
  working: Message[];
  tokens: number;
  /** The compaction cycle the session is in. */
  cycle: number;
}

/** The prompt a call gets before memories are injected. */
export interface FittedPrompt {
  output: Message[];
  tokens: number;
  report?: CompactionReport;
  cards: MemoryCardDraft[];
  /** How the prompt's compacted part came to this call, when it is new here. */
  source?: CallCompactionSource;
  /** A compaction made in this call, to write with `commit` once the call is recorded. */
  unwritten?: { entry: CompactionEntry; compactionKey: string; lease?: Lease };
  /**
   * Starts the next compaction in the background; called once the call's prompt is ready, so the
   * background work never runs ahead of the turn that started it.
   */
  startBackground?: () => void;
}

/**
 * Decides when a session is compacted and which compaction its prompt starts from: the one this
 * process made for the known prefix, one prepared in the background, one another instance stored,
 * one made before at exactly this point, or a new one. Compaction runs at most once per threshold
 * crossing per session.
 */
export function createCompactionScheduler(options: CompactionSchedulerOptions) {
  const { counter, persistence, onEvent } = options;
  // Compactions by scope, budget and the exact messages they cover, so that a conversation is
  // summarized once at a given point even when other conversations share its scope.
  const compactions = new KeyedLru<{ entry: CompactionEntry }>(options.cacheSize);

  const workingOf = (entry: CompactionEntry, messages: readonly Message[]) => [
    ...entry.output,
    ...messages.slice(entry.covered.length),
  ];

  async function runCompaction(
    { scope, state, fingerprints, budget }: CompactionInput,
    working: readonly Message[],
    previous: CompactionEntry | undefined,
    trigger: NonNullable<ReturnType<typeof checkTrigger>>,
    abortSignal: AbortSignal | undefined,
    summarizer: Summarizer = options.summarizer,
    background = false,
  ) {
    const run = () =>
      compact(working, {
        budgetTokens: budget.budgetTokens,
        targetTokens: budget.targetTokens,
        counter,
        summarizer,
        offloadStore: options.offloadStore,
        scope,
        history: options.history,
        ...(options.settings ? { settings: options.settings } : {}),
        ...(previous?.summary ? { previousSummary: previous.summary } : {}),
        force: trigger === 'manual',
        trigger,
        ...(abortSignal ? { abortSignal } : {}),
        ...(onEvent ? { onEvent } : {}),
        repairInput: options.repairInput,
      });
    const { telemetry } = options;
    const result = telemetry
      ? await telemetry.span(
          'ctxmem.compaction',
          {
            'ctxmem.compaction.trigger': trigger,
            'ctxmem.compaction.background': background,
            'ctxmem.compaction.offline': summarizer !== options.summarizer,
            'ctxmem.summarizer.name': summarizer.name,
            ...telemetry.scopeAttributes(scope),
          },
          async (span) => {
            const compacted = await run();
            if (span.isRecording()) recordCompaction(span, compacted.report);
            return compacted;
          },
        )
      : await run();
    // Without an entry for this history, the write still goes on top of the stored state.
    const base = previous ?? knownWorkingState(state);
    const entry: CompactionEntry = {
      covered: [...fingerprints],
      output: result.messages,
      cycle: base.cycle + 1,
      version: base.version,
      ...(result.summary ? { summary: result.summary } : {}),
      ...(state.flushedCycle === undefined ? {} : { flushedCycle: state.flushedCycle }),
    };
    return { result, entry };
  }

  /**
   * `messages` counted within the budget: a payload far over it counts as its floor (no BPE over
   * millions of tokens); the trigger it decides is the one an exact count would give.
   */
  function tokensWithin(messages: readonly Message[], limitTokens: number): number {
    return boundedCounter(counter, limitTokens).countMessages(messages);
  }

  /** The session's known compaction for this history (restored from the store on a first call). */
  async function resume({
    scope,
    state,
    messages,
    fingerprints,
    limitTokens,
  }: Omit<CompactionInput, 'budget'> & {
    /** Counted within this budget (see `tokensWithin`). @default none: counted exactly */
    limitTokens?: number;
  }): Promise<ResumedSession> {
    let entry = state.entry;
    if (entry && !matchesPrefix(entry, fingerprints)) entry = undefined;
    if (!entry && !state.entry) {
      entry = await persistence.restoreEntry(scope, state, fingerprints, messages);
    }
    const working = entry ? workingOf(entry, messages) : [...messages];
    return {
      entry,
      working,
      tokens:
        limitTokens === undefined
          ? counter.countMessages(working)
          : tokensWithin(working, limitTokens),
      cycle: entry?.cycle ?? 0,
    };
  }

  /** Compacts when the trigger says so, or adopts a compaction made elsewhere; else may start one in the background. */
  async function fitPrompt(
    input: CompactionInput,
    resumed: ResumedSession,
    { force, abortSignal }: { force: boolean; abortSignal: AbortSignal | undefined },
  ): Promise<FittedPrompt> {
    const { scope, key, state, messages, fingerprints, budget } = input;
    let { entry, working, tokens } = resumed;
    let trigger = checkTrigger(tokens, working.length, budget, { manual: force });
    let fitted: FittedPrompt = { output: working, tokens, cards: [] };
    const pending = state.pending;
    if (trigger && !force && pending && matchesPrefix(pending.entry, fingerprints)) {
      // A background compaction prepared this moment: adopt it instead of summarizing now, so the
      // summarizer still runs once per threshold crossing and the turn waits for nothing.
      state.pending = undefined;
      entry = pending.entry;
      working = workingOf(entry, messages);
      tokens = counter.countMessages(working);
      fitted = {
        output: working,
        tokens,
        report: pending.report,
        cards: pending.cards,
        source: 'background',
      };
      trigger = checkTrigger(tokens, working.length, budget, { manual: false });
    }
    if (trigger && trigger !== 'manual' && state.entry) {
      // Another instance serving this session may have compacted it since this one did: adopt
      // its stored state instead of summarizing again.
      const known = knownWorkingState(state).version;
      const stored = await persistence.restoreEntry(scope, state, fingerprints, messages);
      if (stored && stored.version > Math.max(entry?.version ?? 0, known)) {
        entry = stored;
        working = workingOf(entry, messages);
        tokens = counter.countMessages(working);
        fitted = { ...fitted, output: working, tokens, source: 'stored' };
        trigger = checkTrigger(tokens, working.length, budget, { manual: false });
      }
    }
    // Only a call that compacts needs the key (hashing every fingerprint is O(history)).
    const compactionKey = trigger
      ? `${key}\u0000${budget.budgetTokens}:${budget.targetTokens}\u0000${hashFingerprints(fingerprints)}`
      : '';
    const known = trigger && trigger !== 'manual' ? compactions.get(compactionKey) : undefined;
    if (trigger && known && matchesPrefix(known.entry, fingerprints)) {
      // This scope's conversation was compacted at exactly this point before (hosts that share
      // one scope between conversations, or resend a request): reuse it, no summarizer call.
      state.entry = known.entry;
      state.pending = undefined;
      const output = [...known.entry.output];
      return { ...fitted, output, tokens: counter.countMessages(output), source: 'reused' };
    }
    if (trigger) {
      const lease = options.leases
        ? await options.leases.tryAcquire(scope, 'compaction', COMPACTION_LEASE_MS)
        : undefined;
      if (options.leases && !lease) {
        // Another instance is compacting this session: fit this call's prompt offline and write
        // nothing, so its summary (stored when it finishes) is the one the session adopts.
        onEvent?.({
          type: 'summarizer-fallback',
          scope,
          from: options.summarizer.name,
          reason: 'another instance holds the compaction lease of this session',
        });
        const { result } = await runCompaction(
          input,
          working,
          entry,
          trigger,
          abortSignal,
          options.extractive,
        ).catch((error: unknown) => {
          throw explainBudget(error, budget);
        });
        return {
          output: result.messages,
          tokens: counter.countMessages(result.messages),
          report: result.report,
          cards: [],
          source: 'offline-while-leased',
        };
      }
      try {
        const { result, entry: next } = await runCompaction(
          input,
          working,
          entry,
          trigger,
          abortSignal,
        ).catch((error: unknown) => {
          throw explainBudget(error, budget);
        });
        await options.storeCards(scope, result.cards);
        // Adopted by `commit` once written (after the call is recorded): a write that fails leaves
        // the session as it was, so the next call compacts again instead of working from a state
        // the store does not hold. The lease is released once the summary is written.
        return {
          output: result.messages,
          tokens: counter.countMessages(result.messages),
          report: result.report,
          cards: result.cards,
          source: 'compacted',
          unwritten: { entry: next, compactionKey, ...(lease ? { lease } : {}) },
        };
      } catch (error) {
        await lease?.release().catch(() => {});
        throw error;
      }
    }
    if (entry) state.entry = entry;
    if (
      options.backgroundCompaction &&
      !state.background &&
      !state.pending &&
      tokens >= budget.triggerTokens - 0.1 * options.contextWindow
    ) {
      const snapshot = [...working];
      return { ...fitted, startBackground: () => startBackground(input, snapshot, entry) };
    }
    return fitted;
  }

  function startBackground(
    input: CompactionInput,
    snapshot: readonly Message[],
    entry: CompactionEntry | undefined,
  ) {
    const { scope, state } = input;
    const covered = { ...input, fingerprints: [...input.fingerprints] };
    const run = runCompaction(
      covered,
      snapshot,
      entry,
      'threshold',
      undefined,
      options.summarizer,
      true,
    )
      .then(async ({ result, entry: next }) => {
        const written = await persistence.persistEntry(scope, next, state.calls);
        await options.storeCards(scope, result.cards);
        state.pending = { entry: written, report: result.report, cards: result.cards };
      })
      .catch((error: unknown) => {
        onEvent?.({
          type: 'summarizer-fallback',
          scope,
          from: 'background-compaction',
          reason: errorText(error),
        });
      })
      .finally(() => {
        state.background = undefined;
      });
    state.background = run;
    options.track(run);
  }

  /** Writes a compaction made in this call (with the calls recorded so far) and remembers it for reuse. */
  async function commit(
    scope: Scope,
    state: SessionState,
    { entry, compactionKey, lease }: NonNullable<FittedPrompt['unwritten']>,
  ): Promise<void> {
    try {
      const written = await persistence.persistEntry(scope, entry, state.calls);
      state.entry = written;
      state.pending = undefined;
      compactions.set(compactionKey, { entry: written });
    } finally {
      // A release that fails leaves the lease to expire by itself.
      await lease?.release().catch(() => {});
    }
  }

  return { resume, tokensWithin, fitPrompt, commit };
}
