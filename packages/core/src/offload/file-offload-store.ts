import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Message, OffloadRecord, OffloadStore, Scope } from '../contracts/index.js';
import {
  assertRequiredScope,
  type CorruptionOptions,
  decodeMessage,
  encodeMessage,
  hasErrorCode,
  hasMoreText,
  isoNow,
  jsonChunks,
  quarantineFile,
  readTextFile,
  reportCorruption,
  type StorableJson,
  scopeFolder,
  setAsideDamagedFile,
  systemClock,
  validateRequiredScope,
  withStorageErrors,
  writeFileAtomic,
  writeFilesAtomic,
} from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import { notFound, type OffloadStoreOptions } from './in-memory-offload-store.js';
import { assertOffloadId, markContentAddressed, offloadId } from './offload-id.js';

export interface FileOffloadStoreOptions extends OffloadStoreOptions, CorruptionOptions {
  /**
   * Folder of the store. Each offloaded message is one file,
   * `<root>/scopes/<user>/<agent>/<session>/offload/<id>.json`. Other file stores may share the
   * root.
   * @default `<cwd>/.ctxmem`
   */
  root?: string;
}

interface EncodedOffloadRecord {
  id: string;
  createdAt: string;
  message: StorableJson;
}

/**
 * The file's text, `JSON.stringify(record)` and a newline: in pieces when the record is large (a
 * payload may be 50 MB), so it never exists as one string.
 */
function recordChunks(record: EncodedOffloadRecord): string | Iterable<string> {
  const json = record as unknown as StorableJson;
  if (!hasMoreText(json, LARGE_RECORD_CHARS)) return `${JSON.stringify(record)}\n`;
  return (function* () {
    yield* jsonChunks(json);
    yield '\n';
  })();
}

/** Records with more text than this are written in pieces. */
const LARGE_RECORD_CHARS = 1 << 20;

/**
 * An offload store in files: one atomically written file per message. Writes need no lock: a
 * file's content is determined by its name (the content hash), so concurrent writers of the same
 * id write the same message. On `get` the content is checked against its id.
 */
export function createFileOffloadStore(options: FileOffloadStoreOptions = {}): OffloadStore {
  const {
    root = join(process.cwd(), '.ctxmem'),
    requiredScope = [],
    clock = systemClock,
    corruption = 'recover',
    onCorruption,
  } = requireOptions(options, 'createFileOffloadStore');
  const required = validateRequiredScope(requiredScope);
  const base = resolve(root);

  const pathOf = (scope: Scope, id: string): string => {
    assertRequiredScope(scope, required);
    return join(scopeFolder(base, scope), 'offload', `${id}.json`);
  };

  /** The stored message, `missing`, or `damaged` (unreadable, or not matching its id). */
  async function readRecord(
    path: string,
    id: string,
  ): Promise<OffloadRecord | 'missing' | 'damaged'> {
    const text = await readTextFile(path);
    if (text === undefined) return 'missing';
    let value: Partial<EncodedOffloadRecord>;
    try {
      value = JSON.parse(text) as Partial<EncodedOffloadRecord>;
    } catch {
      return 'damaged';
    }
    if (value === null || typeof value !== 'object' || typeof value.createdAt !== 'string') {
      return 'damaged';
    }
    const message = value.message === undefined ? undefined : decodeMessage(value.message);
    if (!message || value.id !== id || offloadId(message) !== id) return 'damaged';
    return { id, createdAt: value.createdAt, message };
  }

  async function setAside(path: string, id: string): Promise<void> {
    await setAsideDamagedFile(
      path,
      `the offloaded content ${id} is unreadable or does not match its id`,
      { corruption, onCorruption },
    );
  }

  /** Stores an encoded message under its id, unless an intact copy is there already. */
  async function putEncoded(path: string, id: string, encoded: StorableJson): Promise<void> {
    const exists = await withStorageErrors(path, 'check', () =>
      stat(path).then(
        () => true,
        (error: unknown) => {
          if (hasErrorCode(error, 'ENOENT')) return false;
          throw error;
        },
      ),
    );
    if (exists) {
      const current = await readRecord(path, id);
      if (typeof current === 'object') return;
    }
    const record: EncodedOffloadRecord = { id, createdAt: isoNow(clock), message: encoded };
    if (exists) {
      // A damaged copy of this very message: keep it aside, then write the good one.
      const quarantinedPath = await quarantineFile(path);
      await writeFileAtomic(path, recordChunks(record));
      reportCorruption(
        {
          path,
          quarantinedPath,
          recoveredRecords: 1,
          droppedRecords: 0,
          reason: `the offloaded content ${id} was damaged and has been written again`,
        },
        { corruption, onCorruption },
      );
      return;
    }
    await writeFileAtomic(path, recordChunks(record));
  }

  const store: OffloadStore = {
    async put(scope, message) {
      const encoded = encodeMessage(message, 'message');
      const id = offloadId(message);
      await putEncoded(pathOf(scope, id), id, encoded);
      return id;
    },

    async get(scope, id): Promise<OffloadRecord> {
      assertOffloadId(id);
      const path = pathOf(scope, id);
      const record = await readRecord(path, id);
      if (record === 'missing') throw notFound(id);
      if (record === 'damaged') {
        await setAside(path, id);
        throw notFound(id);
      }
      return record satisfies { message: Message };
    },

    async delete(scope, id) {
      assertOffloadId(id);
      const path = pathOf(scope, id);
      await withStorageErrors(path, 'remove', () => rm(path, { force: true }));
    },
  };

  // A compaction's offloads in one go: the new files are written together and the folder is
  // synced once; a file already there is checked as `put` checks it.
  return markContentAddressed(store, async (scope, entries) => {
    if (entries.length === 0) return;
    assertRequiredScope(scope, required);
    const folder = join(scopeFolder(base, scope), 'offload');
    await withStorageErrors(folder, 'write', () => mkdir(folder, { recursive: true }));
    const present = new Set(await withStorageErrors(folder, 'read', () => readdir(folder)));
    const fresh: Array<{ path: string; data: string | Iterable<string> }> = [];
    const createdAt = isoNow(clock);
    for (const { id, message } of entries) {
      const encoded = encodeMessage(message, 'message');
      const path = join(folder, `${id}.json`);
      if (present.has(`${id}.json`)) {
        await putEncoded(path, id, encoded);
      } else {
        present.add(`${id}.json`);
        fresh.push({ path, data: recordChunks({ id, createdAt, message: encoded }) });
      }
    }
    await writeFilesAtomic(folder, fresh);
  });
}
