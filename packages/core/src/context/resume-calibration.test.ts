import { describe, expect, it } from 'vitest';
import {
  boundedCounter,
  type ContextManager,
  createContextManager,
  createInMemoryHistoryStore,
  createInMemoryOffloadStore,
  createTokenCounter,
  type HistoryStore,
  type Message,
  type PrepareResult,
  type Scope,
  type TokenCounter,
} from '../index.js';
import { fillerText } from '../test/index.js';

/**
 * A session resumed by a new manager (a restarted process) adopts the count calibration written
 * with its working state, and its first call is then budgeted at the adopted ratio: the working
 * state (the stored compaction plus the messages after it) is counted again within the budget
 * the adopted ratio gives, not the one the manager started the call with.
 */

const WINDOW = 16_000;
/** A model with a public tokenizer: the prior ratio is 1. */
const MODEL = 'gpt-4o';
const scope: Scope = { sessionId: 'resumed' };
/** An independent exact counter, for what the provider would be sent. */
const exact = createTokenCounter({ model: MODEL });

/**
 * A conversation of `rounds` user turns, the last one unanswered. Each is a prefix of the next, as
 * a host that appends to its history sends them.
 */
function conversation(rounds: number): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are a careful research agent.' }];
  for (let turn = 1; turn <= rounds; turn++) {
    if (turn > 1) messages.push({ role: 'assistant', content: fillerText(turn + 999, 220) });
    messages.push({ role: 'user', content: `Turn ${turn}: ${fillerText(turn, 60)}?` });
  }
  return messages;
}

/**
 * The model's exact counter, recording each whole prompt it counts. A counter that is not one of
 * `createTokenCounter`'s has no floor, so `boundedCounter` hands every count to it: a count within
 * a budget is a call here.
 */
function spyCounter() {
  const inner = createTokenCounter({ model: MODEL });
  const counted: string[] = [];
  const counter: TokenCounter = {
    name: inner.name,
    promptOverhead: inner.promptOverhead,
    countText: (text) => inner.countText(text),
    countMessage: (message) => inner.countMessage(message),
    countMessages(messages) {
      counted.push(JSON.stringify(messages));
      return inner.countMessages(messages);
    },
  };
  return {
    counter,
    /** How many times `messages` were counted as a whole prompt since the last `reset`. */
    times: (messages: readonly Message[]) =>
      counted.filter((text) => text === JSON.stringify(messages)).length,
    reset: () => {
      counted.length = 0;
    },
  };
}

function stores() {
  return { historyStore: createInMemoryHistoryStore(), offloadStore: createInMemoryOffloadStore() };
}

/** A new manager (a restarted process) on the stores of the first, counting with `counter`. */
function resumedManager(shared: ReturnType<typeof stores>, counter: TokenCounter) {
  return createContextManager({ model: MODEL, contextWindow: WINDOW, counter, ...shared });
}

/** Reports to `manager` that the provider counted `factor` times the prepared request. */
function report(manager: ContextManager, prepared: PrepareResult, factor: number) {
  manager.observeUsage(prepared, { inputTokens: Math.ceil(prepared.requestTokens * factor) });
}

/** What a resumed session's prompt starts from: the stored compaction and the messages after it. */
async function storedWorking(store: HistoryStore, history: readonly Message[]) {
  const state = await store.getState(scope);
  if (!state) throw new Error('no working state stored');
  return [...state.messages, ...history.slice(state.summarizedCount)];
}

/** Whether `prepared` fits the window as a provider counting `ratio` times ctxmem's count sees it. */
function fitsAtRatio(prepared: PrepareResult, ratio: number): boolean {
  const { fixedTokens, reserveTokens, contextWindow } = prepared.budget;
  const counted = exact.countMessages(prepared.messages) + fixedTokens;
  return Math.ceil(counted * ratio) + reserveTokens <= contextWindow;
}

/**
 * A first manager compacts the session at ratio 1, learns `factor` from usage, and writes the
 * calibration with a (forced) compaction, as the working state carries it.
 */
async function learnAndSave(
  shared: ReturnType<typeof stores>,
  factor: number,
  { reports = 1, counter }: { reports?: number; counter?: TokenCounter } = {},
) {
  const first = createContextManager({
    model: MODEL,
    contextWindow: WINDOW,
    ...(counter ? { counter } : {}),
    ...shared,
  });
  const compacted = await first.prepare(conversation(40), { scope });
  expect(compacted.compacted).toBe(true);
  expect(compacted.budget.countRatio).toBe(1);
  // Nothing was learned yet: the working state carries no calibration.
  expect((await shared.historyStore.getState(scope))?.calibration).toBeUndefined();
  for (let index = 0; index < reports; index++) report(first, compacted, factor);
  const saved = await first.prepare(conversation(41), { scope, force: true });
  expect(saved.compacted).toBe(true);
  expect((await shared.historyStore.getState(scope))?.calibration?.observations).toHaveLength(
    reports,
  );
  return first;
}

describe('a resumed session and the count calibration stored with it', () => {
  it('adopts a higher learned ratio, recounts its working state and compacts to fit the provider', async () => {
    const shared = stores();
    const first = await learnAndSave(shared, 1.3);
    const learned = first.calibration();
    expect(learned).toEqual({ ratio: 1.33, observations: 1 });

    // The host's history grew after the last write: the working state is over the trigger at the
    // learned ratio, but under the one at ratio 1 that a new manager starts from.
    const atOne = createContextManager({ model: MODEL, contextWindow: WINDOW }).budget;
    let rounds = 41;
    let working = await storedWorking(shared.historyStore, conversation(rounds));
    const atLearned = Math.floor(atOne.triggerTokens / 1.33);
    while (exact.countMessages(working) <= atLearned + 200) {
      rounds++;
      working = await storedWorking(shared.historyStore, conversation(rounds));
    }
    expect(exact.countMessages(working)).toBeLessThan(atOne.triggerTokens);

    const spy = spyCounter();
    const resumed = resumedManager(shared, spy.counter);
    expect(resumed.calibration()).toEqual({ ratio: 1, observations: 0 });
    const prepared = await resumed.prepare(conversation(rounds), { scope });

    expect(resumed.calibration()).toEqual(learned);
    expect(prepared.budget.countRatio).toBe(1.33);
    // Judged against the learned budget, not the one the call started with.
    expect(prepared.compacted).toBe(true);
    expect(fitsAtRatio(prepared, 1.33)).toBe(true);
    expect(prepared.tokens).toBeLessThanOrEqual(prepared.budget.budgetTokens);
    // Counted within the budget at ratio 1, then again within the learned one.
    expect(spy.times(working)).toBe(2);
    // The call record (written with the compaction) says so too.
    const record = (await shared.historyStore.getState(scope))?.calls?.at(-1);
    expect(record?.tokensBefore).toBe(exact.countMessages(working));
    expect(record?.calibration?.ratio).toBe(1.33);
  });

  it('adopts a lower stored ratio over one it learned, and recounts within the wider budget', async () => {
    const shared = stores();
    const first = await learnAndSave(shared, 1.05, { reports: 2 });
    const stored = first.calibration();
    expect(stored).toEqual({ ratio: 1.08, observations: 2 });

    const spy = spyCounter();
    const resumed = resumedManager(shared, spy.counter);
    // This manager learned a higher ratio from another session first.
    const other = await resumed.prepare(conversation(10), { scope: { sessionId: 'other' } });
    report(resumed, other, 1.5);
    expect(resumed.calibration()).toEqual({ ratio: 1.53, observations: 1 });

    spy.reset();
    const history = conversation(42);
    const working = await storedWorking(shared.historyStore, history);
    const prepared = await resumed.prepare(history, { scope });
    // The stored state holds more observations: it is adopted, and the budget widens with it.
    expect(resumed.calibration()).toEqual(stored);
    expect(prepared.budget.countRatio).toBe(1.08);
    expect(prepared.budget.budgetTokens).toBeGreaterThan(
      createContextManager({ model: MODEL, contextWindow: WINDOW, calibration: { prior: 1.53 } })
        .budget.budgetTokens,
    );
    expect(prepared.compacted).toBe(false);
    expect(fitsAtRatio(prepared, 1.08)).toBe(true);
    // A count within the narrower budget may be a floor that is under the wider trigger while the
    // exact count is over it (see the next test): it is counted again.
    expect(spy.times(working)).toBe(2);
  });

  it('does not trust a floor counted within the narrower budget once the ratio falls', async () => {
    // The real counter, whose bounded counts use a floor for texts over 256k characters.
    const counter = createTokenCounter({ model: MODEL });
    const shared = stores();
    const first = await learnAndSave(shared, 1.05, { reports: 2, counter });
    expect(first.calibration().ratio).toBe(1.08);

    const resumed = resumedManager(shared, counter);
    const other = await resumed.prepare(conversation(10), { scope: { sessionId: 'other' } });
    report(resumed, other, 3);
    const narrow = resumed.budget;
    expect(narrow.countRatio).toBe(3);

    // Long runs of letters: a one-pass floor of one token per 50-letter word, many more
    // tokens exactly.
    const words: string[] = [];
    let state = 7;
    for (let index = 0; index < 5_300; index++) {
      let word = '';
      for (let letter = 0; letter < 50; letter++) {
        state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
        word += String.fromCharCode(97 + ((state >>> 16) % 26));
      }
      words.push(word);
    }
    // The answer to the last stored turn is a dump far larger than the window.
    const history: Message[] = [
      ...conversation(41),
      { role: 'assistant', content: words.join(' ') },
      { role: 'user', content: 'What does the dump say?' },
    ];
    const working = await storedWorking(shared.historyStore, history);
    const wide = createContextManager({
      model: MODEL,
      contextWindow: WINDOW,
      calibration: { prior: 1.08 },
    }).budget;
    // The premise: within the narrow budget the working state counts as a floor under the wide
    // trigger, while its exact count is far over it. (Another counter instance: the manager's
    // must not have the exact count of the dump cached.)
    const bounded = boundedCounter(createTokenCounter({ model: MODEL }), narrow.budgetTokens);
    const floored = bounded.countMessages(working);
    expect(bounded.countedByFloor).toBe(true);
    expect(floored).toBeGreaterThan(narrow.budgetTokens);
    expect(floored).toBeLessThan(wide.triggerTokens);
    expect(exact.countMessages(working)).toBeGreaterThan(wide.budgetTokens);

    const prepared = await resumed.prepare(history, { scope });
    expect(resumed.calibration()).toEqual(first.calibration());
    expect(prepared.budget.countRatio).toBe(1.08);
    // Trusting the floor, the call would not compact and would send the whole dump.
    expect(prepared.compacted).toBe(true);
    expect(fitsAtRatio(prepared, 1.08)).toBe(true);
  });

  it('counts the working state once when the adopted calibration leaves the ratio as it was', async () => {
    const shared = stores();
    // A provider counting a little less than ctxmem: learned, but the ratio stays at 1.
    const first = await learnAndSave(shared, 0.98);
    const stored = first.calibration();
    expect(stored).toEqual({ ratio: 1, observations: 1 });

    const spy = spyCounter();
    const resumed = resumedManager(shared, spy.counter);
    const history = conversation(42);
    const working = await storedWorking(shared.historyStore, history);
    const prepared = await resumed.prepare(history, { scope });
    expect(resumed.calibration()).toEqual(stored);
    expect(prepared.budget.countRatio).toBe(1);
    expect(prepared.compacted).toBe(false);
    expect(spy.times(working)).toBe(1);
  });
});
