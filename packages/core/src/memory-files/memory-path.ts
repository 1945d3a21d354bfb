/**
 * The paths of Anthropic's memory tool: `/memories` and what lies below it. A path is checked as
 * the model wrote it, never decoded or resolved, and refused when it could name anything outside
 * the directory by any reading: `..` and `.` segments, percent-encoded characters (`%2e%2e%2f`),
 * backslashes, characters that Unicode normalization turns into dots or slashes (`．．`, `／`),
 * control characters and NUL. The files live in memory cards, not on a disk, so these checks
 * protect whatever later maps a memory path to a file (an export, a sync to disk) as much as the
 * store. Anthropic's guidance: https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool
 * ("Path traversal protection").
 */
import { InvalidArgumentError } from '../errors/index.js';

/** The directory every path of the memory tool lies in. */
export const MEMORY_ROOT = '/memories';

/** Longest memory path accepted, in characters. */
export const MAX_MEMORY_PATH_LENGTH = 255;

/** A checked memory path. */
export interface MemoryPath {
  /** The path without a trailing slash: `/memories` or `/memories/notes/today.md`. */
  path: string;
  /** The names below `/memories`, in order (none for the root). */
  segments: string[];
  /** Whether the model wrote the path with a trailing slash (`/memories/notes/`). */
  trailingSlash: boolean;
}

// C0 and C1 control characters (NUL among them), DEL, and the Unicode line/paragraph separators.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
const PERCENT_ENCODED = /%[0-9a-f]{2}/iu;

/** The path as an error message shows it: control characters escaped, long paths cut. */
export function shownPath(path: string): string {
  const printable = CONTROL_CHARACTER.test(path)
    ? path.replace(new RegExp(CONTROL_CHARACTER, 'gu'), (character) =>
        JSON.stringify(character).slice(1, -1),
      )
    : path;
  return printable.length > 300 ? `${printable.slice(0, 300)}…` : printable;
}

/** Why `segment` could name something outside its directory, or undefined when it cannot. */
function escapingSegment(segment: string): string | undefined {
  if (segment === '.' || segment === '..') return `it has a "${segment}" segment`;
  if (PERCENT_ENCODED.test(segment)) return 'it has a percent-encoded character';
  // NFKC turns full-width and compatibility forms into the ASCII dot and slash.
  const normalized = segment.normalize('NFKC');
  if (normalized === '.' || normalized === '..' || /[/\\]/u.test(normalized)) {
    return 'it has a character that reads as a dot or a slash';
  }
  return undefined;
}

/**
 * Checks `given` as a memory path and returns it without its trailing slash. Throws
 * `InvalidArgumentError` (its `argument` is `argument`) with a message the model can act on.
 */
export function parseMemoryPath(given: unknown, argument = 'path'): MemoryPath {
  const invalid = (message: string) => new InvalidArgumentError({ message, argument });
  if (typeof given !== 'string') {
    throw invalid(`Error: \`${argument}\` must be a string such as ${MEMORY_ROOT}/notes.md.`);
  }
  const shown = shownPath(given);
  const escapes = (reason: string) =>
    invalid(`Error: The path ${shown} would escape the ${MEMORY_ROOT} directory: ${reason}.`);
  if (given.length > MAX_MEMORY_PATH_LENGTH) {
    throw invalid(
      `Error: The path ${shown} is longer than ${MAX_MEMORY_PATH_LENGTH} characters; use a shorter name.`,
    );
  }
  if (CONTROL_CHARACTER.test(given)) {
    throw invalid(`Error: The path ${shown} contains a control character.`);
  }
  if (given.includes('\\')) throw escapes('it has a backslash (memory paths use /)');
  if (given !== MEMORY_ROOT && !given.startsWith(`${MEMORY_ROOT}/`)) {
    throw invalid(
      `Error: The path ${shown} is outside ${MEMORY_ROOT}: every path starts with ${MEMORY_ROOT}/.`,
    );
  }
  const names = given.slice(MEMORY_ROOT.length + 1).split('/');
  const trailingSlash = given.length > MEMORY_ROOT.length && names.at(-1) === '';
  if (trailingSlash) names.pop();
  const segments = given === MEMORY_ROOT ? [] : names;
  for (const segment of segments) {
    if (segment === '') throw invalid(`Error: The path ${shown} has an empty name (//).`);
    const reason = escapingSegment(segment);
    if (reason) throw escapes(reason);
    // The path is written into its card between double quotes.
    if (segment.includes('"')) throw invalid(`Error: The path ${shown} contains a double quote.`);
  }
  return {
    path: segments.length === 0 ? MEMORY_ROOT : `${MEMORY_ROOT}/${segments.join('/')}`,
    segments,
    trailingSlash,
  };
}

/** Whether `path` lies strictly inside the directory `directory` (both canonical). */
export function isInside(path: string, directory: string): boolean {
  return path.startsWith(`${directory}/`);
}

/** The directories above `path` below the root, nearest last: `/memories/a`, `/memories/a/b`. */
export function ancestorsOf(path: string): string[] {
  const segments = path.slice(MEMORY_ROOT.length + 1).split('/');
  return segments
    .slice(0, -1)
    .map((_, index) => `${MEMORY_ROOT}/${segments.slice(0, index + 1).join('/')}`);
}
