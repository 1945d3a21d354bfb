import { StorageError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';

export interface PeerDependency {
  /** The npm package, as the user installs it: `pg`, `redis`. */
  name: string;
  /** The driver package that needs it, for the message: `@ctxmem/postgres`. */
  driver: string;
  /** What the driver's stores are called in the message: `PostgreSQL`. */
  stores: string;
  /** The export the driver uses, looked for on the module and on its default export. */
  exportName: string;
  /** The oldest major version that has that export, for the message: `pg 8`. */
  minimum: string;
  /** What the package is, when its name does not say: `node-redis`. @default undefined */
  description?: string;
}

/**
 * Loads a driver's optional peer dependency on first use, so that importing the driver costs
 * nothing and a missing package is a `StorageError` saying what to install, rather than a
 * resolution error at import time. Returns the named export (a function or class).
 */
export async function loadPeerDependency<Export>(
  importer: () => Promise<unknown>,
  options: PeerDependency,
): Promise<Export> {
  const { name, driver, stores, exportName, minimum, description } = requireOptions(
    options,
    'loadPeerDependency',
    {
      name: { expected: 'the npm package name, a string', type: 'string' },
      exportName: { expected: 'the export to take, a string', type: 'string' },
      minimum: { expected: 'the lowest supported version, a string', type: 'string' },
    },
  );
  let loaded: unknown;
  try {
    loaded = await importer();
  } catch (error) {
    throw new StorageError({
      message: `The ${stores} stores need the "${name}" package${description ? ` (${description})` : ''}, which is not installed. Install it next to ${driver}: \`npm install ${name}\` (or pnpm add ${name} / yarn add ${name}).`,
      path: undefined,
      cause: error,
    });
  }
  const module = loaded as Record<string, unknown> & { default?: Record<string, unknown> };
  const found = module[exportName] ?? module.default?.[exportName];
  if (typeof found !== 'function') {
    throw new StorageError({
      message: `The installed "${name}" package has no ${exportName} export; install ${minimum} or later.`,
      path: undefined,
    });
  }
  return found as Export;
}
