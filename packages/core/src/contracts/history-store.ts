import type { CallRecord } from './call-record.js';
import type { Message } from './message.js';
import type { Scope } from './scope.js';
import type { StructuredSummary } from './summarizer.js';

/** One message of the original, complete history. */
export interface StoredMessage {
  /** 0-based position in the scope's history. */
  index: number;
  /** 1-based turn number: a turn starts at each user message (messages before the first user message are turn 0). */
  turn: number;
  message: Message;
  /** ISO 8601. */
  createdAt: string;
}

/**
 * What a context manager learned about the provider's count (see `createCountCalibration`),
 * stored with the working state so that a restarted process keeps it.
 */
export interface CountCalibrationState {
  /** The model and counter the observations belong to. */
  key: string;
  /** The latest observations, oldest first: ctxmem's count of a request and the provider's. */
  observations: Array<[countedTokens: number, providerTokens: number]>;
  /** Observations ever made: of two stored states, the one with more is the fresher. */
  total: number;
}

/** The compressed working state of one scope, updated optimistically. */
export interface WorkingState {
  /** Bumped on every successful `setState`. 0 means "never written". */
  version: number;
  /** The rolling summary, if any compaction has happened. */
  summary?: StructuredSummary;
  /** How many original messages (a prefix of the history) the summary covers. */
  summarizedCount: number;
  /** The compressed working messages (what the next prompt is built from). */
  messages: Message[];
  /**
   * A digest of the original messages the state stands for (the first `summarizedCount` of the
   * history). A context manager adopts a stored state only for a history whose first
   * `summarizedCount` messages have this digest, so an early message edited since is never served
   * from a summary of its old text; a state written without one is adopted by its count alone.
   * @default undefined
   */
  coveredDigest?: string;
  /** The compaction cycle number; memory flush runs at most once per cycle. */
  cycle: number;
  /** The cycle in which the last memory flush ran, if any. */
  flushedCycle?: number;
  /**
   * The latest prepared calls, oldest first, as the context manager recorded them (bounded by its
   * `recordedCalls` option). They ride on the state writes that compactions make anyway, so the
   * calls after the latest compaction are written with the next one.
   */
  calls?: CallRecord[];
  /**
   * The manager's count calibration when the state was written: shared by the manager's sessions
   * and written with whichever session's state is written, so a new process adopts the freshest.
   */
  calibration?: CountCalibrationState;
}

/** Options of `HistoryStore.append`. */
export interface HistoryAppendOptions {
  /**
   * Appends idempotently at this 0-based position of the history instead of after its end:
   * `messages[i]` belongs at position `at + i`. Positions the history already holds are compared,
   * not written: the same message there is skipped (same `id`, or else the same content: role,
   * name, content and provider options), a different one rejects the whole call with
   * `ConflictError` naming the position, and nothing is written. Messages past the stored end are
   * appended, so several instances handed the same conversation store it once. `at` past the
   * stored end (a gap) rejects with `ConflictError` too. Check and write are one atomic step in
   * every store, across processes for the shared ones.
   * @default undefined: after the stored end, whatever it holds
   */
  at?: number;
}

/**
 * The original, append-only history beside the working (compressed) state. Five methods are
 * required; `readTurns` and `count` are optional capabilities core falls back from. Implementations:
 * in memory and in files; drivers run the `testHistoryStore` conformance suite.
 */
export interface HistoryStore {
  /**
   * Appends messages in order and returns them as stored (with index and turn). With `at`, returns
   * the messages at positions `at ..< at + messages.length` as stored: the ones already there
   * (with their stored id and timestamp) and the ones appended.
   */
  append(
    scope: Scope,
    messages: readonly Message[],
    options?: HistoryAppendOptions,
  ): Promise<StoredMessage[]>;
  /** Reads the history, optionally a `[from, to)` index range. */
  read(scope: Scope, range?: { from?: number; to?: number }): Promise<StoredMessage[]>;
  /**
   * Reads whole turns by their 1-based numbers. Optional: without it core reads the history and
   * keeps those turns (`readHistoryTurns`); a store with an index on turns answers faster.
   */
  readTurns?(scope: Scope, turns: readonly number[]): Promise<StoredMessage[]>;
  /**
   * How many messages the scope's history holds. Optional: without it core counts a full read
   * (`countHistory`); a store that knows its length answers without reading.
   */
  count?(scope: Scope): Promise<number>;
  getState(scope: Scope): Promise<WorkingState | undefined>;
  /**
   * Writes the working state if the stored version still equals `expectedVersion`
   * (0 when there is none yet); returns the new version or throws `ConflictError`.
   */
  setState(
    scope: Scope,
    state: Omit<WorkingState, 'version'>,
    expectedVersion: number,
  ): Promise<number>;
  /** Removes the scope's history and state. */
  clear(scope: Scope): Promise<void>;
}

/** A `HistoryStore` with every optional capability: what the built-in stores and drivers return. */
export interface CompleteHistoryStore extends HistoryStore {
  readTurns(scope: Scope, turns: readonly number[]): Promise<StoredMessage[]>;
  count(scope: Scope): Promise<number>;
}
