import { KeyedLru } from '../cache/index.js';
import type { Message } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import { checkUnfingerprintedFields, requireEntry } from '../messages/message-shape.js';
import { checkMessageShape } from '../messages/validate-messages.js';
import { messageFingerprint } from './message-fingerprint.js';

/** Fingerprints of messages whose shape was checked, kept per conversation. */
const REMEMBERED_SHAPES = 10_000;

/**
 * Checks the shape of every message the manager has not seen before and returns the fingerprints
 * of all of them. Hosts such as the AI SDK resend the whole history as new objects on every call,
 * so a message is recognised by its fingerprint (content, with non-finite numbers kept distinct):
 * each distinct message is checked once, and a call costs one fingerprint per message plus a
 * check of what is new. Malformed input (unknown part types, NaN, cycles, wrong types, holes in
 * the array) throws `InvalidMessageError` naming the path; nothing is stored before this passes.
 */
export function createShapeCheck(): (messages: readonly Message[]) => {
  fingerprints: string[];
  /** Some message holds a lone surrogate: the input needs `repairMessages`' text repair. */
  needsTextRepair: boolean;
} {
  /** Message objects already checked: their fingerprint and whether they hold lone surrogates. */
  const checkedObjects = new WeakMap<object, { fingerprint: string; loneSurrogates: boolean }>();
  const checkedFingerprints = new KeyedLru<boolean>(REMEMBERED_SHAPES);
  return (messages) => {
    let needsTextRepair = false;
    const fingerprints: string[] = new Array(messages.length);
    for (let index = 0; index < messages.length; index++) {
      requireEntry(messages, index, `messages[${index}]`);
      const message = messages[index]!;
      // A host that resends its message objects (or an adapter that reuses its conversions)
      // costs one lookup per message.
      const knownObject = checkedObjects.get(message);
      if (knownObject !== undefined) {
        needsTextRepair ||= knownObject.loneSurrogates;
        fingerprints[index] = knownObject.fingerprint;
        continue;
      }
      let fingerprint: string;
      try {
        fingerprint = messageFingerprint(message);
      } catch (error) {
        // Cycles, BigInt, getters that throw: the shape check names where.
        checkMessageShape(message, index);
        throw new InvalidMessageError({
          message: `messages[${index}]: cannot be read as JSON (${error instanceof Error ? error.message : String(error)})`,
          path: `messages[${index}]`,
          cause: error,
        });
      }
      // The fingerprint holds what a provider reads (role, name, content, provider options) and
      // marks every value JSON cannot hold, so a message with the fingerprint of a checked one
      // has a checked shape. The id's shape is part of the key; the rest of the message (ctxmem's
      // metadata, a host's own fields) is checked for each new object, being small.
      const { id } = message as { id?: unknown };
      const idShape = id === undefined ? '' : typeof id === 'string' && id !== '' ? 'id' : 'bad';
      const key = `${fingerprint}|${idShape}`;
      let loneSurrogates = checkedFingerprints.get(key);
      if (loneSurrogates === undefined) {
        loneSurrogates = checkMessageShape(message, index);
        checkedFingerprints.set(key, loneSurrogates);
      } else {
        checkUnfingerprintedFields(message, index);
      }
      needsTextRepair ||= loneSurrogates;
      checkedObjects.set(message, { fingerprint, loneSurrogates });
      fingerprints[index] = fingerprint;
    }
    return { fingerprints, needsTextRepair };
  };
}
