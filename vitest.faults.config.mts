import { defineConfig } from 'vitest/config';
import { engineAliases } from './test/setup/engine-aliases.mts';

/**
 * The fault-injection suite (docs/reliability.md): real worker processes and redis-servers,
 * killed, paused and restarted. One file at a time: every scenario measures recovery times, and
 * on two cores a neighbour's process starts would skew them.
 */
export default defineConfig({
  resolve: { alias: engineAliases },
  test: {
    include: ['test/faults/**/*.test.ts'],
    // A scenario that finds an engine defect waits in a `.defect.test.ts` file until it is fixed.
    exclude: ['test/faults/**/*.defect.test.ts'],
    globalSetup: ['test/setup/redis-server.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 30_000,
  },
});
