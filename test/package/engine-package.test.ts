/**
 * The engine as a team installs it: engine/ built and packed, installed into a project outside
 * the repository (offline, test/package/consumer-project.ts), then a producer, a worker and
 * QueueEvents run in plain Node ESM and in CommonJS (with a sandboxed processor and no tsx),
 * and a TypeScript consumer type-checks with moduleResolution node16 and bundler.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { createConsumer, REPO_ROOT, run } from './consumer-project';

const engineVersion = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'engine', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
let consumer: string;

beforeAll(async () => {
  consumer = await createConsumer(['@types/node']);
}, 180_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

async function runScript(file: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [file], {
    cwd: consumer,
    env: {
      ...process.env,
      REDIS_PORT: String(redisOptions().port),
      QUEUE_NAME: uniqueQueueName('package'),
    },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('the installed oxmq package', () => {
  it('installs only the built files and its five runtime dependencies', () => {
    const installed = JSON.parse(
      readFileSync(path.join(consumer, 'node_modules', 'oxmq', 'package.json'), 'utf8'),
    ) as { dependencies: Record<string, string>; version: string };
    expect(Object.keys(installed.dependencies).sort()).toEqual([
      '@opentelemetry/api',
      'cluster-key-slot',
      'cron-parser',
      'ioredis',
      'zod',
    ]);
    expect(installed.version).toBe(engineVersion);
    // tsx is an optional peer, for sandboxed processors written in TypeScript: not installed.
    expect(() =>
      readFileSync(path.join(consumer, 'node_modules', 'tsx', 'package.json')),
    ).toThrow();
  });

  it('runs a producer, a worker and QueueEvents in plain Node ESM', async () => {
    expect(await runScript('esm.mjs')).toEqual({
      result: 42,
      seen: true,
      version: engineVersion,
    });
  });

  it('runs the same in CommonJS, with a sandboxed processor in a child process and no tsx', async () => {
    const answer = await runScript('cjs.cjs');
    const result = answer.result as { square: number; pid: number };
    expect(result.square).toBe(144);
    expect(result.pid).not.toBe(process.pid);
    expect(answer.version).toBe(engineVersion);
    expect(answer.typedRefusal).toMatch(/^ValidationError: .*typed-processor\.ts is TypeScript/);
  });

  it.each(['node16', 'bundler'])(
    'type-checks a TypeScript consumer with moduleResolution %s',
    async (resolution) => {
      const project = path.join(consumer, 'types', `tsconfig.${resolution}.json`);
      await expect(
        run(process.execPath, [tsc, '-p', project], { cwd: consumer }),
      ).resolves.toBeDefined();
    },
    // A whole tsc run: about 5 s alone, several times that on a busy two-core machine.
    120_000,
  );
});
