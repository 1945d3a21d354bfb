/**
 * How a memory file is kept in a `MemoryStore`: one card per file, tagged `memory-file`, whose
 * content is the file's text inside a one-line header and a closing line:
 *
 * ```
 * <memory_file path="/memories/notes.md" revision="3" write="5f0c1e9a2b7d4c38">
 * …the text, exactly as written…
 * </memory_file>
 * ```
 *
 * - **Search finds it**: the text is the card's content, so memory search and memory injection
 *   find a file like any other card, and show where it came from.
 * - **Exact**: a store trims a card's content; the header and the closing line keep the text's own
 *   leading and trailing whitespace, and an empty file, intact.
 * - **Never merged**: a store merges a draft into an existing card when the contents are equal
 *   or nearly so (`mergeCards`). The `write` token, random per write, is a word no other card has,
 *   so two files with the same text, or two versions of one file, are never taken for duplicates.
 * - **Revisions**: an edit adds the new version's card before it removes the old one, so a reader
 *   (or a crash) between the two sees both; the higher revision is the file, and the next write of
 *   the path removes every older card of it.
 */
import { randomBytes } from 'node:crypto';
import type { MemoryCard, MemoryCardDraft } from '../contracts/index.js';
import { MAX_CARD_CONTENT_LENGTH } from '../memory/index.js';
import { MAX_MEMORY_PATH_LENGTH, parseMemoryPath } from './memory-path.js';

/** The tag of every card that holds a memory file. */
export const MEMORY_FILE_TAG = 'memory-file';

const HEADER =
  /^<memory_file path="([^"\n]+)" revision="([1-9][0-9]{0,14})" write="([0-9a-f]{16})">\n/u;
const FOOTER = '\n</memory_file>';

/** The header and closing line of the longest path and revision, in characters. */
const LONGEST_ENVELOPE =
  `<memory_file path="" revision="" write="0123456789abcdef">\n${FOOTER}`.length +
  MAX_MEMORY_PATH_LENGTH +
  15;

/**
 * Most characters (UTF-16 code units, as `String.length` counts them) a memory file holds: what is
 * left of a card's 10,000 once the header of the longest path is written, rounded down.
 */
export const MAX_MEMORY_FILE_CHARACTERS =
  Math.floor((MAX_CARD_CONTENT_LENGTH - LONGEST_ENVELOPE) / 100) * 100;

/** One file as its cards hold it. */
export interface StoredMemoryFile {
  path: string;
  text: string;
  /** The revision of the card that holds the text: the highest of the path. */
  revision: number;
  /** Every current card of the path: the one that holds the text, and older ones not yet removed. */
  cardIds: string[];
}

/** The draft of the card that holds revision `revision` of the file at `path`. */
export function memoryFileDraft(path: string, revision: number, text: string): MemoryCardDraft {
  const write = randomBytes(8).toString('hex');
  return {
    content: `<memory_file path="${path}" revision="${revision}" write="${write}">\n${text}${FOOTER}`,
    type: 'fact',
    tags: [MEMORY_FILE_TAG],
    source: path,
  };
}

/** The file a card holds, or undefined when the card holds none (any other card of the scope). */
export function readMemoryFileCard(
  card: MemoryCard,
): { path: string; revision: number; text: string } | undefined {
  if (!card.tags.includes(MEMORY_FILE_TAG) || !card.content.endsWith(FOOTER)) return undefined;
  const header = HEADER.exec(card.content);
  if (!header) return undefined;
  const [whole, path, revision] = header as unknown as [string, string, string];
  // Only a path the tool itself would accept: a card written by hand with the tag is ignored.
  try {
    if (parseMemoryPath(path).path !== path) return undefined;
  } catch {
    return undefined;
  }
  return {
    path,
    revision: Number(revision),
    text: card.content.slice(whole.length, card.content.length - FOOTER.length),
  };
}

/**
 * The files of a scope, by path, from its cards (in the order the store lists them). Of two cards
 * of one path, the higher revision holds the file; of equal revisions, the one listed later.
 */
export function memoryFilesOf(cards: readonly MemoryCard[]): Map<string, StoredMemoryFile> {
  const files = new Map<string, StoredMemoryFile>();
  for (const card of cards) {
    const file = readMemoryFileCard(card);
    if (!file) continue;
    const known = files.get(file.path);
    if (!known) {
      files.set(file.path, { ...file, cardIds: [card.id] });
      continue;
    }
    known.cardIds.push(card.id);
    if (file.revision >= known.revision) {
      known.revision = file.revision;
      known.text = file.text;
    }
  }
  return files;
}
