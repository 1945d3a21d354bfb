import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StorageError } from '@ctxmem/core';
import hnswlib from 'hnswlib-node';
import type { Settings } from './hnsw-settings.js';

// hnswlib-node is CommonJS: its classes hang off the default export.
export const { HierarchicalNSW } = hnswlib;
export type NativeIndex = InstanceType<typeof HierarchicalNSW>;

/** An empty native graph of `capacity` slots, built with the index's settings. */
export function createNativeIndex(
  settings: Pick<Settings, 'dimensions' | 'M' | 'efConstruction' | 'randomSeed' | 'efSearch'>,
  capacity: number,
): NativeIndex {
  const { dimensions, M, efConstruction, randomSeed, efSearch } = settings;
  const native = new HierarchicalNSW('cosine', dimensions);
  native.initIndex({
    maxElements: capacity,
    m: M,
    efConstruction,
    randomSeed,
    allowReplaceDeleted: true,
  });
  native.setEf(efSearch);
  return native;
}

/** A failure of the native library, as the `StorageError` the index reports. */
export function nativeError(
  action: string,
  path: string | undefined,
  error: unknown,
): StorageError {
  const detail = error instanceof Error ? error.message : String(error);
  return new StorageError({
    message: `HNSW index could not ${action}: ${detail}`,
    path,
    cause: error,
  });
}

/** Written into every header; a header with another value is from an incompatible release. */
export const INDEX_FORMAT = 'ctxmem-hnsw-index';
export const INDEX_FORMAT_VERSION = 1;

/** What the JSON header beside the binary index holds. */
export interface IndexHeader {
  format: typeof INDEX_FORMAT;
  version: number;
  space: 'cosine';
  dimensions: number;
  /** Live items, equal to `items.length`. */
  count: number;
  /** The next numeric label to hand out; labels are never reused for another id while live. */
  nextLabel: number;
  /** Size and SHA-256 of the binary index file, to detect truncation, corruption and a mixed pair. */
  index: { bytes: number; sha256: string };
  /** Distinct scope keys, referenced by position from `items` to keep the header small. */
  scopes: string[];
  /** `[id, label, position in scopes]` for every live item. */
  items: Array<[string, number, number]>;
}

/** Why a persisted index could not be used; the index then starts empty and asks for a rebuild. */
export type LoadProblemReason =
  | 'missing'
  | 'corrupt'
  | 'checksum-mismatch'
  | 'dimension-mismatch'
  | 'version-mismatch';

/** Thrown inside loading, turned into a `loadProblem` by the index. */
export class LoadProblem extends Error {
  constructor(
    readonly reason: LoadProblemReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function headerPathFor(indexPath: string): string {
  return `${indexPath}.json`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

/**
 * Parses and checks a header. Every structural flaw is `corrupt`; a readable header from another
 * format version or for other dimensions gets its own reason, so callers can tell an upgrade or a
 * changed embedder from damage.
 */
export function parseHeader(text: string, expectedDimensions: number): IndexHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LoadProblem('corrupt', 'the index header is not valid JSON', { cause: error });
  }
  if (!isRecord(value) || value.format !== INDEX_FORMAT) {
    throw new LoadProblem('corrupt', 'the index header is not a ctxmem HNSW header');
  }
  if (value.version !== INDEX_FORMAT_VERSION) {
    throw new LoadProblem(
      'version-mismatch',
      `the index has format version ${String(value.version)}, this release reads ${INDEX_FORMAT_VERSION}`,
    );
  }
  if (value.space !== 'cosine') {
    throw new LoadProblem('corrupt', `the index uses the unsupported space ${String(value.space)}`);
  }
  if (value.dimensions !== expectedDimensions) {
    throw new LoadProblem(
      'dimension-mismatch',
      `the index has ${String(value.dimensions)} dimensions, ${expectedDimensions} were asked for`,
    );
  }
  const { count, nextLabel, index, scopes, items } = value;
  if (
    !isCount(count) ||
    !isCount(nextLabel) ||
    !isRecord(index) ||
    !isCount(index.bytes) ||
    typeof index.sha256 !== 'string' ||
    !Array.isArray(scopes) ||
    !scopes.every((scope) => typeof scope === 'string') ||
    !Array.isArray(items) ||
    items.length !== count
  ) {
    throw new LoadProblem('corrupt', 'the index header is incomplete');
  }
  const ids = new Set<string>();
  const labels = new Set<number>();
  for (const item of items) {
    if (
      !Array.isArray(item) ||
      item.length !== 3 ||
      typeof item[0] !== 'string' ||
      ids.has(item[0]) ||
      !isCount(item[1]) ||
      item[1] >= nextLabel ||
      labels.has(item[1]) ||
      !isCount(item[2]) ||
      item[2] >= scopes.length
    ) {
      throw new LoadProblem('corrupt', 'the index header lists an invalid or duplicate item');
    }
    ids.add(item[0]);
    labels.add(item[1]);
  }
  return value as unknown as IndexHeader;
}

/** Reads a header, or `undefined` when there is none. Other read failures are `StorageError`s. */
export async function readHeaderText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StorageError({
      message: `Could not read the index header ${path}`,
      path,
      cause: error,
    });
  }
}

/** Size and SHA-256 of a file, streamed so that a large index is never held in memory twice. */
export async function fingerprint(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Checks the binary index against its header before the native reader ever sees it. */
export async function verifyIndexFile(path: string, header: IndexHeader): Promise<void> {
  const size = await stat(path).then(
    (stats) => stats.size,
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new LoadProblem('corrupt', 'the index header exists but the index file is missing');
      }
      throw new StorageError({ message: `Could not read the index ${path}`, path, cause: error });
    },
  );
  if (size !== header.index.bytes) {
    throw new LoadProblem(
      'checksum-mismatch',
      `the index file has ${size} bytes, its header expects ${header.index.bytes} (truncated or replaced)`,
    );
  }
  const actual = await fingerprint(path);
  if (actual.sha256 !== header.index.sha256) {
    throw new LoadProblem(
      'checksum-mismatch',
      'the index file does not match the checksum in its header',
    );
  }
}

/** Flushes a file's content to disk before it is renamed into place. */
export async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a folder entry list, so a rename inside it survives a power loss (skipped where unsupported). */
export async function fsyncFolder(path: string): Promise<void> {
  const folder = dirname(path);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open folders for syncing; the rename is the best available there.
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Reads the saved index at `path` and its header. Throws `LoadProblem` when there is none yet
 * or they cannot be used (corrupt, truncated, other dimensions or format version).
 */
export async function readIndexPair(
  path: string,
  dimensions: number,
): Promise<{ native: NativeIndex; header: IndexHeader }> {
  const headerText = await readHeaderText(headerPathFor(path));
  if (headerText === undefined) {
    const indexExists = await stat(path).then(
      () => true,
      () => false,
    );
    throw indexExists
      ? new LoadProblem('corrupt', 'the index file has no header beside it')
      : new LoadProblem('missing', 'no index has been saved at this path yet');
  }
  const header = parseHeader(headerText, dimensions);
  await verifyIndexFile(path, header);
  const native = new HierarchicalNSW('cosine', dimensions);
  try {
    await native.readIndex(path, true);
  } catch (error) {
    throw new LoadProblem('corrupt', 'hnswlib could not read the index file', { cause: error });
  }
  const nativeLabels = native.getIdsList();
  const present = new Set(nativeLabels);
  if (
    header.items.some(([, label]) => !present.has(label)) ||
    nativeLabels.some((label) => label >= header.nextLabel)
  ) {
    throw new LoadProblem('corrupt', 'the index file and its header list different items');
  }
  return { native, header };
}

/**
 * Saves `native` and its header atomically: both go to temporary files, are fsynced and renamed
 * over the old pair. `headerFor` gets the fingerprint of the written index.
 */
export async function writeIndexPair(
  path: string,
  native: NativeIndex,
  headerFor: (print: { bytes: number; sha256: string }) => IndexHeader,
): Promise<void> {
  const headerPath = headerPathFor(path);
  const token = `${process.pid}-${randomUUID()}`;
  const temporaryIndex = `${path}.${token}.tmp`;
  const temporaryHeader = `${headerPath}.${token}.tmp`;
  try {
    await native.writeIndex(temporaryIndex);
    const print = await fingerprint(temporaryIndex);
    await writeFile(temporaryHeader, JSON.stringify(headerFor(print)));
    await fsyncFile(temporaryIndex);
    await fsyncFile(temporaryHeader);
    // A crash between the two renames leaves a pair whose checksum disagrees: the next open
    // reports it and asks for a rebuild instead of trusting a mixed pair.
    await rename(temporaryIndex, path);
    await rename(temporaryHeader, headerPath);
    await fsyncFolder(path);
  } catch (error) {
    await rm(temporaryIndex, { force: true }).catch(() => {});
    await rm(temporaryHeader, { force: true }).catch(() => {});
    if (StorageError.isInstance(error)) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new StorageError({
      message: `Could not save the HNSW index ${path}: ${detail}`,
      path,
      cause: error,
    });
  }
}

/** The header of a saved index: the id ↔ label map (scope keys stored once each) and its checks. */
export function buildHeader(
  labels: ReadonlyMap<number, { id: string; scopeKey: string }>,
  {
    dimensions,
    nextLabel,
    print,
  }: { dimensions: number; nextLabel: number; print: { bytes: number; sha256: string } },
): IndexHeader {
  const scopes: string[] = [];
  const scopePositions = new Map<string, number>();
  const items: IndexHeader['items'] = [];
  for (const [label, { id, scopeKey }] of labels) {
    let position = scopePositions.get(scopeKey);
    if (position === undefined) {
      position = scopes.length;
      scopes.push(scopeKey);
      scopePositions.set(scopeKey, position);
    }
    items.push([id, label, position]);
  }
  return {
    format: INDEX_FORMAT,
    version: INDEX_FORMAT_VERSION,
    space: 'cosine',
    dimensions,
    count: items.length,
    nextLabel,
    index: print,
    scopes,
    items,
  };
}
