/**
 * The storage behind Anthropic's memory tool (`memory_20250818`), on any `MemoryStore`: the six
 * commands with the inputs and result texts its documentation gives
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool, "Tool commands"),
 * scoped like every store call, one writer at a time per scope, paths outside `/memories`
 * refused. Each file is a memory card (see `memory-file-card.ts`), so memory search finds what
 * the model wrote.
 *
 * Errors are typed, and their message is the text the model is to be shown, as the
 * documentation words it where it words it: `NotFoundError` (no such path), `AlreadyExistsError`
 * (a `create` or the destination of a `rename` exists), `InvalidArgumentError` (a path outside
 * `/memories`, text not found or not unique, a line out of range, a file too large),
 * `StorageError` (the store failed, or another writer held the files too long). An adapter returns
 * that message as the tool's error result.
 *
 * Cost: every command lists the scope's cards once (`MemoryStore.list`), so it grows with the
 * scope's card count, not only with its files; a write adds one card per changed file and removes
 * the old ones.
 */
import type { LeaseStore, MemoryStore, Scope, ToolDefinition } from '../contracts/index.js';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  NotFoundError,
  StorageError,
} from '../errors/index.js';
import { requireOptions } from '../validation/index.js';
import {
  MAX_MEMORY_FILE_CHARACTERS,
  memoryFileDraft,
  memoryFilesOf,
  type StoredMemoryFile,
} from './memory-file-card.js';
import { type HeldCheck, withMemoryFilesLock } from './memory-files-lock.js';
import {
  ancestorsOf,
  isInside,
  MAX_MEMORY_PATH_LENGTH,
  MEMORY_ROOT,
  type MemoryPath,
  parseMemoryPath,
} from './memory-path.js';
import {
  type MemoryToolCommand,
  memoryToolInputSchema,
  parseMemoryToolCommand,
} from './memory-tool-command.js';
import { directoryListing, fileView, linesOf, replacementResult } from './memory-tool-text.js';

export interface MemoryToolBackendOptions {
  /**
   * Where the files live: each is a card of this store, tagged `memory-file`, in the scope of the
   * call. Any store: the file store, `@ctxmem/postgres`, `@ctxmem/redis`, in memory.
   */
  store: MemoryStore;
  /**
   * Leases every instance of the app shares (`stores.leases` of `@ctxmem/postgres` or
   * `@ctxmem/redis`), so that edits of one scope from several processes never lose one another.
   * @default none: the file store then locks with a file beside the scope's cards; any other store
   * only within this process
   */
  leases?: LeaseStore;
  /**
   * Most characters a file may hold; a command that would make a file larger fails with
   * `InvalidArgumentError`. At most `MAX_MEMORY_FILE_CHARACTERS` (a card's limit).
   * @default MAX_MEMORY_FILE_CHARACTERS (9,600)
   */
  maxFileCharacters?: number;
  /**
   * How long a write waits for another writer of the same scope before it fails with
   * `StorageError`.
   * @default 30000
   */
  lockTimeoutMs?: number;
  /**
   * How long the lease a write takes lasts (with `leases`): a writer that died blocks the scope's
   * files this long at most. A write that has not reached the store within half of it gives up.
   * @default 15000
   */
  leaseMs?: number;
}

/** The memory tool's backend: a tool definition named `memory` whose result is the text for the model. */
export type MemoryToolBackend = ToolDefinition<MemoryToolCommand, string>;

const DESCRIPTION =
  'Your memory directory, /memories, kept between conversations. Commands: view (a directory ' +
  'listing, or a file with line numbers), create (a new file), str_replace (replace text that ' +
  'occurs once), insert (text after a line; 0 is the top), delete (a file or directory) and ' +
  'rename (a file or directory). Check it before you start a task, and record progress and what ' +
  'you learn in it.';

/** What a write changes: files to write (new text at a path) and paths to delete. */
interface FileChanges {
  write: Array<{ path: string; text: string }>;
  remove: string[];
}

function checkText(text: string, argument: string): void {
  if (text.includes('\u0000')) {
    throw new InvalidArgumentError({
      message: `Error: \`${argument}\` contains a NUL character, which a memory file cannot hold.`,
      argument,
    });
  }
  if (!text.isWellFormed()) {
    throw new InvalidArgumentError({
      message: `Error: \`${argument}\` is not well-formed Unicode (it has a lone surrogate).`,
      argument,
    });
  }
}

function checkOptions({
  maxFileCharacters,
  lockTimeoutMs,
  leaseMs,
}: Required<Omit<MemoryToolBackendOptions, 'store' | 'leases'>>): void {
  const wholeIn = (value: number, name: string, minimum: number, maximum: number) => {
    if (!Number.isInteger(value) || value < minimum || value > maximum) {
      throw new InvalidArgumentError({
        message: `${name} must be a whole number from ${minimum} to ${maximum}; got ${String(value)}.`,
        argument: name,
      });
    }
  };
  wholeIn(maxFileCharacters, 'maxFileCharacters', 1, MAX_MEMORY_FILE_CHARACTERS);
  wholeIn(lockTimeoutMs, 'lockTimeoutMs', 0, 3_600_000);
  wholeIn(leaseMs, 'leaseMs', 100, 3_600_000);
}

/** Whether anything lies below `directory`. The root always exists. */
function isDirectory(files: ReadonlyMap<string, StoredMemoryFile>, directory: string): boolean {
  if (directory === MEMORY_ROOT) return true;
  for (const path of files.keys()) if (isInside(path, directory)) return true;
  return false;
}

/**
 * Every place where a text occurs, overlapping ones included (in `aaa`, `aa` occurs twice): the
 * replacement must be unambiguous.
 */
function occurrencesOf(text: string, search: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + 1)) {
    found.push(at);
  }
  return found;
}

/** 1-based line of the character at `offset`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
  }
  return line;
}

/**
 * The backend of Anthropic's memory tool over a ctxmem `MemoryStore`, as a framework-neutral
 * tool definition named `memory`: `execute(command, { scope })` resolves to the result text the
 * model is shown, or rejects with a typed error whose message is the error text. The AI SDK and
 * LangChain adapters wire it to the provider tool (`@ctxmem/ai-sdk`'s `memoryToolBackend`,
 * `@ctxmem/langchain`'s `anthropicMemoryTool`); with Anthropic's SDK, call `execute` from the
 * memory tool's handlers.
 *
 * @example
 * const memory = createMemoryToolBackend({ store: createFileMemoryStore() });
 * await memory.execute({ command: 'create', path: '/memories/notes.md', file_text: 'Hello\n' }, { scope });
 */
export function createMemoryToolBackend(options: MemoryToolBackendOptions): MemoryToolBackend {
  const {
    store,
    leases,
    maxFileCharacters = MAX_MEMORY_FILE_CHARACTERS,
    lockTimeoutMs = 30_000,
    leaseMs = 15_000,
  } = requireOptions(options, 'createMemoryToolBackend');
  checkOptions({ maxFileCharacters, lockTimeoutMs, leaseMs });
  const lockOptions = { leases, leaseMs, lockTimeoutMs };

  async function readFiles(scope: Scope): Promise<Map<string, StoredMemoryFile>> {
    return memoryFilesOf(await store.list(scope));
  }

  function checkSize(path: string, text: string, argument: string): void {
    if (text.length > maxFileCharacters) {
      throw new InvalidArgumentError({
        message:
          `Error: ${path} would hold ${text.length} characters; a memory file holds at most ` +
          `${maxFileCharacters}. Keep it shorter, or split it into several files.`,
        argument,
      });
    }
  }

  /**
   * The one write path: under the scope's lock, reads the files, lets `plan` decide the changes
   * (it throws for bad input, before anything is written), adds the new versions, then removes
   * the old cards of every path written or deleted.
   */
  async function change(
    scope: Scope,
    plan: (files: ReadonlyMap<string, StoredMemoryFile>) => FileChanges & { result: string },
  ): Promise<string> {
    return withMemoryFilesLock(store, scope, lockOptions, async (held: HeldCheck) => {
      const files = await readFiles(scope);
      const { write, remove, result } = plan(files);
      const drafts = write.map(({ path, text }) =>
        memoryFileDraft(path, (files.get(path)?.revision ?? 0) + 1, text),
      );
      held();
      if (drafts.length > 0) {
        const known = new Set([...files.values()].flatMap((file) => file.cardIds));
        const added = await store.add(scope, drafts);
        drafts.forEach((draft, index) => {
          const card = added[index];
          // The write token makes every draft unique; a store that merged one anyway lost it.
          if (!card || card.content !== draft.content || known.has(card.id)) {
            throw new StorageError({
              message: `Error: The store merged the new version of ${draft.source} into another card.`,
              path: draft.source,
            });
          }
        });
      }
      const stale = [...write.map(({ path }) => path), ...remove].flatMap(
        (path) => files.get(path)?.cardIds ?? [],
      );
      if (stale.length > 0) await store.remove(scope, stale);
      return result;
    });
  }

  /** The file at `path`, or `NotFoundError` with `message` (directories are not files). */
  function fileAt(
    files: ReadonlyMap<string, StoredMemoryFile>,
    path: MemoryPath,
    message: string,
  ): StoredMemoryFile {
    const file = path.trailingSlash ? undefined : files.get(path.path);
    if (!file) throw new NotFoundError({ message, id: path.path });
    return file;
  }

  /** Refuses a new file or directory at `path` where it cannot be: a file above it. */
  function checkPlace(
    files: ReadonlyMap<string, StoredMemoryFile>,
    path: string,
    argument: string,
  ): void {
    for (const ancestor of ancestorsOf(path)) {
      if (files.has(ancestor)) {
        throw new InvalidArgumentError({
          message: `Error: ${ancestor} is a file, so ${path} cannot be created inside it.`,
          argument,
        });
      }
    }
  }

  async function view(
    scope: Scope,
    given: string,
    range: [number, number] | undefined,
  ): Promise<string> {
    const path = parseMemoryPath(given, 'path');
    const files = await readFiles(scope);
    const file = path.trailingSlash ? undefined : files.get(path.path);
    if (file) return viewFile(given, file.text, range);
    if (!isDirectory(files, path.path)) {
      throw new NotFoundError({
        message: `The path ${given} does not exist. Please provide a valid path.`,
        id: path.path,
      });
    }
    if (range !== undefined) {
      throw new InvalidArgumentError({
        message: 'The `view_range` parameter is not allowed when `path` points to a directory.',
        argument: 'view_range',
      });
    }
    return directoryListing(given, path.path, [...files.values()]);
  }

  function viewFile(given: string, text: string, range: [number, number] | undefined): string {
    const lines = linesOf(text);
    if (range === undefined) return fileView(given, lines, 1);
    // The texts of Anthropic's text editor tool, whose error handling the memory tool shares.
    const [first, last] = range;
    const invalid = (detail: string) =>
      new InvalidArgumentError({
        message: `Invalid \`view_range\`: [${first}, ${last}]. ${detail}`,
        argument: 'view_range',
      });
    if (!Number.isInteger(first) || !Number.isInteger(last)) {
      throw invalid('It should be a list of two whole numbers.');
    }
    if (first < 1 || first > lines.length) {
      throw invalid(
        `Its first element \`${first}\` should be within the range of lines of the file: [1, ${lines.length}]`,
      );
    }
    if (last !== -1 && last < first) {
      throw invalid(
        `Its second element \`${last}\` should be larger or equal than its first \`${first}\``,
      );
    }
    if (last > lines.length) {
      throw invalid(
        `Its second element \`${last}\` should be smaller than the number of lines in the file: \`${lines.length}\``,
      );
    }
    return fileView(given, lines.slice(first - 1, last === -1 ? undefined : last), first);
  }

  function create(scope: Scope, given: string, text: string): Promise<string> {
    const path = parseMemoryPath(given, 'path');
    checkText(text, 'file_text');
    if (path.trailingSlash) {
      throw new InvalidArgumentError({
        message: `Error: The path ${given} ends with /, which names a directory; a file's path does not.`,
        argument: 'path',
      });
    }
    checkSize(given, text, 'file_text');
    return change(scope, (files) => {
      if (files.has(path.path)) {
        throw new AlreadyExistsError({
          message: `Error: File ${given} already exists`,
          id: path.path,
        });
      }
      if (isDirectory(files, path.path)) {
        throw new AlreadyExistsError({
          message: `Error: ${given} already exists as a directory`,
          id: path.path,
        });
      }
      checkPlace(files, path.path, 'path');
      return {
        write: [{ path: path.path, text }],
        remove: [],
        result: `File created successfully at: ${given}`,
      };
    });
  }

  function replace(scope: Scope, given: string, search: string, replacement = ''): Promise<string> {
    const path = parseMemoryPath(given, 'path');
    checkText(replacement, 'new_str');
    return change(scope, (files) => {
      const file = fileAt(
        files,
        path,
        `Error: The path ${given} does not exist. Please provide a valid path.`,
      );
      if (search === '') {
        throw new InvalidArgumentError({
          message: `No replacement was performed: old_str is empty. Give the exact text to replace in ${given}.`,
          argument: 'old_str',
        });
      }
      const found = occurrencesOf(file.text, search);
      if (found.length === 0) {
        throw new InvalidArgumentError({
          message: `No replacement was performed, old_str \`${search}\` did not appear verbatim in ${given}.`,
          argument: 'old_str',
        });
      }
      if (found.length > 1) {
        const lines = [...new Set(found.map((offset) => lineAt(file.text, offset)))];
        throw new InvalidArgumentError({
          message: `No replacement was performed. Multiple occurrences of old_str \`${search}\` in lines: ${lines.join(', ')}. Please ensure it is unique`,
          argument: 'old_str',
        });
      }
      const at = found[0]!;
      // Sliced, not String.replace: `$&` and `$1` in new_str are text, not patterns.
      const text = file.text.slice(0, at) + replacement + file.text.slice(at + search.length);
      checkSize(given, text, 'new_str');
      const firstLine = lineAt(text, at);
      const lastLine = firstLine + linesOf(replacement).length - 1;
      return {
        write: [{ path: path.path, text }],
        remove: [],
        result: replacementResult(text, firstLine, lastLine),
      };
    });
  }

  function insert(scope: Scope, given: string, line: number, inserted: string): Promise<string> {
    const path = parseMemoryPath(given, 'path');
    checkText(inserted, 'insert_text');
    return change(scope, (files) => {
      const file = fileAt(files, path, `Error: The path ${given} does not exist`);
      const lines = linesOf(file.text);
      if (!Number.isInteger(line) || line < 0 || line > lines.length) {
        throw new InvalidArgumentError({
          message: `Error: Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines.length}]`,
          argument: 'insert_line',
        });
      }
      // One final newline ends the inserted text; the line break after it is the file's own.
      lines.splice(line, 0, inserted.replace(/\n$/u, ''));
      const text = lines.join('\n');
      checkSize(given, text, 'insert_text');
      return {
        write: [{ path: path.path, text }],
        remove: [],
        result: `The file ${given} has been edited.`,
      };
    });
  }

  function remove(scope: Scope, given: string): Promise<string> {
    const path = parseMemoryPath(given, 'path');
    if (path.path === MEMORY_ROOT) {
      throw new InvalidArgumentError({
        message: `Error: Cannot delete the ${MEMORY_ROOT} directory itself`,
        argument: 'path',
      });
    }
    return change(scope, (files) => {
      const file = path.trailingSlash ? undefined : files.get(path.path);
      const removed = file
        ? [path.path]
        : [...files.keys()].filter((stored) => isInside(stored, path.path));
      if (removed.length === 0) {
        throw new NotFoundError({
          message: `Error: The path ${given} does not exist`,
          id: path.path,
        });
      }
      return { write: [], remove: removed, result: `Successfully deleted ${given}` };
    });
  }

  function rename(scope: Scope, givenOld: string, givenNew: string): Promise<string> {
    const from = parseMemoryPath(givenOld, 'old_path');
    const to = parseMemoryPath(givenNew, 'new_path');
    if (from.path === MEMORY_ROOT) {
      throw new InvalidArgumentError({
        message: `Error: Cannot rename the ${MEMORY_ROOT} directory itself`,
        argument: 'old_path',
      });
    }
    return change(scope, (files) => {
      const file = from.trailingSlash ? undefined : files.get(from.path);
      const moved = file
        ? [file]
        : [...files.values()].filter((stored) => isInside(stored.path, from.path));
      if (moved.length === 0) {
        throw new NotFoundError({
          message: `Error: The path ${givenOld} does not exist`,
          id: from.path,
        });
      }
      if (files.has(to.path) || isDirectory(files, to.path)) {
        throw new AlreadyExistsError({
          message: `Error: The destination ${givenNew} already exists`,
          id: to.path,
        });
      }
      if (isInside(to.path, from.path)) {
        throw new InvalidArgumentError({
          message: `Error: Cannot move ${givenOld} into itself (${givenNew}).`,
          argument: 'new_path',
        });
      }
      checkPlace(files, to.path, 'new_path');
      const write = moved.map(({ path, text }) => ({
        path: to.path + path.slice(from.path.length),
        text,
      }));
      const tooLong = write.find(({ path }) => path.length > MAX_MEMORY_PATH_LENGTH);
      if (tooLong) {
        throw new InvalidArgumentError({
          message: `Error: Renaming ${givenOld} to ${givenNew} would make ${tooLong.path} longer than ${MAX_MEMORY_PATH_LENGTH} characters.`,
          argument: 'new_path',
        });
      }
      return {
        write,
        remove: moved.map(({ path }) => path),
        result: `Successfully renamed ${givenOld} to ${givenNew}`,
      };
    });
  }

  async function execute(input: MemoryToolCommand, { scope }: { scope: Scope }): Promise<string> {
    // Checked again: a caller may pass what a model wrote straight in.
    const command = parseMemoryToolCommand(input);
    switch (command.command) {
      case 'view':
        return view(scope, command.path, command.view_range);
      case 'create':
        return create(scope, command.path, command.file_text);
      case 'str_replace':
        return replace(scope, command.path, command.old_str, command.new_str);
      case 'insert':
        return insert(scope, command.path, command.insert_line, command.insert_text);
      case 'delete':
        return remove(scope, command.path);
      case 'rename':
        return rename(scope, command.old_path, command.new_path);
    }
  }

  return {
    name: 'memory',
    description: DESCRIPTION,
    inputSchema: memoryToolInputSchema(),
    parseInput: parseMemoryToolCommand,
    execute,
  };
}
