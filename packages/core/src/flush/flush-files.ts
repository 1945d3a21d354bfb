import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  MemoryCard,
  MemoryCardDraft,
  MemoryCardType,
  MemoryStore,
  Scope,
} from '../contracts/index.js';
import { MEMORY_CARD_TYPES } from '../contracts/index.js';
import {
  hasErrorCode,
  scopeFolder,
  toStorageError,
  withFileLock,
  writeFileAtomic,
} from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import type { FlushNotes } from './memory-flush.js';

/**
 * The folder that holds a scope's `MEMORY.md` and `memory/`: the root itself for the empty scope
 * (one user's workspace), the scope's own folder otherwise, so users never share
 * memory files.
 */
export function memoryFilesFolder(root: string, scope: Scope): string {
  const empty = !scope.userId && !scope.agentId && !scope.sessionId;
  return empty ? root : scopeFolder(root, scope);
}

async function readOptional(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return '';
    throw toStorageError(error, path, 'read');
  }
}

/** Appends lines that the file does not hold yet, under a cross-process lock, atomically. */
async function appendNewLines(
  path: string,
  header: string,
  lines: readonly string[],
): Promise<number> {
  return withFileLock(path, async () => {
    const current = await readOptional(path);
    const existing = new Set(current.split('\n').map((line) => line.trim()));
    const fresh = [...new Set(lines)].filter((line) => !existing.has(line.trim()));
    if (fresh.length === 0) return 0;
    const base =
      current === '' ? `${header}\n\n` : current.endsWith('\n') ? current : `${current}\n`;
    await writeFileAtomic(path, `${base}${fresh.join('\n')}\n`);
    return fresh.length;
  });
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The heading `MEMORY.md` starts with. */
const MEMORY_FILE_HEADING = '# MEMORY';

/** One bullet of `MEMORY.md`, as `parseMemoryMarkdown` reads it back: `- [type] content`. */
function memoryLine(type: MemoryCardType, content: string): string {
  return `- [${type}] ${oneLine(content)}`;
}

/**
 * The `MEMORY.md` view of memory cards: the heading and one `- [type] content` bullet per card,
 * in the order given, as `writeFlushNotes` writes durable notes, so `parseMemoryMarkdown` reads it
 * back to the same cards. Superseded cards are left out.
 */
export function renderMemoryMarkdown(
  cards: readonly Pick<MemoryCard, 'type' | 'content' | 'supersededBy'>[],
): string {
  const lines = cards
    .filter((card) => card.supersededBy === undefined)
    .map((card) => memoryLine(card.type, card.content));
  return `${MEMORY_FILE_HEADING}\n\n${lines.length === 0 ? 'No memories yet.' : lines.join('\n')}\n`;
}

/**
 * Writes flush notes: durable ones to `MEMORY.md` (as `- [type] content` bullets), daily ones to
 * `memory/YYYY-MM-DD.md`. Lines already present are not written again. Returns how many lines were
 * added to each file.
 */
export async function writeFlushNotes(options: {
  root: string;
  scope: Scope;
  notes: FlushNotes;
  /** @default new Date() */
  date?: Date;
}): Promise<{ memoryLines: number; dailyLines: number }> {
  const {
    root,
    scope,
    notes,
    date = new Date(),
  } = requireOptions(options, 'writeFlushNotes', {
    root: { expected: 'the memory files folder, a string', type: 'string' },
    scope: { expected: 'a Scope' },
    notes: { expected: 'the FlushNotes to write' },
  });
  const folder = memoryFilesFolder(root, scope);
  await mkdir(join(folder, 'memory'), { recursive: true }).catch((error: unknown) => {
    throw toStorageError(error, folder, 'create');
  });
  const day = date.toISOString().slice(0, 10);
  const memoryLines = await appendNewLines(
    join(folder, 'MEMORY.md'),
    `${MEMORY_FILE_HEADING}\n\nDurable notes: decisions, preferences and constraints.`,
    notes.longTerm.map((card) => memoryLine(card.type ?? 'fact', card.content)),
  );
  const dailyLines = await appendNewLines(
    join(folder, 'memory', `${day}.md`),
    `# ${day}`,
    notes.daily.map((note) => `- ${oneLine(note)}`),
  );
  return { memoryLines, dailyLines };
}

const BULLET = /^\s*[-*]\s+(?:\[([a-z]+)\]\s+)?(.+?)\s*$/;

/** Parses the bullets of a memory Markdown file into card drafts (hand-written bullets included). */
export function parseMemoryMarkdown(text: string, source: string): MemoryCardDraft[] {
  const drafts: MemoryCardDraft[] = [];
  for (const line of text.split('\n')) {
    const match = BULLET.exec(line);
    if (!match) continue;
    const type = MEMORY_CARD_TYPES.includes(match[1] as MemoryCardType)
      ? (match[1] as MemoryCardType)
      : 'fact';
    drafts.push({ content: match[2]!, type, source });
  }
  return drafts;
}

/**
 * Indexes `MEMORY.md` and `memory/*.md` of a scope into the card store (the store de-duplicates),
 * so notes written by a flush or by hand are found by search like any other memory.
 */
export async function importMemoryFiles(options: {
  root: string;
  scope: Scope;
  store: MemoryStore;
}): Promise<number> {
  const { root, scope, store } = requireOptions(options, 'importMemoryFiles', {
    root: { expected: 'the memory files folder, a string', type: 'string' },
    scope: { expected: 'a Scope' },
    store: {
      expected: 'a MemoryStore',
      methods: ['add'],
    },
  });
  const folder = memoryFilesFolder(root, scope);
  const drafts = parseMemoryMarkdown(await readOptional(join(folder, 'MEMORY.md')), 'MEMORY.md');
  let daily: string[] = [];
  try {
    daily = (await readdir(join(folder, 'memory')))
      .filter((name) => /^\d{4}-\d{2}-\d{2}\.md$/.test(name))
      .sort();
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) throw toStorageError(error, join(folder, 'memory'), 'list');
  }
  for (const name of daily) {
    drafts.push(
      ...parseMemoryMarkdown(await readOptional(join(folder, 'memory', name)), `memory/${name}`),
    );
  }
  if (drafts.length === 0) return 0;
  return (await store.add(scope, drafts)).length;
}
