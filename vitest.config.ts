import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources, so no build is needed before `pnpm test`.
    alias: [
      { find: /^@ctxmem\/core\/test$/, replacement: source('./packages/core/src/test/index.ts') },
      {
        find: /^@ctxmem\/core\/(driver-kit|adapter-kit|compression|retrieval)$/,
        replacement: source('./packages/core/src/$1/index.ts'),
      },
      {
        find: /^@ctxmem\/langchain\/(agent|memory)$/,
        replacement: source('./packages/langchain/src/$1/index.ts'),
      },
      { find: /^@ctxmem\/core$/, replacement: source('./packages/core/src/index.ts') },
      ...['ai-sdk', 'cli', 'hnswlib', 'langchain', 'local-embedder', 'postgres', 'redis'].map(
        (name) => ({
          find: new RegExp(`^@ctxmem/${name}$`),
          replacement: source(`./packages/${name}/src/index.ts`),
        }),
      ),
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts', 'examples/*/src/**/*.test.ts'],
    // Generous: CI machines have 2 cores; hang tests use their own short timeouts.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Test files at once. Vitest's default is one fewer than the cores, so one at a time on the
    // 2-core CI machine, although many files mostly wait: on child processes, on PostgreSQL and
    // Redis round trips, on TTLs and stale locks. Three keep both cores busy while those wait
    // (measured on 2 cores: see issue 15's report). Files that share a server keep to their own
    // schema, key prefix and temporary folder, so they can run side by side.
    // CTXMEM_TEST_WORKERS overrides it (e.g. 1 to rule out an interaction between files).
    maxWorkers: Number(process.env.CTXMEM_TEST_WORKERS) || 3,
    // Finds or starts PostgreSQL and Redis for the driver tests (see scripts/test-services.sh).
    globalSetup: ['./test/setup/global-setup.ts'],
    // A fixed fast-check seed when CTXMEM_FAST_CHECK_SEED is set (CI), a fresh one otherwise.
    setupFiles: ['./test/setup/fast-check-seed.ts'],
  },
});
