import { type MemoryCardDraft, type StructuredSummary } from '../contracts/index.js';
export interface ParsedModelResponse {
  summary: StructuredSummary;
  cards: MemoryCardDraft[];
  /** False when no JSON summary was found and the raw text was kept instead. */
  structured: boolean;
}
/**
 * Reads the model's answer tolerantly: the JSON object may sit in a code fence or between other
 * text, may have trailing commas, may put the sections at the top level, and may use string
 * bullets or aliases of the section names. When no usable JSON object is found, the raw text is
 * kept as `freeText` (seed 000) — read as a rendered `## Context Summary` when it has that shape,
 * so a heading is never nested. `sourceIds` maps the message numbers of the prompt to message ids.
 */
export declare function parseModelResponse(
  text: string,
  sourceIds?: ReadonlyMap<number, string>,
): ParsedModelResponse;
//# sourceMappingURL=parse-model-response.d.ts.map
