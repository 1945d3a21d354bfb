/**
 * Child-process fixtures as one plain JavaScript file each. Starting a fixture with
 * `node --import tsx` costs about a second of start-up (0.75 s of CPU: the loader, then every
 * TypeScript module of the sources compiled or looked up one by one); a bundle made once starts in
 * about a quarter of that. The crash and multi-process tests start dozens of children, so this is
 * most of their cost. The bundle runs the same sources: only the loading changes.
 *
 * Bundles are cached in `packages/core/node_modules/.cache/ctxmem-fixtures/` with the list of the
 * files they were built from, and built again when one of those files changed. That folder because
 * core loads its token rank tables with `createRequire(import.meta.url)` at run time, which
 * resolves `js-tiktoken` from the bundle's location: core's own `node_modules` has it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cacheFolder = join(root, 'packages', 'core', 'node_modules', '.cache', 'ctxmem-fixtures');

/** What a cached bundle was built from: each input's modification time and size. */
interface Manifest {
  inputs: Record<string, { modified: number; size: number }>;
}

async function fresh(manifestPath: string): Promise<boolean> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  } catch {
    return false;
  }
  const checks = await Promise.all(
    Object.entries(manifest.inputs).map(async ([path, recorded]) => {
      try {
        const now = await stat(join(root, path));
        return now.mtimeMs === recorded.modified && now.size === recorded.size;
      } catch {
        return false;
      }
    }),
  );
  return checks.length > 0 && checks.every(Boolean);
}

/** Writes through a temporary file and a rename, so a concurrent reader never sees half a file. */
async function writeAtomically(path: string, contents: string | Uint8Array): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, path);
}

const building = new Map<string, Promise<string>>();

/**
 * The path of a runnable `.mjs` bundle of the TypeScript fixture `entry` (a path or `file:` URL),
 * built with esbuild (`@ctxmem/*` resolved to the sources through the root tsconfig.json) or
 * taken from the cache. Run it with `node <bundle> …`.
 */
export function bundledFixture(entry: string | URL): Promise<string> {
  const path = resolve(typeof entry === 'string' ? entry : fileURLToPath(entry));
  let pending = building.get(path);
  if (!pending) {
    pending = bundle(path);
    building.set(path, pending);
  }
  return pending;
}

async function bundle(path: string): Promise<string> {
  const key = createHash('sha256').update(path).digest('hex').slice(0, 12);
  const name = `${basename(path).replace(/\.[cm]?ts$/u, '')}-${key}`;
  const output = join(cacheFolder, `${name}.mjs`);
  const manifestPath = join(cacheFolder, `${name}.json`);
  if (await fresh(manifestPath)) return output;

  await mkdir(cacheFolder, { recursive: true });
  const started = Date.now();
  const result = await build({
    entryPoints: [path],
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    tsconfig: join(root, 'tsconfig.json'),
    write: false,
    outfile: output,
    metafile: true,
    logLevel: 'silent',
    // pg requires its optional native binding only when asked to (never here).
    external: ['pg-native'],
    // Bundled CommonJS packages call `require` for Node's own modules and read `__filename`
    // (write-file-atomic names its temporary files with it).
    banner: {
      js: [
        "import { createRequire as createRequireForBundle } from 'node:module';",
        "import { fileURLToPath as fileURLToPathForBundle } from 'node:url';",
        'const require = createRequireForBundle(import.meta.url);',
        'const __filename = fileURLToPathForBundle(import.meta.url);',
        "const __dirname = fileURLToPathForBundle(new URL('.', import.meta.url));",
      ].join(' '),
    },
  });
  const file = result.outputFiles.find((candidate) => candidate.path.endsWith('.mjs'));
  if (!file) throw new Error(`esbuild produced no bundle for ${path}`);
  await writeAtomically(output, file.contents);

  const inputs: Manifest['inputs'] = {};
  let editedDuringBuild = false;
  // This file too: a change of the build options must rebuild.
  const self = relative(root, fileURLToPath(import.meta.url));
  for (const input of [self, ...Object.keys(result.metafile.inputs)]) {
    const info = await stat(join(root, input));
    // A file changed while esbuild read it: keep the bundle for this run, but do not cache it.
    if (info.mtimeMs >= started) editedDuringBuild = true;
    inputs[input] = { modified: info.mtimeMs, size: info.size };
  }
  if (!editedDuringBuild) await writeAtomically(manifestPath, JSON.stringify({ inputs }));
  return output;
}
