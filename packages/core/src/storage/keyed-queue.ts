/**
 * Runs work one at a time per key within this process: each call for a key starts after every
 * earlier call for the same key settled (resolved or rejected); calls for other keys run at once.
 * A shared store uses it per scope, so that two calls of one process never merge into the same
 * cached cards at once and only writers in other processes can conflict.
 */
export type KeyedQueue = <Result>(key: string, work: () => Promise<Result>) => Promise<Result>;

export function createKeyedQueue(): KeyedQueue {
  const tails = new Map<string, Promise<unknown>>();
  return (key, work) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    tails.set(key, settled);
    // The map holds only keys with work pending, not every key ever used.
    void settled.then(() => {
      if (tails.get(key) === settled) tails.delete(key);
    });
    return next;
  };
}
