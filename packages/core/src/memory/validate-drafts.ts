import type { MemoryCardDraft, MemoryCardType } from '../contracts/index.js';
import { MEMORY_CARD_TYPES } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { MAX_CARD_CONTENT_LENGTH } from './card-analysis.js';

/** A draft checked and cleaned: trimmed content, a known type, trimmed unique tags. */
export interface ValidDraft {
  content: string;
  type: MemoryCardType;
  tags: string[];
  source?: string;
}

function mergeTags(first: readonly string[], second: readonly string[]): string[] {
  return [...new Set([...first, ...second])];
}

/** Checks drafts and throws `InvalidArgumentError` naming the first bad field. */
export function validateDrafts(drafts: readonly MemoryCardDraft[]): ValidDraft[] {
  if (!Array.isArray(drafts)) {
    throw new InvalidArgumentError({
      message: `add expects an array of card drafts; got ${typeof drafts}.`,
      argument: 'drafts',
    });
  }
  return drafts.map((draft, index) => {
    const invalid = (field: string, reason: string) =>
      new InvalidArgumentError({
        message: `drafts[${index}].${field} ${reason}.`,
        argument: `drafts[${index}].${field}`,
      });
    if (draft === null || typeof draft !== 'object') throw invalid('content', 'is missing');
    const { content, type = 'fact', tags = [], source } = draft;
    if (typeof content !== 'string' || content.trim() === '') {
      throw invalid('content', 'must be a non-empty string');
    }
    if (content.length > MAX_CARD_CONTENT_LENGTH) {
      throw invalid('content', `must be at most ${MAX_CARD_CONTENT_LENGTH} characters`);
    }
    if (!MEMORY_CARD_TYPES.includes(type)) {
      throw invalid(
        'type',
        `must be one of ${MEMORY_CARD_TYPES.join(', ')}; got ${JSON.stringify(type)}`,
      );
    }
    if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== 'string')) {
      throw invalid('tags', 'must be an array of strings');
    }
    if (source !== undefined && typeof source !== 'string')
      throw invalid('source', 'must be a string');
    const valid: ValidDraft = {
      content: content.trim(),
      type,
      tags: mergeTags(
        tags.map((tag) => tag.trim()).filter((tag) => tag !== ''),
        [],
      ),
    };
    if (source !== undefined) valid.source = source;
    return valid;
  });
}
