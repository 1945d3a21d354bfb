import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { SystemMessage, TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';
import {
  trimBootstrapContent,
  validateCharLimit,
  validateRatios,
} from './trim-bootstrap-content.js';

/** The workspace instruction files read by default, in this order. */
export const DEFAULT_BOOTSTRAP_FILES: readonly string[] = [
  'AGENTS.md',
  'SOUL.md',
  'USER.md',
  'TOOLS.md',
  'IDENTITY.md',
];

/** Placed between two files in the combined text. */
export const BOOTSTRAP_SEPARATOR = '\n\n---\n\n';

export interface LoadBootstrapFilesOptions {
  /** The workspace folder the file names are relative to. */
  root: string;
  /** Files to load, in priority order (earlier files get the budget first). @default DEFAULT_BOOTSTRAP_FILES */
  files?: readonly string[];
  /** Characters of content kept per file (the heading is not counted). @default 20000 */
  maxCharsPerFile?: number;
  /** Characters of the whole combined `text`, headings and separators included. @default 24000 */
  maxTotalChars?: number;
  /** Share of a truncated file kept from its start. @default 0.7 */
  headRatio?: number;
  /** Share of a truncated file kept from its end. @default 0.2 */
  tailRatio?: number;
  /** When less than this many characters are left for a file's content, it and every later file are skipped. @default 64 */
  minRemainingChars?: number;
  /** Counts `estimatedTokens` exactly; without it a conservative character estimate is used. @default undefined */
  counter?: TokenCounter;
}

export interface BootstrapFileReport {
  name: string;
  /** Characters of the file on disk. */
  originalChars: number;
  /** Characters of the file's content in `text` (marker included when truncated). */
  includedChars: number;
  truncated: boolean;
}

export interface SkippedBootstrapFile {
  name: string;
  /** `missing`: no such file. `unreadable`: reading failed (see `error`). `budget`: not enough budget left. */
  reason: 'missing' | 'unreadable' | 'budget';
  /** Why reading failed, for `unreadable`. */
  error?: string;
}

export interface BootstrapResult {
  /** `## <name>` sections joined by `---` rules; at most `maxTotalChars` characters. */
  text: string;
  /** The files included in `text`, in order. */
  files: BootstrapFileReport[];
  /** The files left out, in order, with the reason. */
  skipped: SkippedBootstrapFile[];
  /** Tokens of `text`: exact with a `counter`, otherwise a conservative estimate. */
  estimatedTokens: number;
}

/**
 * Loads workspace instruction files (AGENTS.md, ...) under a strict character budget, so a
 * large file can never crowd the conversation out of the window: each file is cut to
 * `maxCharsPerFile` (head + tail with a marker), the combined text never exceeds
 * `maxTotalChars`, and files that no longer fit are skipped. Missing files are skipped and
 * unreadable ones reported; neither throws.
 */
export async function loadBootstrapFiles(
  options: LoadBootstrapFilesOptions,
): Promise<BootstrapResult> {
  const {
    root,
    files = DEFAULT_BOOTSTRAP_FILES,
    maxCharsPerFile = 20_000,
    maxTotalChars = 24_000,
    headRatio = 0.7,
    tailRatio = 0.2,
    minRemainingChars = 64,
    counter,
  } = requireOptions(options, 'loadBootstrapFiles', {
    root: { expected: 'the folder to read, a string', type: 'string' },
  });
  validateCharLimit(maxCharsPerFile, 'maxCharsPerFile');
  validateCharLimit(maxTotalChars, 'maxTotalChars');
  validateCharLimit(minRemainingChars, 'minRemainingChars');
  validateRatios(headRatio, tailRatio);
  const paths = files.map((name) => resolveInside(root, name));

  const sections: string[] = [];
  const included: BootstrapFileReport[] = [];
  const skipped: SkippedBootstrapFile[] = [];
  let used = 0;
  let exhausted = false;

  for (const [position, name] of files.entries()) {
    if (exhausted) {
      skipped.push({ name, reason: 'budget' });
      continue;
    }
    const heading = `${sections.length > 0 ? BOOTSTRAP_SEPARATOR : ''}${sectionHeading(name)}`;
    const contentBudget = Math.min(maxCharsPerFile, maxTotalChars - used - heading.length);
    if (contentBudget < minRemainingChars || contentBudget <= 0) {
      exhausted = true;
      skipped.push({ name, reason: 'budget' });
      continue;
    }

    const read = await readText(paths[position]!);
    if (read.kind !== 'ok') {
      skipped.push(
        read.kind === 'missing'
          ? { name, reason: 'missing' }
          : { name, reason: 'unreadable', error: read.error },
      );
      continue;
    }

    const content = trimBootstrapContent(read.text, name, contentBudget, { headRatio, tailRatio });
    if (content.length === 0 && read.text.length > 0) {
      exhausted = true;
      skipped.push({ name, reason: 'budget' });
      continue;
    }
    sections.push(heading + content);
    used += heading.length + content.length;
    included.push({
      name,
      originalChars: read.text.length,
      includedChars: content.length,
      truncated: content !== read.text,
    });
  }

  const text = sections.join('');
  return {
    text,
    files: included,
    skipped,
    estimatedTokens: counter ? counter.countText(text) : estimateTokens(text),
  };
}

/** The system message that carries the loaded files (`ctxmem.kind = 'bootstrap'`). */
export function bootstrapMessage(result: Pick<BootstrapResult, 'text'>): SystemMessage {
  return { role: 'system', content: result.text, ctxmem: { kind: 'bootstrap' } };
}

/**
 * Conservative token estimate without a tokenizer: about 3 characters per token for ASCII text
 * (real tokenizers average closer to 4) and one token per other character (CJK text runs at
 * roughly one token per character or more).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const character of text) {
    if (character.charCodeAt(0) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3) + other;
}

function sectionHeading(name: string): string {
  return `## ${name}\n\n`;
}

type ReadOutcome =
  | { kind: 'ok'; text: string }
  | { kind: 'missing' }
  | { kind: 'unreadable'; error: string };

async function readText(path: string): Promise<ReadOutcome> {
  try {
    const text = await readFile(path, 'utf8');
    // A byte-order mark is invisible in editors and wastes a character of budget.
    return { kind: 'ok', text: text.startsWith('\uFEFF') ? text.slice(1) : text };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unreadable', error: error instanceof Error ? error.message : String(error) };
  }
}

// File names come from configuration, but a name like `../secrets` must still not read outside
// the workspace.
function resolveInside(root: string, name: string): string {
  const path = resolve(root, name);
  const fromRoot = relative(resolve(root), path);
  if (
    name.length === 0 ||
    fromRoot === '' ||
    fromRoot === '..' ||
    fromRoot.startsWith(`..${sep}`) ||
    isAbsolute(fromRoot)
  ) {
    throw new InvalidArgumentError({
      message: `bootstrap file "${name}" is not inside ${root}`,
      argument: 'files',
    });
  }
  return path;
}
