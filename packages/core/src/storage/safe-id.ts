import { InvalidIdError } from '../errors/index.js';

/** The longest id accepted anywhere an id reaches a file path or key. */
export const MAX_ID_LENGTH = 200;

// C0 and C1 control characters, DEL, and the Unicode line/paragraph separators.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
const WINDOWS_DRIVE = /^[A-Za-z]:/;

function display(id: string): string {
  const printable = id.replace(CONTROL_CHARACTER, '?');
  return printable.length > 40 ? `${printable.slice(0, 40)}…` : printable;
}

/** Why `id` is unsafe to use in a file path or key, or `undefined` when it is safe. */
function unsafeIdReason(id: unknown): string | undefined {
  if (typeof id !== 'string') return `expected a string, got ${typeof id}`;
  if (id.length === 0) return 'it is empty';
  if (id.length > MAX_ID_LENGTH) return `it is longer than ${MAX_ID_LENGTH} characters`;
  if (id.includes('/') || id.includes('\\')) return 'it contains a path separator';
  if (id.includes('..')) return 'it contains ".."';
  if (id === '.') return 'it is "."';
  if (CONTROL_CHARACTER.test(id)) return 'it contains a control character';
  if (WINDOWS_DRIVE.test(id)) return 'it looks like an absolute path';
  return undefined;
}

/**
 * Throws `InvalidIdError` unless `id` is safe to use in a file path or a key: a non-empty string of
 * at most 200 characters without `/`, `\`, `..`, NUL or other control characters, and not an
 * absolute or drive-relative path. `label` names the id in the message (`userId`, `card id`, ...).
 */
export function assertSafeId(id: unknown, label = 'id'): asserts id is string {
  const reason = unsafeIdReason(id);
  if (reason === undefined) return;
  const shown = typeof id === 'string' ? display(id) : String(id);
  throw new InvalidIdError({
    message: `Invalid ${label} ${typeof id === 'string' ? JSON.stringify(shown) : shown}: ${reason}.`,
    id: shown,
  });
}

/** True when `assertSafeId` would accept `id`. */
export function isSafeId(id: unknown): id is string {
  return unsafeIdReason(id) === undefined;
}
