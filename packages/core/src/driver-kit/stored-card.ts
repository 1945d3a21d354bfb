import type { MemoryCard, Scope } from '../contracts/index.js';
import { assertSafeId } from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import { cardNotFound, decodeCard } from './records.js';

/**
 * `MemoryStore.get` of a driver: checks the id, reads the card's stored JSON with `read` (null or
 * undefined when absent) and decodes it, or throws `NotFoundError`. `key` names the scope in
 * messages.
 */
export async function getStoredCard(
  options: { id: string; scope: Scope; key: string },
  read: () => Promise<string | null | undefined>,
): Promise<MemoryCard> {
  const { id, scope, key } = requireOptions(options, 'getStoredCard');
  assertSafeId(id, 'card id');
  const json = await read();
  if (json === null || json === undefined) throw cardNotFound(id);
  return decodeCard(json, scope, `memory card ${id} of ${key}`);
}
