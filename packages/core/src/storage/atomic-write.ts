import { mkdir, open, readdir, rm } from 'node:fs/promises';
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
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await withStorageErrors(path, 'write', async () => {
    const folder = dirname(path);
    await mkdir(folder, { recursive: true });
    await writeFileAtomicLibrary(path, typeof data === 'string' ? data : Buffer.from(data), {
      fsync: true,
    });
    await fsyncDirectory(folder);
  });
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
