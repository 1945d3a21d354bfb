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
    // Finds or starts PostgreSQL and Redis for the driver tests (see scripts/test-services.sh).
    globalSetup: ['./test/setup/global-setup.ts'],
    // A fixed fast-check seed when CTXMEM_FAST_CHECK_SEED is set (CI), a fresh one otherwise.
    setupFiles: ['./test/setup/fast-check-seed.ts'],
  },
});
