import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { extractSnippets } from '../../scripts/check-doc-snippets.js';

const execFileAsync = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const packages = ['core', 'ai-sdk', 'cli', 'langchain', 'postgres', 'redis'];
// Packing needs the built output; CI builds before testing. A clone that has not built skips.
const built = packages.every((name) =>
  existsSync(join(repositoryRoot, 'packages', name, 'dist/index.js')),
);
const skip = !built || process.env.CTXMEM_SKIP_PACK_INSTALL === '1';

describe('using the packages from a clone (scripts/pack-install.sh)', () => {
  it.skipIf(skip)(
    'installs the packed tarballs into a fresh project with npm, imports each package, runs the CLI and the quick start',
    async () => {
      const project = await mkdtemp(join(tmpdir(), 'ctxmem-packed-'));
      try {
        const { stdout } = await execFileAsync(
          'bash',
          [join(repositoryRoot, 'scripts/pack-install.sh'), '--check', project],
          {
            // Packs what is built: a concurrent edit of a source must not start a build here.
            env: { ...process.env, CTXMEM_PACK_NO_BUILD: '1' },
            maxBuffer: 16 * 1024 * 1024,
          },
        );
        for (const name of packages)
          expect(stdout).toMatch(new RegExp(`@ctxmem/${name} \\d+ exports`));
        expect(stdout).toContain('ctxmem compact - --budget 1000: ok');
        expect(stdout).toContain('@ctxmem/core vocabulary files: ok');
        const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
          dependencies: Record<string, string>;
        };
        expect(manifest.dependencies['@ctxmem/core']).toMatch(/^file:ctxmem-packages\/.*\.tgz$/);

        // The core README's quick start, exactly as printed, runs against the installed packages.
        const readme = await readFile(join(repositoryRoot, 'packages/core/README.md'), 'utf8');
        const quickStart = extractSnippets(readme, 'packages/core/README.md')[0]!;
        await writeFile(join(project, 'quick-start.mts'), quickStart.code);
        const run = await execFileAsync(
          process.execPath,
          ['--experimental-strip-types', '--no-warnings', 'quick-start.mts'],
          { cwd: project },
        );
        expect(run.stdout).toMatch(/^\d+ \d+ (true|false)\n$/);
      } finally {
        await rm(project, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
