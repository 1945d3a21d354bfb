import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
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
  withFileLock,
  withStorageErrors,
  writeFileAtomic,
  writeFilesAtomic,
} from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import { notFound, type OffloadStoreOptions } from './in-memory-offload-store.js';
import { assertOffloadId, isOffloadId, markContentAddressed, offloadId } from './offload-id.js';

export interface FileOffloadStoreOptions extends OffloadStoreOptions, CorruptionOptions {
  /**
   * Folder of the store. Offloaded messages go to `<root>/scopes/<user>/<agent>/<session>/offload/`:
   * one file `<id>.json` per message, except that a compaction offloading several new messages at
   * once writes them as one pack file `pack_<hash>.pack` (one file to sync instead of one each).
   * Other file stores may share the root.
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
 * A compaction that offloads at least this many new messages writes them as one pack file: one
 * file to write and sync instead of one per message (a thousand fsyncs cost seconds on a cloud
 * disk).
 */
const PACK_MIN_RECORDS = 4;
const PACK_SUFFIX = '.pack';
const PACK_FORMAT = 'ctxmem-offload-pack';
/** The footer's length closes a pack: this many decimal digits and a newline. */
const FOOTER_LENGTH_DIGITS = 12;

/** The temporary file of an atomic write of a record or a pack (`<name>.<digits>`). */
const TEMPORARY_FILE = /^(?:off_[0-9a-f]+\.json|pack_[0-9a-f]+\.pack)\.\d+$/;
/**
 * A temporary file older than this was left by a writer that died before renaming it: offload
 * writes take no lock (content decides the name), so age is what tells a live write from a
 * leftover. The slowest write (a 50 MB record) takes seconds.
 */
const LEFTOVER_AGE_MS = 15 * 60 * 1000;

/**
 * Removes the temporary files of writes that died more than `LEFTOVER_AGE_MS` ago (a crash
 * between writing and renaming): they are never read, only take space — a payload's can be
 * 50 MB. Failures are ignored; the next batch tries again.
 */
async function removeLeftovers(folder: string, names: readonly string[], now: number) {
  for (const name of names) {
    if (!TEMPORARY_FILE.test(name)) continue;
    const path = join(folder, name);
    const modified = await stat(path).then(
      (found) => found.mtimeMs,
      () => now,
    );
    if (now - modified > LEFTOVER_AGE_MS) await rm(path, { force: true }).catch(() => {});
  }
}

/** Where each record of a pack is: id → [byte offset, byte length] of its line. */
type PackIndex = Map<string, readonly [number, number]>;

/**
 * A pack's text: each record as `JSON.stringify(record)` and a newline (the one-file format, one
 * after the other), then a footer line `{"format","version","records":[[id, offset, length]…]}`,
 * then the footer's byte length in `FOOTER_LENGTH_DIGITS` digits and a newline. Byte offsets are
 * counted as the pieces go out, so a 50 MB payload is never one string.
 */
function* packChunks(records: readonly EncodedOffloadRecord[]): Generator<string> {
  const entries: Array<[string, number, number]> = [];
  let offset = 0;
  for (const record of records) {
    const start = offset;
    const chunks = recordChunks(record);
    for (const chunk of typeof chunks === 'string' ? [chunks] : chunks) {
      offset += Buffer.byteLength(chunk, 'utf8');
      yield chunk;
    }
    entries.push([record.id, start, offset - start]);
  }
  const footer = `${JSON.stringify({ format: PACK_FORMAT, version: 1, records: entries })}\n`;
  yield footer;
  yield `${String(Buffer.byteLength(footer, 'utf8')).padStart(FOOTER_LENGTH_DIGITS, '0')}\n`;
}

/** The index a pack's footer gives, or `undefined` when the footer is missing or damaged. */
async function readPackFooter(path: string): Promise<PackIndex | undefined> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const tailLength = FOOTER_LENGTH_DIGITS + 1;
    if (size < tailLength) return undefined;
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    const footerLength = Number(tail.toString('latin1', 0, FOOTER_LENGTH_DIGITS));
    if (!Number.isInteger(footerLength) || footerLength <= 0 || footerLength > size - tailLength) {
      return undefined;
    }
    const footerBytes = Buffer.alloc(footerLength);
    await handle.read(footerBytes, 0, footerLength, size - tailLength - footerLength);
    const footer = JSON.parse(footerBytes.toString('utf8')) as {
      format?: unknown;
      version?: unknown;
      records?: unknown;
    };
    if (footer.format !== PACK_FORMAT || footer.version !== 1 || !Array.isArray(footer.records)) {
      return undefined;
    }
    const limit = size - tailLength - footerLength;
    const index: PackIndex = new Map();
    for (const entry of footer.records as unknown[]) {
      const [id, offset, length] = Array.isArray(entry) ? entry : [];
      if (
        typeof id !== 'string' ||
        !Number.isInteger(offset) ||
        !Number.isInteger(length) ||
        (offset as number) < 0 ||
        (length as number) <= 0 ||
        (offset as number) + (length as number) > limit
      ) {
        return undefined;
      }
      index.set(id, [offset as number, length as number]);
    }
    return index;
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * The index of a pack whose footer is damaged, found by reading its record lines (a JSON line
 * never holds a raw newline): the records that still parse stay reachable.
 */
async function scanPackRecords(path: string): Promise<PackIndex> {
  const bytes = await readFile(path);
  const index: PackIndex = new Map();
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    try {
      const value = JSON.parse(bytes.toString('utf8', start, end)) as { id?: unknown };
      if (isOffloadId(value?.id)) {
        index.set(value.id, [start, end + 1 - start]);
      }
    } catch {
      // Not a record (the footer, its length, or a damaged line).
    }
    start = end + 1;
  }
  return index;
}

/**
 * An offload store in files: one atomically written file per message, or one pack per compaction
 * that offloads several (records one per line, then an index of byte offsets; a pack is never
 * changed, `delete` writes the rest as a new one under a lock). Writes need no lock: content is
 * determined by its id (the content hash), so concurrent writers of the same id write the same
 * message. On `get` the content is checked against its id. A damaged pack (an unreadable index
 * or record) is written again with what still reads, its copy kept aside, and reported once; the
 * temporary files of writes that died are removed by a later batch.
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
    return parseRecord(text, id);
  }

  /** A record's text as its message, or `damaged` (unreadable, or not matching its id). */
  function parseRecord(text: string, id: string): OffloadRecord | 'damaged' {
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

  /**
   * Pack indexes by path. A pack is never changed once written (`delete` and a repair write the
   * rest as a new pack), so an index read once stays true for as long as its file exists.
   */
  const packIndexes = new Map<string, PackIndex>();

  /**
   * `path`'s index from its footer, or from its record lines when the footer is damaged;
   * undefined when the pack is gone (rewritten by a delete or a repair elsewhere).
   */
  async function readPackIndex(
    path: string,
  ): Promise<{ index: PackIndex; scanned: boolean } | undefined> {
    return withStorageErrors(path, 'read', async () => {
      try {
        const footer = await readPackFooter(path);
        if (footer) return { index: footer, scanned: false };
        return { index: await scanPackRecords(path), scanned: true };
      } catch (error) {
        if (hasErrorCode(error, 'ENOENT')) return undefined;
        throw error;
      }
    });
  }

  /**
   * Writes `path` again under its lock — without the record `deleting`, or, for a repair, without
   * only what no longer reads: the records that read go to a new pack and the old file is
   * removed. Damage found on the way (an index rebuilt from the lines, unreadable records) is
   * copied aside and reported, once: the damaged file is gone afterwards, so no other process
   * meets it again. Nothing happens when the pack is gone (rewritten elsewhere), when it does not
   * hold `deleting`, or, for a repair, when nothing in it is damaged any more.
   */
  async function rewritePack(
    path: string,
    change: { deleting: string } | { repairing: string },
  ): Promise<void> {
    await withFileLock(path, async () => {
      packIndexes.delete(path);
      const read = await readPackIndex(path);
      if (!read) return;
      const index = new Map(read.index);
      if ('deleting' in change && !index.delete(change.deleting)) return;
      const { kept, dropped } = await readableRecords(path, index);
      const damaged = read.scanned || dropped > 0;
      if ('repairing' in change && !damaged) return;
      const quarantinedPath = damaged ? await quarantineFile(path) : undefined;
      const written = kept.length > 0 ? await writePack(dirname(path), kept) : undefined;
      // Only a repaired index over intact records gives the same ids, hence the same name.
      if (written !== path)
        await withStorageErrors(path, 'remove', () => rm(path, { force: true }));
      if (quarantinedPath === undefined) return;
      const what =
        'deleting' in change
          ? `records of the pack were unreadable when ${change.deleting} was deleted from it`
          : change.repairing;
      reportCorruption(
        {
          path,
          quarantinedPath,
          recoveredRecords: kept.length,
          droppedRecords: dropped,
          reason: read.scanned
            ? `the offload pack has no readable index; ${what}`
            : `${what}; the rest of the pack was written again`,
        },
        { corruption, onCorruption },
      );
    });
  }

  /** The records of `index` in `path` that read and match their ids, encoded for a new pack. */
  async function readableRecords(path: string, index: PackIndex) {
    const kept: EncodedOffloadRecord[] = [];
    let dropped = 0;
    for (const [id, at] of index) {
      const record = await readPacked(path, at, id);
      if (typeof record === 'object') {
        kept.push({
          id,
          createdAt: record.createdAt,
          message: encodeMessage(record.message, 'message'),
        });
      } else {
        dropped++;
      }
    }
    return { kept, dropped };
  }

  /** `path`'s index, or `repaired` when its footer was damaged and its records moved to a new pack. */
  async function packIndex(path: string): Promise<PackIndex | 'gone' | 'repaired'> {
    const known = packIndexes.get(path);
    if (known) return known;
    const footer = await withStorageErrors(path, 'read', async () => {
      try {
        return (await readPackFooter(path)) ?? 'damaged';
      } catch (error) {
        if (hasErrorCode(error, 'ENOENT')) return 'gone';
        throw error;
      }
    });
    if (footer === 'gone') return 'gone';
    if (footer === 'damaged') {
      await rewritePack(path, { repairing: 'its records were found line by line' });
      return 'repaired';
    }
    packIndexes.set(path, footer);
    return footer;
  }

  async function packsIn(folder: string): Promise<string[]> {
    const names = await withStorageErrors(folder, 'read', () =>
      readdir(folder).catch((error: unknown) => {
        if (hasErrorCode(error, 'ENOENT')) return [] as string[];
        throw error;
      }),
    );
    return names.filter((name) => name.endsWith(PACK_SUFFIX)).map((name) => join(folder, name));
  }

  /**
   * The packs of `folder` with their indexes. A pack repaired on the way has a new name, so the
   * folder is listed again (a repair happens once, so this ends).
   */
  async function packIndexesIn(folder: string) {
    for (;;) {
      const found: Array<{ path: string; index: PackIndex }> = [];
      let repaired = false;
      for (const path of await packsIn(folder)) {
        const index = await packIndex(path);
        if (index === 'repaired') repaired = true;
        else if (index !== 'gone') found.push({ path, index });
      }
      if (!repaired) return found;
    }
  }

  /** The packs of `folder` that hold `id`, with where its record is. */
  async function packsHolding(folder: string, id: string) {
    const found: Array<{ path: string; at: readonly [number, number] }> = [];
    for (const { path, index } of await packIndexesIn(folder)) {
      const at = index.get(id);
      if (at) found.push({ path, at });
    }
    return found;
  }

  /** A packed record, `missing` (its pack is gone: rewritten by a delete), or `damaged`. */
  async function readPacked(
    path: string,
    [offset, length]: readonly [number, number],
    id: string,
  ): Promise<OffloadRecord | 'missing' | 'damaged'> {
    return withStorageErrors(path, 'read', async () => {
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if (hasErrorCode(error, 'ENOENT')) {
          packIndexes.delete(path);
          return 'missing';
        }
        throw error;
      }
      try {
        const bytes = Buffer.alloc(length);
        const { bytesRead } = await handle.read(bytes, 0, length, offset);
        if (bytesRead !== length) return 'damaged';
        return parseRecord(bytes.toString('utf8'), id);
      } finally {
        await handle.close().catch(() => {});
      }
    });
  }

  /** The record of `id` in the packs of `folder`, or undefined. */
  async function getPacked(folder: string, id: string): Promise<OffloadRecord | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      let gone = false;
      for (const { path, at } of await packsHolding(folder, id)) {
        const record = await readPacked(path, at, id);
        if (typeof record === 'object') return record;
        gone = true;
        // A damaged record: the pack is written again without it (its copy kept aside), so the
        // next read, here or in another process, finds the rest and reports nothing.
        if (record === 'damaged') {
          await rewritePack(path, {
            repairing: `the offloaded content ${id} is unreadable or does not match its id`,
          });
        }
      }
      // A delete or a repair rewrote a pack while this one read it: look again once.
      if (!gone) return undefined;
    }
    return undefined;
  }

  /** Writes `records` as one pack in `folder` (atomically, synced once); returns its path. */
  async function writePack(folder: string, records: readonly EncodedOffloadRecord[]) {
    const name = createHash('sha256')
      .update(records.map((record) => record.id).join(','))
      .digest('hex')
      .slice(0, 16);
    const path = join(folder, `pack_${name}${PACK_SUFFIX}`);
    await writeFileAtomic(path, packChunks(records));
    return path;
  }

  /** Removes `id` from every pack that holds it: the other records are written as a new pack. */
  async function deletePacked(folder: string, id: string): Promise<void> {
    for (const { path } of await packsHolding(folder, id)) {
      await rewritePack(path, { deleting: id });
    }
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
      if (record === 'damaged') {
        await setAside(path, id);
        throw notFound(id);
      }
      if (record !== 'missing') return record satisfies { message: Message };
      const packed = await getPacked(dirname(path), id);
      if (!packed) throw notFound(id);
      return packed;
    },

    async delete(scope, id) {
      assertOffloadId(id);
      const path = pathOf(scope, id);
      await withStorageErrors(path, 'remove', () => rm(path, { force: true }));
      await deletePacked(dirname(path), id);
    },
  };

  // A compaction's offloads in one go: the new files are written together and the folder is
  // synced once; a file already there is checked as `put` checks it.
  return markContentAddressed(store, async (scope, entries) => {
    if (entries.length === 0) return;
    assertRequiredScope(scope, required);
    const folder = join(scopeFolder(base, scope), 'offload');
    await withStorageErrors(folder, 'write', () => mkdir(folder, { recursive: true }));
    const names = await withStorageErrors(folder, 'read', () => readdir(folder));
    await removeLeftovers(folder, names, Date.now());
    const present = new Set(names);
    const packed = new Set<string>();
    for (const { index } of await packIndexesIn(folder)) {
      for (const id of index.keys()) packed.add(id);
    }
    const fresh: EncodedOffloadRecord[] = [];
    const createdAt = isoNow(clock);
    for (const { id, message } of entries) {
      // Content-addressed: an id already stored (packs are checked when read) is this message.
      if (packed.has(id)) continue;
      const encoded = encodeMessage(message, 'message');
      const path = join(folder, `${id}.json`);
      if (present.has(`${id}.json`)) {
        await putEncoded(path, id, encoded);
      } else {
        present.add(`${id}.json`);
        fresh.push({ id, createdAt, message: encoded });
      }
    }
    if (fresh.length >= PACK_MIN_RECORDS) {
      await writePack(folder, fresh);
      return;
    }
    await writeFilesAtomic(
      folder,
      fresh.map((record) => ({
        path: join(folder, `${record.id}.json`),
        data: recordChunks(record),
      })),
    );
  });
}
