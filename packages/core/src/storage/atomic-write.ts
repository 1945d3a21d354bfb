import { randomInt } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import writeFileAtomicLibrary from 'write-file-atomic';
import { hasErrorCode, withStorageErrors } from './storage-error.js';

/**
 * Flushes a folder's entries to disk, so that a file just created or renamed inside it survives a
 * power loss. Platforms that cannot open folders for syncing (Windows) are skipped silently: there
 * the rename itself is the best that is available.
 */
export async function fsyncDirectory(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch (error) {
    if (hasErrorCode(error, 'EISDIR', 'EPERM', 'EINVAL', 'ENOTSUP', 'EBADF')) return;
    throw error;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Replaces a file atomically: the data goes to a temporary file beside it, which is fsynced and
 * renamed over the target, and the folder is fsynced. Readers see the old or the new content,
 * never a mix, even when the process is killed halfway. Creates missing parent folders.
 * Failures become a `StorageError` that names the path.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | Iterable<string>,
): Promise<void> {
  await withStorageErrors(path, 'write', async () => {
    const folder = dirname(path);
    await mkdir(folder, { recursive: true });
    if (typeof data === 'string' || data instanceof Uint8Array) {
      await writeFileAtomicLibrary(path, typeof data === 'string' ? data : Buffer.from(data), {
        fsync: true,
      });
    } else {
      await replaceFile(path, data);
    }
    await fsyncDirectory(folder);
  });
}

/**
 * Writes files atomically, as `writeFileAtomic` does, into one existing folder, which is fsynced
 * once after all of them instead of once per file: a compaction that offloads a thousand messages
 * pays for a thousand small files, not two thousand folder syncs. Files are written a few at a time
 * (their own fsyncs overlap). Fails with the first `StorageError`.
 */
export async function writeFilesAtomic(
  folder: string,
  files: ReadonlyArray<{ path: string; data: string | Iterable<string> }>,
  concurrency = 8,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const { path, data } = files[next++]!;
      await withStorageErrors(path, 'write', () =>
        replaceFile(path, typeof data === 'string' ? [data] : data),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  await withStorageErrors(folder, 'write', () => fsyncDirectory(folder));
}

/**
 * Replaces `path` with content given in pieces (see `jsonChunks`): each is written as it comes,
 * so a 50 MB record never exists as one string or buffer, then fsynced and renamed over `path`.
 * The temporary file is named as `write-file-atomic` names its own (`<name>.<digits>`), so
 * `removeLeftoverTempFiles` finds it. The folder is not fsynced here.
 */
async function replaceFile(path: string, chunks: Iterable<string>): Promise<void> {
  const temporary = `${path}.${randomInt(2 ** 32)}`;
  const handle = await open(temporary, 'w');
  let renamed = false;
  // Sized by the first piece, grown only for a larger one: a compaction writes thousands of small
  // offload records, and a fixed 64 KB buffer each cost more allocation (and collections) than
  // their bytes.
  let buffer: Buffer | undefined;
  try {
    for (const chunk of chunks) {
      // One buffer for every piece (UTF-8 takes at most 3 bytes per UTF-16 unit).
      if (buffer === undefined || buffer.length < chunk.length * 3) {
        buffer = Buffer.allocUnsafe(chunk.length * 3);
      }
      const length = buffer.write(chunk, 'utf8');
      for (let offset = 0; offset < length; ) {
        const { bytesWritten } = await handle.write(buffer, offset, length - offset);
        offset += bytesWritten;
      }
    }
    await handle.sync();
    await handle.close();
    await rename(temporary, path);
    renamed = true;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await rm(temporary, { force: true }).catch(() => {});
    }
  }
}

/**
 * Deletes the temporary files (`<name>.<digits>`) that `writeFileAtomic` leaves beside `path` when
 * its process is killed between writing and renaming. Only call it while holding the lock that
 * every writer of `path` takes: then no live writer can own one of them. Returns how many it
 * removed; failures are ignored (the files are harmless, only clutter).
 */
export async function removeLeftoverTempFiles(path: string): Promise<number> {
  const name = basename(path);
  const pattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.\\d+$`);
  let removed = 0;
  const entries = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const entry of entries) {
    if (!pattern.test(entry)) continue;
    await rm(join(dirname(path), entry), { force: true }).then(
      () => removed++,
      () => {},
    );
  }
  return removed;
}
