import type { Message } from '../contracts/index.js';
import { toolCallsOf, toolResultsOf } from '../messages/index.js';

/**
 * `isPairSafeCut(messages, cut)` for every cut from 0 to `messages.length` at once, in one pass:
 * strategies that look for a cut among thousands of messages would otherwise rescan the prompt
 * for each candidate (quadratic on a long agent transcript).
 *
 * A cut is unsafe while a tool call before it is open (its latest event before the cut is the
 * call, a message's calls counting before its results) and a result for it comes at or after the
 * cut; a call whose result never comes does not pin a cut. So each call opens an unsafe stretch,
 * from the cut after its message to the message with its next result, marked here with a
 * difference array.
 */
export function pairSafeCuts(messages: readonly Message[]): (cut: number) => boolean {
  const length = messages.length;
  const change = new Int32Array(length + 2);
  // The message of the earliest call of each id that no result has closed yet.
  const openSince = new Map<string, number>();
  for (let position = 0; position < length; position++) {
    const message = messages[position]!;
    for (const call of toolCallsOf(message)) {
      if (!openSince.has(call.toolCallId)) openSince.set(call.toolCallId, position);
    }
    for (const result of toolResultsOf(message)) {
      const opened = openSince.get(result.toolCallId);
      if (opened === undefined) continue;
      openSince.delete(result.toolCallId);
      // Cuts opened + 1 … position see the call before them and this result at or after them.
      if (opened + 1 <= position) {
        change[opened + 1]!++;
        change[position + 1]!--;
      }
    }
  }
  const safe = new Uint8Array(length + 1);
  let unsafe = 0;
  for (let cut = 0; cut <= length; cut++) {
    unsafe += change[cut]!;
    safe[cut] = unsafe === 0 ? 1 : 0;
  }
  return (cut) => safe[cut] === 1;
}
