// Bundles each public entry point of the package (its `exports`) from the files `tsc` wrote, with
// shared code in `dist/chunks/`, and removes the per-module JavaScript that no entry needs any
// more: importing core then loads a handful of files instead of ~230, which is most of the cost of
// a cold start (`await import('@ctxmem/core')`: 241 → 153 ms median on our 2-core machine).
// Declarations stay per module, as `tsc` wrote them. Source maps chain to `src/`.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entryPoints = Object.values(packageJson.exports)
  .map((target) => (typeof target === 'object' ? target.default : undefined))
  .filter((target) => typeof target === 'string' && target.endsWith('.js'))
  .map((target) => join(root, target));

const { metafile } = await build({
  entryPoints,
  outdir: dist,
  outbase: dist,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Dependencies stay imports, resolved by the app's package manager.
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: root,
});

const written = new Set(Object.keys(metafile.outputs).map((path) => join(root, path)));
function prune(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) prune(path);
    else if (/\.js(\.map)?$/.test(entry.name) && !written.has(path)) rmSync(path);
  }
}
prune(dist);
console.log(
  `bundle: ${entryPoints.length} entry points, ${written.size} files in ${relative(root, dist)}/`,
);
