/**
 * Global setup of the console suite (API tests and the browser e2e): a private redis-server,
 * one `next build`, and one `next start` against that Redis that every file shares. Files use
 * queue names of their own. OXMQ_TEST_REUSE_BUILD=1 skips the build when .next is current
 * (handy while iterating on tests; CI always builds).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startConsole } from '../console/console-server';
import { LINKS_ENV } from '../console/links-env';
import { consoleEnv } from '../console/users';
import { startRedis } from './redis-server';

declare module 'vitest' {
  export interface ProvidedContext {
    consoleUrl: string;
  }
}

function build(): void {
  if (process.env.OXMQ_TEST_REUSE_BUILD === '1' && existsSync('.next/BUILD_ID')) return;
  const started = Date.now();
  const result = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`next build failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  console.log(`console suite: next build took ${Math.round((Date.now() - started) / 1000)} s`);
}

export default async function setup(project: TestProject) {
  const redis = await startRedis();
  try {
    build();
    const server = await startConsole(consoleEnv(redis.port, LINKS_ENV));
    project.provide('redisPort', redis.port);
    project.provide('consoleUrl', server.url);
    return async () => {
      await server.stop();
      await redis.stop();
    };
  } catch (error) {
    await redis.stop();
    throw error;
  }
}
