import { KeyedLru } from '../cache/index.js';
import type {
  CallRecord,
  CompactionReport,
  CountCalibrationState,
  HistoryStore,
  MemoryCardDraft,
  Message,
  Scope,
  StructuredSummary,
} from '../contracts/index.js';
import { ConflictError } from '../errors/index.js';
import { countHistory } from '../history/index.js';
import type { createShapeCheck } from './check-new-messages.js';
import { hashFingerprints } from './message-fingerprint.js';

/** A compaction of a session's history prefix: what the prefix became. */
export interface CompactionEntry {
  /** Fingerprints of the original messages the compacted output stands for. */
  covered: string[];
  /** The compacted form of those messages. */
  output: Message[];
  summary?: StructuredSummary;
  cycle: number;
  flushedCycle?: number;
  /** Version of the working state in the history store. */
  version: number;
}

/** What the manager keeps in memory per session (scope). */
export interface SessionState {
  entry?: CompactionEntry;
  /** How many original messages were appended to the history store. */
  recorded?: number;
  /**
   * The version and cycle of the working state last read from the store, also when it was not
   * adopted (it covers a history the host no longer sends): a compaction that replaces it is
   * written on top of that version, not as a first write that would conflict and be dropped.
   */
  stored?: { version: number; cycle: number };
  flushedCycle?: number;
  background?: Promise<void>;
  /** A compaction prepared in the background, adopted when the threshold is reached. */
  pending?: { entry: CompactionEntry; report: CompactionReport; cards: MemoryCardDraft[] };
  /** The shape check of this conversation's messages: each distinct message is checked once. */
  checkShapes?: ReturnType<typeof createShapeCheck>;
  /**
   * The latest prepared calls, oldest first (bounded); written with the next working state.
   * Undefined until read from the store, so a new process continues the stored record.
   */
  calls?: CallRecord[];
}

/**
 * The newest working state this process knows the session has in the store, whether or not it
 * covers the current history: what a new compaction's write is based on.
 */
export function knownWorkingState(state: SessionState): { version: number; cycle: number } {
  const entry = state.entry;
  const stored = state.stored;
  if (!stored || (entry && entry.version >= stored.version)) {
    return { version: entry?.version ?? 0, cycle: entry?.cycle ?? 0 };
  }
  return stored;
}

/** Sessions' in-memory state, the least recently used dropped past `cacheSize`. */
export function createSessionStates(cacheSize: number) {
  const sessions = new KeyedLru<SessionState>(cacheSize);
  return {
    get(key: string): SessionState {
      let state = sessions.get(key);
      if (!state) {
        state = {};
        sessions.set(key, state);
      }
      return state;
    },
    /** The session's state when it is still kept, without creating one. */
    peek(key: string): SessionState | undefined {
      return sessions.get(key);
    },
    delete(key: string): void {
      sessions.delete(key);
    },
  };
}

/** The manager's count calibration as the working state carries it. */
export interface PersistedCalibration {
  /** The state to write with each working state; undefined while nothing was learned. */
  snapshot(): CountCalibrationState | undefined;
  /** Offered the calibration of each working state read from the store. */
  adopt(state: unknown): unknown;
}

/**
 * The session's side of the history store: the original history appended as the host gave it, the
 * working state (with the recorded calls and the manager's count calibration) read and written
 * optimistically. Without a store every function is a no-op, and the manager works from memory
 * alone.
 */
export function createSessionPersistence(
  historyStore: HistoryStore | undefined,
  calibration?: PersistedCalibration,
) {
  /**
   * The stored working state as a compaction entry for this history, or undefined when there is
   * none or it covers more messages than the host sent. Seeds `state.calls` from the store the
   * first time, so the record continues across processes.
   */
  async function restoreEntry(
    scope: Scope,
    state: SessionState,
    fingerprints: readonly string[],
    messages: readonly Message[],
  ): Promise<CompactionEntry | undefined> {
    if (!historyStore) return undefined;
    const stored = await historyStore.getState(scope);
    state.calls ??= stored?.calls ?? [];
    if (stored?.calibration !== undefined) calibration?.adopt(stored.calibration);
    if (stored) state.stored = { version: stored.version, cycle: stored.cycle };
    if (!stored || stored.summarizedCount > messages.length) return undefined;
    const covered = fingerprints.slice(0, stored.summarizedCount);
    // Written for another history (an early message edited since): not this history's state.
    if (stored.coveredDigest !== undefined && stored.coveredDigest !== hashFingerprints(covered)) {
      return undefined;
    }
    return {
      covered,
      output: stored.messages,
      cycle: stored.cycle,
      version: stored.version,
      ...(stored.summary ? { summary: stored.summary } : {}),
      ...(stored.flushedCycle === undefined ? {} : { flushedCycle: stored.flushedCycle }),
    };
  }

  /**
   * Records the host's history from position `from` on with a positional append, so that
   * instances sharing the store (behind a load balancer, or retrying one request at the same
   * moment) store each message once. Returns how far the history is recorded. Where the stored
   * history differs from the host's (an edited or regenerated message, another conversation in the
   * scope) or ends before `from` (cleared, expired), the stored messages win and the host's
   * messages past the stored end are appended after them.
   */
  async function appendFrom(
    store: HistoryStore,
    scope: Scope,
    original: readonly Message[],
    from: number,
  ): Promise<number> {
    let at = from;
    for (let attempt = 0; at < original.length; attempt++) {
      try {
        await store.append(scope, original.slice(at), { at });
        return original.length;
      } catch (error) {
        if (!ConflictError.isInstance(error) || attempt >= 2) throw error;
        at = await countHistory(store, scope);
      }
    }
    return at;
  }

  /** Records the original history as the host gave it, from where this process's record ended. */
  async function recordOriginal(
    scope: Scope,
    state: SessionState,
    original: readonly Message[],
  ): Promise<void> {
    if (!historyStore) return;
    // What other instances stored since is compared and skipped by the positional append, never
    // stored twice.
    const from =
      state.recorded ?? Math.min(await countHistory(historyStore, scope), original.length);
    state.recorded =
      original.length > from ? await appendFrom(historyStore, scope, original, from) : from;
  }

  /** Writes a compaction (and the calls recorded so far) as the working state; returns it with its version. */
  async function persistEntry(
    scope: Scope,
    entry: CompactionEntry,
    calls: readonly CallRecord[] | undefined,
  ): Promise<CompactionEntry> {
    if (!historyStore) return entry;
    try {
      const version = await historyStore.setState(
        scope,
        {
          messages: entry.output,
          summarizedCount: entry.covered.length,
          coveredDigest: hashFingerprints(entry.covered),
          cycle: entry.cycle,
          ...(entry.summary ? { summary: entry.summary } : {}),
          ...(entry.flushedCycle === undefined ? {} : { flushedCycle: entry.flushedCycle }),
          ...(calls && calls.length > 0 ? { calls: [...calls] } : {}),
          ...withCalibration(calibration?.snapshot()),
        },
        entry.version,
      );
      return { ...entry, version };
    } catch (error) {
      // Another instance compacted this session first: its state wins, ours is not written, so
      // two instances never both store a summary.
      if (!ConflictError.isInstance(error)) throw error;
      const stored = await historyStore.getState(scope);
      // No stored state means it expired (a TTL): the next write starts again at version 0.
      return { ...entry, version: stored?.version ?? 0 };
    }
  }

  return { restoreEntry, recordOriginal, persistEntry };
}

function withCalibration(state: CountCalibrationState | undefined) {
  return state === undefined ? {} : { calibration: state };
}

export type SessionPersistence = ReturnType<typeof createSessionPersistence>;
