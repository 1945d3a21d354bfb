import { KeyedLru } from '../cache/index.js';
import type { Message } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import { checkMessageShape } from '../messages/validate-messages.js';
import { messageFingerprint } from './message-fingerprint.js';

/** Fingerprints of messages whose shape was checked, kept per manager. */
const REMEMBERED_SHAPES = 50_000;

/**
 * Checks the shape of every message the manager has not seen before and returns the fingerprints
 * of all of them. Hosts such as the AI SDK resend the whole history as new objects on every call,
 * so a message is recognised by its fingerprint (content, with non-finite numbers kept distinct):
 * each distinct message is checked once, and a call costs one fingerprint per message plus a
 * check of what is new. Malformed input (unknown part types, NaN, cycles, wrong types) throws
 * `InvalidMessageError` naming the path; nothing is stored before this passes.
 */
export function createShapeCheck(): (messages: readonly Message[]) => string[] {
  const checkedObjects = new WeakSet<object>();
  const checkedFingerprints = new KeyedLru<true>(REMEMBERED_SHAPES);
  return (messages) =>
    messages.map((message, index) => {
      let fingerprint: string;
      try {
        fingerprint = messageFingerprint(message);
      } catch (error) {
        // Cycles and values JSON cannot hold: the shape check names where.
        checkMessageShape(message, index);
        throw new InvalidMessageError({
          message: `messages[${index}]: cannot be read as JSON (${error instanceof Error ? error.message : String(error)})`,
          path: `messages[${index}]`,
          cause: error,
        });
      }
      if (checkedObjects.has(message)) return fingerprint;
      if (checkedFingerprints.get(fingerprint) === undefined) {
        checkMessageShape(message, index);
        checkedFingerprints.set(fingerprint, true);
      }
      checkedObjects.add(message);
      return fingerprint;
    });
}
