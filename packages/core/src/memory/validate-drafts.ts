import type { MemoryCardDraft, MemoryCardType } from '../contracts/index.js';
import { MEMORY_CARD_TYPES } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { MAX_CARD_CONTENT_LENGTH } from './card-analysis.js';

/**
 * A draft checked and cleaned: trimmed content, a known type, trimmed unique tags, and
 * `occurredAt` as a UTC ISO 8601 string.
 */
export interface ValidDraft {
  content: string;
  type: MemoryCardType;
  tags: string[];
  source?: string;
  occurredAt?: string;
}

/**
 * ISO 8601 as `Date.parse` reads it without guessing: a calendar date, or a date and time with
 * `Z` or an offset. A time without a zone would be read in the local zone of whichever process
 * adds it, so it is refused.
 */
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** `value` as a UTC ISO 8601 string, or undefined when it is not an ISO 8601 date. */
export function isoTime(value: string): string | undefined {
  if (!ISO_8601.test(value)) return undefined;
  const time = Date.parse(value);
  if (!Number.isFinite(time)) return undefined;
  // `Date.parse` rolls 2023-02-30 over to March: a day that does not exist is refused.
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined;
  return new Date(time).toISOString();
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
    const { content, type = 'fact', tags = [], source, occurredAt } = draft;
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
    const occurred = occurredAt === undefined ? undefined : isoTime(String(occurredAt));
    if (occurredAt !== undefined && (typeof occurredAt !== 'string' || occurred === undefined)) {
      throw invalid(
        'occurredAt',
        `must be an ISO 8601 date or date-time with a time zone, such as 2023-05-08 or 2023-05-08T13:56:00Z; got ${JSON.stringify(occurredAt)}`,
      );
    }
    const valid: ValidDraft = {
      content: content.trim(),
      type,
      tags: mergeTags(
        tags.map((tag) => tag.trim()).filter((tag) => tag !== ''),
        [],
      ),
    };
    if (source !== undefined) valid.source = source;
    if (occurred !== undefined) valid.occurredAt = occurred;
    return valid;
  });
}
