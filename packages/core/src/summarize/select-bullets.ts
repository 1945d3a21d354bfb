import type { StructuredSummary, SummarySections, TokenCounter } from '../contracts/index.js';
import { estimateTextTokens } from '../tokens/index.js';
import { type ContentWord, wordInformation } from './information-content.js';
import { emptySections, renderSummary, SUMMARY_SECTION_TITLES } from './render-summary.js';

type SectionKey = keyof SummarySections;

/** A sentence (or an earlier bullet) that may go into the summary. */
export interface BulletCandidate {
  section: SectionKey;
  /** The sentence, without speaker or timestamp. */
  text: string;
  /** Written before the text: `'Ana: '`, `'User: '` or `''`. */
  prefix: string;
  /** When it was said; written once before the first bullet of each run with the same one. */
  timestamp?: string;
  /**
   * Kept candidates of one group that follow each other share a bullet (one prefix); in key facts,
   * so do those of one speaker and timestamp.
   */
  group: number;
  /** Chronological position: bullets are listed in this order. */
  order: number;
  words: readonly ContentWord[];
  /** Multiplies what the words are worth: cue words, questions, recency. */
  weight: number;
  /** Kept whatever it costs (the original goal). */
  pinned?: boolean;
  /** From the previous summary: guaranteed a fair share of the room (see `selectBullets`). */
  earlier?: boolean;
}

/**
 * A word already in the summary is worth this share of its information again: repeating it adds
 * little, but "Ana adopted a dog" and "Samantha adopted a dog" are two facts.
 */
const COVERED_SHARE = 0.2;
/** Sections whose bullets carry their timestamp (a goal or a snippet reads wrong with one). */
const DATED: ReadonlySet<SectionKey> = new Set([
  'background',
  'keyFacts',
  'constraints',
  'decisions',
  'todos',
]);
/** Rounds of filling the room that per-bullet estimates leave (each round counts exactly once). */
const FILL_ROUNDS = 4;

export interface SelectOptions {
  /** Budget of the rendered summary. */
  maxTokens: number;
  counter: TokenCounter;
  /** Kept as it is (after the sections) and counted. @default undefined */
  freeText?: string | undefined;
  /** Token counts of lines already seen, shared between calls. @default a new map */
  lineTokens?: Map<string, number>;
}

/** Lines remembered by a `lineTokens` cache before it starts over. */
const LINE_CACHE_LIMIT = 20_000;

/**
 * Picks the candidates that tell the most per token until the rendered summary reaches
 * `maxTokens` (a greedy budgeted maximum coverage: each word counts fully once, and a little
 * after that), then lists them in chronological order within their sections. A timestamp is
 * written once per run of bullets with the same one. `freeText` is kept as it is and counted.
 */
export function selectBullets(
  candidates: readonly BulletCandidate[],
  { maxTokens, counter, freeText, lineTokens = new Map() }: SelectOptions,
): StructuredSummary {
  /** Lines are counted once; the cache may outlive the call (rolling summaries repeat lines). */
  const countLine = (text: string) => {
    let tokens = lineTokens.get(text);
    if (tokens === undefined) {
      tokens = counter.countText(text);
      if (lineTokens.size >= LINE_CACHE_LIMIT) lineTokens.clear();
      lineTokens.set(text, tokens);
    }
    return tokens;
  };
  const count = candidates.length;
  // Each candidate's words as ids and values, so that a gain is a short loop over arrays. A word
  // is looked up by its key once; how many candidates have it is counted by id.
  const wordIds = new Map<string, number>();
  const ids = candidates.map(({ words }) => {
    const candidateIds = new Int32Array(words.length);
    for (let index = 0; index < words.length; index++) {
      const key = words[index]!.key;
      let id = wordIds.get(key);
      if (id === undefined) {
        id = wordIds.size;
        wordIds.set(key, id);
      }
      candidateIds[index] = id;
    }
    return candidateIds;
  });
  const candidatesWith = new Int32Array(wordIds.size);
  for (const candidateIds of ids) for (const id of candidateIds) candidatesWith[id]!++;
  const values = candidates.map(({ words, weight }, position) => {
    const candidateIds = ids[position]!;
    const candidateValues = new Float64Array(candidateIds.length);
    for (let index = 0; index < words.length; index++) {
      const information = wordInformation(candidatesWith[candidateIds[index]!]!, count);
      candidateValues[index] = information * words[index]!.boost * weight;
    }
    return candidateValues;
  });
  const covered = new Uint8Array(wordIds.size);
  const gainOf = (index: number) => {
    const candidateIds = ids[index]!;
    const candidateValues = values[index]!;
    let gain = 0;
    for (let word = 0; word < candidateIds.length; word++) {
      const value = candidateValues[word]!;
      gain += covered[candidateIds[word]!] ? value * COVERED_SHARE : value;
    }
    return gain;
  };
  const cover = (index: number) => {
    for (const id of ids[index]!) covered[id] = 1;
  };
  // Ranking uses a fast estimate of each bullet's size; the budget is kept with exact counts,
  // made only for the candidates that reach the top.
  const bulletText = (index: number) =>
    `\n- ${candidates[index]!.prefix}${candidates[index]!.text}`;
  const estimates = new Float64Array(count);
  const estimateOf = (index: number) => {
    estimates[index] ||= Math.max(1, estimateTextTokens(bulletText(index)));
    return estimates[index]!;
  };
  const costs = new Float64Array(count);
  const costOf = (index: number) => {
    costs[index] ||= Math.max(1, countLine(bulletText(index)));
    return costs[index]!;
  };

  const selected = new Set<number>();
  const ratios = new Float64Array(count);
  candidates.forEach((candidate, index) => {
    if (!candidate.pinned) return;
    selected.add(index);
    cover(index);
  });
  const build = () => assemble(candidates, selected, freeText);
  // Lines are nearly independent for a tokenizer: their cached counts add up to a close estimate
  // of the whole, which is counted exactly once at the end.
  let calibration = 0;
  const measure = (rendered: string) => {
    let total = calibration;
    for (const line of rendered.split('\n')) total += countLine(`\n${line}`);
    return total;
  };
  /** Counts the whole summary exactly and corrects the line estimate by the difference. */
  const countExactly = () => {
    const rendered = renderSummary(summary);
    const exact = counter.countText(rendered);
    calibration += exact - measure(rendered);
    return exact;
  };
  let summary: StructuredSummary = build();
  let tokens = measure(renderSummary(summary));

  /** Greedy rounds over `pool` until `limit`; returns the candidates left out. */
  const fill = (pool: number[], limit: number): number[] => {
    let waiting = pool;
    for (let round = 0; round < FILL_ROUNDS && tokens < limit && waiting.length > 0; round++) {
      const heap = new IndexHeap((index) => candidates[index]!.order);
      for (const index of waiting) {
        const gain = gainOf(index);
        if (gain > 0) heap.push(index, gain / estimateOf(index));
      }
      const skipped: number[] = [];
      const startedSections = new Set<SectionKey>();
      const startedRuns = new Set<string>();
      for (const index of selected) {
        startedSections.add(candidates[index]!.section);
        startedRuns.add(runKey(candidates[index]!));
      }
      let planned = tokens;
      let added = 0;
      while (heap.size > 0) {
        const index = heap.pop();
        const candidate = candidates[index]!;
        const gain = gainOf(index);
        if (gain <= 0) continue;
        const ratio = gain / estimateOf(index);
        // Lazy greedy: gains only shrink, so a stale ratio is re-checked against the next best.
        if (heap.size > 0 && ratio < heap.peekPriority() - 1e-12) {
          heap.push(index, ratio);
          continue;
        }
        const room = limit - planned;
        // Far too large for what is left: not worth an exact count.
        if (room < 2 || estimateOf(index) > room * 1.5) {
          skipped.push(index);
          continue;
        }
        let cost = costOf(index);
        if (!startedSections.has(candidate.section)) {
          cost += countLine(`\n\n### ${SUMMARY_SECTION_TITLES[candidate.section]}`);
        }
        const run = runKey(candidate);
        if (candidate.timestamp !== undefined && !startedRuns.has(run)) {
          cost += countLine(`(${candidate.timestamp}) `);
        }
        if (planned + cost > limit) {
          skipped.push(index);
          continue;
        }
        planned += cost;
        startedSections.add(candidate.section);
        startedRuns.add(run);
        selected.add(index);
        ratios[index] = ratio;
        cover(index);
        added++;
      }
      if (added === 0) break;
      summary = build();
      tokens = measure(renderSummary(summary));
      waiting = skipped;
    }
    return pool.filter((index) => !selected.has(index));
  };

  const open = candidates.flatMap((candidate, index) => (candidate.pinned ? [] : [index]));
  const earlier = open.filter((index) => candidates[index]!.earlier);
  const newer = open.filter((index) => !candidates[index]!.earlier);
  if (earlier.length > 0 && newer.length > 0) {
    // Fair across age: the previous summary keeps at least its share of what is on offer, so a
    // new batch as informative as the old one cannot push it out wholesale (and old bullets,
    // already chosen once, keep at least a part of the room when the new batch is large).
    const offered = (indexes: number[]) =>
      indexes.reduce((sum, index) => sum + (gainOf(index) > 0 ? estimateOf(index) : 0), 0);
    const earlierTokens = offered(earlier);
    const share = earlierTokens / (earlierTokens + offered(newer));
    fill(earlier, tokens + Math.floor((maxTokens - tokens) * share));
  }
  let left = fill(
    open.filter((index) => !selected.has(index)),
    maxTokens,
  );
  tokens = countExactly();
  // The line estimate runs high: use the room it left, now that it is calibrated.
  for (let pass = 0; pass < 2 && tokens < maxTokens - 1 && left.length > 0; pass++) {
    const before = selected.size;
    left = fill(left, maxTokens);
    if (selected.size === before) break;
    tokens = countExactly();
  }

  // Per-bullet estimates are not exact: give up the least valuable bullets while over budget.
  if (tokens > maxTokens) {
    const removable = [...selected]
      .filter((index) => !candidates[index]!.pinned)
      .sort((a, b) => ratios[a]! - ratios[b]! || candidates[a]!.order - candidates[b]!.order);
    for (const index of removable) {
      if (tokens <= maxTokens) break;
      selected.delete(index);
      summary = build();
      tokens = counter.countText(renderSummary(summary));
    }
  }
  return summary;
}

function runKey(candidate: BulletCandidate): string {
  return `${candidate.section}\u0000${candidate.timestamp ?? ''}`;
}

/**
 * Renders the kept candidates into sections: chronological, dated per run, and joined into one
 * bullet while the same speaker goes on (within a message; in key facts, across messages of a
 * run too: "- Ana: A. B." costs a speaker label and a line less than two bullets, which the room
 * then spends on another fact). Constraints, decisions and TODOs stay one item per bullet.
 */
function assemble(
  candidates: readonly BulletCandidate[],
  selected: ReadonlySet<number>,
  freeText: string | undefined,
): StructuredSummary {
  const sections = emptySections();
  const kept = [...selected].map((index) => candidates[index]!).sort((a, b) => a.order - b.order);
  for (const key of Object.keys(SUMMARY_SECTION_TITLES) as SectionKey[]) {
    const bullets = sections[key];
    let previous: BulletCandidate | undefined;
    let shownTimestamp: string | undefined;
    for (const candidate of kept) {
      if (candidate.section !== key) continue;
      if (
        previous !== undefined &&
        (previous.group === candidate.group || (key === 'keyFacts' && candidate.prefix !== '')) &&
        previous.prefix === candidate.prefix &&
        previous.timestamp === candidate.timestamp
      ) {
        bullets[bullets.length - 1] += ` ${candidate.text}`;
      } else {
        const dated =
          DATED.has(key) &&
          candidate.timestamp !== undefined &&
          candidate.timestamp !== shownTimestamp;
        if (dated) shownTimestamp = candidate.timestamp;
        bullets.push(
          `${dated ? `(${candidate.timestamp}) ` : ''}${candidate.prefix}${candidate.text}`,
        );
      }
      previous = candidate;
    }
  }
  return freeText ? { sections, freeText } : { sections };
}

/** A max-heap of candidate indexes by priority; ties go to the newer candidate, for determinism. */
class IndexHeap {
  private readonly indexes: number[] = [];
  private readonly priorities: number[] = [];

  constructor(private readonly orderOf: (index: number) => number) {}

  get size(): number {
    return this.indexes.length;
  }

  peekPriority(): number {
    return this.priorities[0] ?? Number.NEGATIVE_INFINITY;
  }

  push(index: number, priority: number): void {
    this.indexes.push(index);
    this.priorities.push(priority);
    let position = this.indexes.length - 1;
    while (position > 0) {
      const parent = (position - 1) >> 1;
      if (!this.before(position, parent)) break;
      this.swap(position, parent);
      position = parent;
    }
  }

  /** Removes and returns the index with the highest priority; the heap must not be empty. */
  pop(): number {
    const top = this.indexes[0]!;
    const lastIndex = this.indexes.pop()!;
    const lastPriority = this.priorities.pop()!;
    if (this.indexes.length === 0) return top;
    this.indexes[0] = lastIndex;
    this.priorities[0] = lastPriority;
    let position = 0;
    for (;;) {
      const left = position * 2 + 1;
      const right = left + 1;
      let best = position;
      if (left < this.indexes.length && this.before(left, best)) best = left;
      if (right < this.indexes.length && this.before(right, best)) best = right;
      if (best === position) break;
      this.swap(position, best);
      position = best;
    }
    return top;
  }

  private before(first: number, second: number): boolean {
    const a = this.priorities[first]!;
    const b = this.priorities[second]!;
    return (
      a > b || (a === b && this.orderOf(this.indexes[first]!) > this.orderOf(this.indexes[second]!))
    );
  }

  private swap(first: number, second: number): void {
    const indexes = this.indexes;
    const priorities = this.priorities;
    [indexes[first], indexes[second]] = [indexes[second]!, indexes[first]!];
    [priorities[first], priorities[second]] = [priorities[second]!, priorities[first]!];
  }
}
