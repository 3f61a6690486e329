import { configDefaults, defineConfig } from 'vitest/config';
import { engineAliases } from './test/setup/engine-aliases.mts';

export default defineConfig({
  // `@/` as tsconfig.json's paths have it, for the tests that import app/ route files.
  resolve: { alias: [...engineAliases, { find: /^@\//, replacement: `${import.meta.dirname}/` }] },
  test: {
    include: ['test/**/*.test.ts'],
    // The console suite builds and starts the app: its own config (vitest.console.config.mts),
    // as does the start-command test (it builds a fresh copy of the repository), and the
    // fault-injection suite (vitest.faults.config.mts, one file at a time).
    exclude: [
      ...configDefaults.exclude,
      'test/console/**',
      'test/launcher/start-command.test.ts',
      'test/faults/**',
    ],
    globalSetup: ['test/setup/redis-server.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: a few files at a time keeps timing-sensitive tests (locks, delays) honest.
    maxWorkers: 3,
  },
});
