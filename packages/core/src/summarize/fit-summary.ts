import type { StructuredSummary, SummarySections, TokenCounter } from '../contracts/index.js';
import { BudgetExceededError, InvalidArgumentError } from '../errors/index.js';
import { isTimestamp } from './cue-words.js';
import {
  emptySections,
  renderSummary,
  SUMMARY_HEADING,
  SUMMARY_SECTION_TITLES,
} from './render-summary.js';
import { truncateToTokens } from './summary-text.js';

type SectionKey = keyof SummarySections;

/**
 * The order in which bullets give way, least important first. Sections in one tier lose their
 * oldest bullets in turn, so one section is not emptied while another keeps stale entries.
 * `freeText` is cut (not dropped) between the second and the third tier.
 */
const DROP_TIERS: ReadonlyArray<readonly SectionKey[]> = [
  ['snippets', 'background'],
  ['keyFacts', 'todos'],
  ['constraints', 'decisions'],
  ['goal'],
];

type DropStep = { kind: 'bullet'; section: SectionKey; index: number } | { kind: 'free-text' };

/**
 * Trims a summary until its rendering (`renderSummary`) is at most `maxTokens` tokens. Oldest and
 * least important bullets go first: snippets and background, then key facts and TODOs, then the
 * free text is cut, then constraints and decisions, and the goal last (the original goal, its first
 * bullet, is kept longest). The last remaining bullet is shortened rather than dropped when that is
 * enough. Returns the input itself when it already fits; never modifies it.
 *
 * Throws `InvalidArgumentError` for a budget that is not a positive number, and
 * `BudgetExceededError` when not even the bare heading fits.
 */
export function fitSummary(
  summary: StructuredSummary,
  maxTokens: number,
  counter: TokenCounter,
): StructuredSummary {
  if (!(maxTokens > 0) || !Number.isFinite(maxTokens)) {
    throw new InvalidArgumentError({
      message: `maxTokens must be a positive number, got ${maxTokens}`,
      argument: 'maxTokens',
    });
  }
  let tokens = counter.countText(renderSummary(summary));
  if (tokens <= maxTokens) return summary;

  const headingTokens = counter.countText(SUMMARY_HEADING);
  if (headingTokens > maxTokens) {
    throw new BudgetExceededError({
      message: `A summary needs at least ${headingTokens} tokens for its heading; the budget is ${maxTokens}`,
      requiredTokens: headingTokens,
      budgetTokens: maxTokens,
    });
  }

  // Walk from the most important end of the drop order and keep what fits, so that only the
  // kept lines are counted: a summary far over budget costs as much as one that barely is.
  const steps = dropSteps(summary.sections);
  let freeText: string | undefined;
  const kept: DropStep[] = [];
  const startedSections = new Set<SectionKey>();
  let estimate = headingTokens;
  let stoppedAt = -1;
  for (let position = steps.length - 1; position >= 0; position--) {
    const step = steps[position]!;
    const room = maxTokens - estimate;
    if (step.kind === 'free-text') {
      const text = summary.freeText?.trim();
      if (!text) continue;
      const cost = counter.countText(text) + 1;
      if (cost <= room) {
        freeText = text;
        estimate += cost;
        continue;
      }
      // Free text is cut rather than dropped, and nothing less important than it stays.
      freeText = truncateToTokens(text, room - 1, counter) || undefined;
      stoppedAt = position;
      break;
    }
    const text = summary.sections[step.section][step.index]!;
    const header = startedSections.has(step.section)
      ? 0
      : counter.countText(`\n\n### ${SUMMARY_SECTION_TITLES[step.section]}`);
    const cost = header + counter.countText(`\n${renderLine(step.section, text)}`);
    if (cost > room) {
      stoppedAt = position;
      break;
    }
    startedSections.add(step.section);
    kept.push(step);
    estimate += cost;
  }

  // The estimate adds up per-line counts; confirm with a real count and give up the least
  // important kept bullets while it is still over.
  kept.reverse();
  for (;;) {
    const candidate = assemble(summary.sections, kept, freeText);
    tokens = counter.countText(renderSummary(candidate));
    if (tokens <= maxTokens) {
      if (kept.length === 0 && !freeText) {
        return shortenOnlyBullet(summary, steps, maxTokens, counter) ?? candidate;
      }
      return extend(summary.sections, steps, kept, stoppedAt, freeText, maxTokens, counter);
    }
    stoppedAt = -1;
    const leastImportant = kept[0];
    if (freeText && (!leastImportant || !isBelowFreeText(leastImportant))) {
      // The free text ranks below every bullet left: cut it further before touching them.
      const freeTextTokens = counter.countText(freeText);
      const target = freeTextTokens - Math.max(1, tokens - maxTokens);
      freeText = truncateToTokens(freeText, target, counter) || undefined;
    } else if (leastImportant) {
      kept.shift();
    } else {
      break;
    }
  }
  throw new BudgetExceededError({
    message: `The summary cannot be trimmed to ${maxTokens} tokens`,
    requiredTokens: tokens,
    budgetTokens: maxTokens,
  });
}

/**
 * Per-line estimates round up, so the walk may stop a bullet or two early: add the next bullets
 * back while the real count still fits.
 */
function extend(
  sections: SummarySections,
  steps: readonly DropStep[],
  kept: DropStep[],
  stoppedAt: number,
  freeText: string | undefined,
  maxTokens: number,
  counter: TokenCounter,
): StructuredSummary {
  let best = assemble(sections, kept, freeText);
  for (let position = stoppedAt; position >= 0; position--) {
    const step = steps[position]!;
    if (step.kind !== 'bullet') break;
    const candidate = assemble(sections, [step, ...kept], freeText);
    if (counter.countText(renderSummary(candidate)) > maxTokens) break;
    kept.unshift(step);
    best = candidate;
  }
  return best;
}

/** Bullets of the first two tiers give way before the free text is cut. */
function isBelowFreeText(step: DropStep): boolean {
  return step.kind === 'bullet' && !DROP_TIERS.slice(2).some((tier) => tier.includes(step.section));
}

function assemble(
  sections: SummarySections,
  kept: readonly DropStep[],
  freeText: string | undefined,
): StructuredSummary {
  const keep = new Map<SectionKey, Set<number>>();
  for (const step of kept) {
    if (step.kind !== 'bullet') continue;
    let indexes = keep.get(step.section);
    if (!indexes) {
      indexes = new Set();
      keep.set(step.section, indexes);
    }
    indexes.add(step.index);
  }
  const result = {} as SummarySections;
  for (const key of Object.keys(SUMMARY_SECTION_TITLES) as SectionKey[]) {
    const indexes = keep.get(key);
    result[key] = indexes ? keepWithTimestamps(sections[key], indexes) : [];
  }
  return freeText ? { sections: result, freeText } : { sections: result };
}

/**
 * The kept bullets of a section. A timestamp is written once per run of bullets (`(8 May, 2023)
 * Ana: …`), so when the bullet carrying it goes, the next kept bullet of its run takes it.
 */
function keepWithTimestamps(bullets: readonly string[], indexes: ReadonlySet<number>): string[] {
  const kept: string[] = [];
  let pending: string | undefined;
  bullets.forEach((bullet, index) => {
    const timestamp = timestampPrefix(bullet);
    if (timestamp !== undefined) pending = undefined;
    if (!indexes.has(index)) {
      if (timestamp !== undefined) pending = timestamp;
      return;
    }
    kept.push(pending === undefined ? bullet : `${pending}${bullet}`);
    pending = undefined;
  });
  return kept;
}

function timestampPrefix(bullet: string): string | undefined {
  const match = /^\(([^()\n]{3,60})\) /u.exec(bullet);
  return match && isTimestamp(match[1]!) ? match[0] : undefined;
}

function dropSteps(sections: SummarySections): DropStep[] {
  const steps: DropStep[] = [];
  DROP_TIERS.forEach((tier, tierIndex) => {
    if (tierIndex === 2) steps.push({ kind: 'free-text' });
    const orders = tier.map((section) => bulletOrder(section, sections[section].length));
    const longest = Math.max(0, ...orders.map((order) => order.length));
    for (let turn = 0; turn < longest; turn++) {
      tier.forEach((section, sectionIndex) => {
        const index = orders[sectionIndex]![turn];
        if (index !== undefined) steps.push({ kind: 'bullet', section, index });
      });
    }
  });
  return steps;
}

/** Oldest first; for goals the first bullet (the original request) goes last. */
function bulletOrder(section: SectionKey, length: number): number[] {
  const order = Array.from({ length }, (_, index) => index);
  if (section === 'goal' && length > 1) order.push(order.shift()!);
  return order;
}

function renderLine(section: SectionKey, text: string): string {
  return section === 'snippets' && text.includes('\n') ? `\`\`\`\n${text}\n\`\`\`` : `- ${text}`;
}

/**
 * When nothing fits whole, the most important bullet is shortened to fit rather than dropped (a
 * cut goal says more than no goal).
 */
function shortenOnlyBullet(
  summary: StructuredSummary,
  steps: readonly DropStep[],
  maxTokens: number,
  counter: TokenCounter,
): StructuredSummary | undefined {
  const step = steps.findLast((candidate) => candidate.kind === 'bullet');
  if (step?.kind !== 'bullet') return undefined;
  const text = summary.sections[step.section][step.index]!;
  const withText = (value: string): StructuredSummary => ({
    sections: { ...emptySections(), [step.section]: [value] },
  });
  const overhead = counter.countText(renderSummary(withText('')));
  const shortened = truncateToTokens(text, maxTokens - overhead, counter);
  if (!shortened) return undefined;
  const candidate = withText(shortened);
  return counter.countText(renderSummary(candidate)) <= maxTokens ? candidate : undefined;
}
