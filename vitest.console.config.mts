import { defineConfig } from 'vitest/config';
import { engineAliases } from './test/setup/engine-aliases.mts';

// The console suite: HTTP API tests and the browser e2e against one built app (`next build`
// once, in the global setup) on a private Redis. Run after the engine suite by `npm test`.
export default defineConfig({
  resolve: { alias: engineAliases },
  test: {
    include: [
      'test/console/**/*.test.ts',
      'test/launcher/start-command.test.ts',
      'e2e/**/*.spec.ts',
    ],
    globalSetup: ['test/setup/console.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The files share one server (and the e2e a browser); one at a time keeps timings honest.
    fileParallelism: false,
  },
});
