import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The console suite builds and starts the app: its own config (vitest.console.config.mts).
    exclude: [...configDefaults.exclude, 'test/console/**'],
    globalSetup: ['test/setup/redis-server.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: a few files at a time keeps timing-sensitive tests (locks, delays) honest.
    maxWorkers: 3,
  },
});
