import type { Message } from './message.js';
import type { Scope } from './scope.js';

export interface OffloadRecord {
  id: string;
  /** The message exactly as it was before it was offloaded. */
  message: Message;
  /** ISO 8601. */
  createdAt: string;
}

/**
 * Keeps large payloads out of the prompt. Ids are derived from the content, so offloading the
 * same message twice yields the same id (and a byte-identical preview).
 */
export interface OffloadStore {
  put(scope: Scope, message: Message): Promise<string>;
  /** Throws `NotFoundError` when the id does not exist in this scope. */
  get(scope: Scope, id: string): Promise<OffloadRecord>;
  delete(scope: Scope, id: string): Promise<void>;
}
