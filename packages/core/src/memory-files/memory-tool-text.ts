/**
 * The result texts of Anthropic's memory tool, as its documentation gives them ("Tool commands",
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool) and its SDK's
 * reference implementation writes them (`BetaLocalFilesystemMemoryTool` of `@anthropic-ai/sdk`,
 * `src/tools/memory/node.ts`): the directory listing with human-readable sizes, the file view with
 * 6-wide line numbers and a tab, the edit snippet. Pure functions of what they are given.
 */
import { isInside } from './memory-path.js';

/** Lines are numbered 6 characters wide, right-aligned, then a tab. */
const LINE_NUMBER_WIDTH = 6;

/** A file's size as the listing shows it: `0B`, `512B`, `1.5K`, `2M` (powers of 1024). */
export function formatSize(bytes: number): string {
  if (bytes === 0) return '0B';
  const units = ['B', 'K', 'M', 'G'];
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), units.length - 1);
  const size = bytes / 1024 ** exponent;
  return `${Number.isInteger(size) ? String(size) : size.toFixed(1)}${units[exponent]}`;
}

/** Size in bytes of a file's text, as UTF-8. */
export function byteSize(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** `lines` numbered from `first`: `     1\tfirst line`. */
export function numberedLines(lines: readonly string[], first: number): string {
  return lines
    .map((line, index) => `${String(first + index).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`)
    .join('\n');
}

/** Lines as the tool counts them: split at every `\n`, so a final newline ends in an empty line. */
export function linesOf(text: string): string[] {
  return text.split('\n');
}

/** Names the listing leaves out, with everything below them. */
function hidden(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

interface ListedEntry {
  name: string;
  size: number;
  /** Entries of a directory; undefined for a file. */
  children?: Map<string, ListedEntry>;
}

/**
 * The listing of `directory` (canonical) for `view`: the header, the directory's own size and
 * path, then what it holds up to 2 levels deep, by name, directories ending in `/`, hidden items
 * and `node_modules` left out. A directory's size is the size of every file below it. `shown` is
 * the path as the model wrote it, for the header.
 */
export function directoryListing(
  shown: string,
  directory: string,
  files: ReadonlyArray<{ path: string; text: string }>,
): string {
  const root: ListedEntry = { name: directory, size: 0, children: new Map() };
  for (const file of files) {
    if (!isInside(file.path, directory)) continue;
    const size = byteSize(file.text);
    root.size += size;
    const names = file.path.slice(directory.length + 1).split('/');
    let current = root;
    for (const [depth, name] of names.entries()) {
      if (depth >= 2 || hidden(name)) break;
      const isFile = depth === names.length - 1;
      let entry = current.children!.get(name);
      if (!entry) {
        entry = isFile ? { name, size: 0 } : { name, size: 0, children: new Map() };
        current.children!.set(name, entry);
      }
      entry.size += size;
      current = entry;
      if (isFile) break;
    }
  }
  const lines = [`${formatSize(root.size)}\t${directory}`];
  const walk = (entry: ListedEntry, prefix: string) => {
    const names = [...entry.children!.keys()].sort();
    for (const name of names) {
      const child = entry.children!.get(name)!;
      const path = `${prefix}/${name}`;
      lines.push(`${formatSize(child.size)}\t${path}${child.children ? '/' : ''}`);
      if (child.children) walk(child, path);
    }
  };
  walk(root, directory);
  return (
    `Here're the files and directories up to 2 levels deep in ${shown}, excluding hidden items ` +
    `and node_modules:\n${lines.join('\n')}`
  );
}

/** The view of a file: the header, then the lines from `first` (1-based) numbered. */
export function fileView(shown: string, lines: readonly string[], first: number): string {
  return `Here's the content of ${shown} with line numbers:\n${numberedLines(lines, first)}`;
}

/** How many lines of context the edit snippet shows before and after the change. */
const SNIPPET_CONTEXT_LINES = 2;

/**
 * The result of a `str_replace`: the SDK's sentence, then the edited lines with
 * `SNIPPET_CONTEXT_LINES` around them. `firstLine` and `lastLine` (1-based) span the new text.
 */
export function replacementResult(text: string, firstLine: number, lastLine: number): string {
  const lines = linesOf(text);
  const start = Math.max(1, firstLine - SNIPPET_CONTEXT_LINES);
  const end = Math.min(lines.length, lastLine + SNIPPET_CONTEXT_LINES);
  return (
    'The memory file has been edited. Here is the snippet showing the change (with line ' +
    `numbers):\n${numberedLines(lines.slice(start - 1, end), start)}`
  );
}
