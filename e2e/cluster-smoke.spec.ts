/**
 * The console on a Redis Cluster in Debian's Chromium: a console of its own started with
 * REDIS_CLUSTER_NODES (test/helpers/redis-cluster.ts), hash-tagged queues spread over the
 * masters, a real OxMQ Worker on one of them. Sign in, the overview's counts for every queue,
 * and a job page read through the cluster. Screenshots go to e2e/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Cluster } from 'ioredis';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { startRedisCluster, type RedisCluster } from '../test/helpers/redis-cluster';
import { waitFor } from '../test/helpers/redis';
import { startConsole, type ConsoleServer } from '../test/console/console-server';
import { consoleEnv, VIEWER } from '../test/console/users';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const prefix = `e2ecl${Math.random().toString(36).slice(2, 7)}`;
const NAMES = ['alpha', 'beta', 'gamma', 'delta'];

let cluster: RedisCluster | undefined;
let server: ConsoleServer | undefined;
let connection: Cluster | undefined;
let queues: Queue[] = [];
let worker: Worker | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  cluster = await startRedisCluster();
  const nodes = cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',');
  server = await startConsole(
    consoleEnv(0, { REDIS_URL: '', REDIS_CLUSTER_NODES: nodes, OXMQ_PREFIXES: prefix }),
  );
  connection = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: null } });
  queues = NAMES.map(
    (name) => new Queue(name, { connection: connection!, prefix, clusterHashTags: true }),
  );
  for (const queue of queues) await queue.add('visit', { where: queue.name });
  worker = new Worker(NAMES[0]!, async () => 'seen', {
    connection,
    prefix,
    clusterHashTags: true,
  });
  await waitFor(async () => (await queues[0]!.getJobCounts('completed')).completed === 1, 20_000);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await Promise.all(queues.map((queue) => queue.close()));
  await connection?.quit().catch(() => undefined);
  await server?.stop();
  await cluster?.stop();
});

const card = (page: Page, name: string) => page.locator(`section[data-queue="${name}"]`);

async function expectCount(page: Page, name: string, state: string, value: number) {
  await card(page, name)
    .locator(`[data-state="${state}"] dd`, { hasText: new RegExp(`^${value}$`) })
    .waitFor({ timeout: 15_000 });
}

describe('the console on a Redis Cluster, in a browser', () => {
  it('signs in, shows every queue with its counts, and opens a job page', async () => {
    const page = await browser!.newPage();
    await signIn(page, server!.url, VIEWER);
    for (const name of NAMES) {
      const served = name === NAMES[0];
      await expectCount(page, `{${name}}`, 'completed', served ? 1 : 0);
      await expectCount(page, `{${name}}`, 'waiting', served ? 0 : 1);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'cluster-overview.png'), fullPage: true });

    const name = encodeURIComponent(`{${NAMES[1]}}`);
    await page.goto(`${server!.url}/queues/${prefix}/${name}/jobs/1`);
    await page.getByRole('heading', { name: 'Job 1' }).waitFor();
    // The job itself, read from its master: its timeline's added event and its name.
    await page.locator('.timeline li[data-event="added"]').waitFor();
    await page.getByText('visit', { exact: true }).first().waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'cluster-job.png'), fullPage: true });
    await page.close();
  });
});
