/** Where a kept sentence goes in a summary, and what its words weigh there. */
import type { MemoryCardType, SummarySections } from '../contracts/index.js';
import { isInstruction, type SentenceKind } from './cue-words.js';

export const CARD_TYPE: Readonly<Record<SentenceKind, MemoryCardType>> = {
  preference: 'preference',
  decision: 'decision',
  constraint: 'constraint',
  todo: 'todo',
  fact: 'fact',
};

/** Preferences are instructions about how to work, so they sit with the constraints. */
export const SECTION_OF: Readonly<Record<SentenceKind, keyof SummarySections>> = {
  preference: 'constraints',
  decision: 'decisions',
  constraint: 'constraints',
  todo: 'todos',
  fact: 'keyFacts',
};

/** How much a sentence's words are worth in each role, relative to a plain key fact. */
export const WEIGHT = {
  goal: 3,
  decision: 1.5,
  constraint: 1.5,
  preference: 1.2,
  todo: 1.2,
  fact: 2,
  instruction: 3,
  keyFact: 1,
  tool: 1,
  snippet: 1,
  /** A question asks more than it tells. */
  question: 0.5,
  /** The newest candidate is worth this much more than the oldest, all else equal. */
  recency: 0.5,
} as const;

/** A choice stated as one: "we decided", "I chose", "let's go with". */
const STATED_DECISION =
  /\b(?:i|we)(?:\s+(?:have|finally|just|all))?(?:'ve)?\s+(?:decided|chose|opted|agreed|settled)\b|\blet'?s\s+(?:use|go with|stick with|pick|choose|switch to|adopt)\b|决定|決定/iu;

/**
 * The section a sentence belongs in, by what it says. In a working session, preferences and
 * constraints are rules for the work and TODOs are next steps. Between named people (a
 * transcript), "we enjoy hiking" or "I need to finish my portfolio" tell about the speaker:
 * they are key facts; only an instruction stays a constraint and a stated choice a decision.
 */
export function sectionOf(
  kind: SentenceKind | undefined,
  sentence: string,
  betweenPeople: boolean,
): keyof SummarySections {
  if (kind === undefined) return 'keyFacts';
  if (!betweenPeople) return SECTION_OF[kind];
  if (kind === 'constraint' && isInstruction(sentence)) return 'constraints';
  if (kind === 'decision' && STATED_DECISION.test(sentence)) return 'decisions';
  return 'keyFacts';
}

export const SECTION_WEIGHT: Readonly<Record<keyof SummarySections, number>> = {
  goal: WEIGHT.goal,
  background: WEIGHT.tool,
  keyFacts: WEIGHT.keyFact,
  constraints: WEIGHT.constraint,
  decisions: WEIGHT.decision,
  todos: WEIGHT.todo,
  snippets: WEIGHT.snippet,
};
