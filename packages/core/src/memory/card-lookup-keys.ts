/**
 * The keys a card is looked up by when a draft is merged, shared by the card index and the
 * drivers' conflict keys (driver-kit), so both list a card under exactly the same keys.
 */
import type { MemoryCardType } from '../contracts/index.js';
import { MAX_CHANGED_TOKENS, MIN_SHARED_SHARE, MIN_SHARED_TOKENS } from './card-analysis.js';

const TYPE_CODES: Record<MemoryCardType, number> = {
  goal: 1,
  decision: 2,
  constraint: 3,
  todo: 4,
  code: 5,
  fact: 6,
  preference: 7,
  episode: 8,
};

function mix(hash: number, value: number): number {
  return Math.imul(hash ^ value, 0x01000193) >>> 0;
}

function tokenHash(token: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < token.length; index++) hash = mix(hash, token.charCodeAt(index));
  return hash;
}

/**
 * The supersession keys of a token sequence: one per way to cut out a span of at most
 * `MAX_CHANGED_TOKENS` tokens that leaves enough shared tokens around it, hashing the type, the
 * tokens before the span and the tokens after it. Two cards one supersedes the other share the
 * key of their common prefix and suffix. Small integers (hash collisions only add candidates,
 * which are checked), so a card costs a few map entries, not a few strings.
 */
export function shapeKeys(type: MemoryCardType, tokens: readonly string[]): number[] {
  const length = tokens.length;
  const minShared = Math.max(MIN_SHARED_TOKENS, Math.ceil(MIN_SHARED_SHARE * length - 1e-9));
  if (length < minShared) return [];
  const hashes = tokens.map(tokenHash);
  const prefix = new Uint32Array(length + 1);
  const suffix = new Uint32Array(length + 1);
  prefix[0] = 0x9e3779b9;
  suffix[length] = 0x85ebca6b;
  for (let index = 0; index < length; index++)
    prefix[index + 1] = mix(prefix[index]!, hashes[index]!);
  for (let index = length - 1; index >= 0; index--)
    suffix[index] = mix(suffix[index + 1]!, hashes[index]!);
  const keys: number[] = [];
  for (let cut = 0; cut <= MAX_CHANGED_TOKENS && length - cut >= minShared; cut++) {
    for (let start = 0; start + cut <= length; start++) {
      const key = mix(mix(mix(TYPE_CODES[type], start), prefix[start]!), suffix[start + cut]!);
      keys.push(key & 0x3fffffff);
    }
  }
  return keys;
}

/** Most token subsets looked up for one draft before falling back to prefix filtering. */
const MAX_SUBSET_LOOKUPS = 256;

export function tokenSetKey(tokens: Iterable<string>): string {
  return [...tokens].sort().join('\u0000');
}

/**
 * The keys of every subset of `sorted` without 1 to `missing` of its tokens, or undefined when
 * there are more than `MAX_SUBSET_LOOKUPS` of them.
 */
export function subsetKeys(sorted: readonly string[], missing: number): string[] | undefined {
  let count = 0;
  let combinations = 1;
  for (let removed = 1; removed <= missing; removed++) {
    combinations = (combinations * (sorted.length - removed + 1)) / removed;
    count += combinations;
    if (count > MAX_SUBSET_LOOKUPS) return undefined;
  }
  const keys: string[] = [];
  const kept: string[] = [];
  const visit = (position: number, removed: number) => {
    if (position === sorted.length) {
      if (removed > 0) keys.push(kept.join('\u0000'));
      return;
    }
    kept.push(sorted[position]!);
    visit(position + 1, removed);
    kept.pop();
    if (removed < missing) visit(position + 1, removed + 1);
  };
  visit(0, 0);
  return keys;
}
