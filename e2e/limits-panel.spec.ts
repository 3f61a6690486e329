/**
 * The queue page's Limits panel in Chromium on a queue limited by its worker's own `limiter`
 * option: the panel names that limit and its source (not "none" under a "Rate limited" header),
 * and the operators' form refuses half a rate limit in words without sending anything.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { redisOptions, uniqueQueueName } from '../test/helpers/redis';
import { OPERATOR } from '../test/console/users';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-limits');
let browser: Browser;
let queue: Queue;
let worker: Worker;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  await queue.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: 'call', data: { i } })));
  worker = new Worker(name, async () => 'ok', {
    connection: redisOptions(),
    limiter: { max: 2, duration: 1000 },
    heartbeatInterval: 200,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

describe('Limits panel', () => {
  it("names the workers' own limiter and refuses a half-filled rate limit", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    await page.goto(`${baseUrl}/queues/bull/${name}`);
    const panel = page.getByRole('region', { name: 'Limits' });
    await panel
      .getByTestId('rate-limit-workers')
      .filter({ hasText: '2 per 1,000 ms (1 worker)' })
      .waitFor();
    expect(await panel.getByTestId('rate-limit-queue').textContent()).toBe('none');
    expect(await panel.getByTestId('rate-limit-in-force').textContent()).toContain(
      "2 per 1,000 ms, the workers' own limiter",
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'limits-worker-limiter.png') });

    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/limits')) {
        posts.push(request.url());
      }
    });
    await panel.getByLabel('Max jobs').fill('5');
    await panel.getByRole('button', { name: 'Apply limits' }).click();
    await panel
      .getByRole('alert')
      .filter({ hasText: 'A rate limit needs both "Max jobs" and "per (ms)"' })
      .waitFor();
    expect(posts).toEqual([]);
    expect(await queue.getGlobalRateLimit()).toBeNull();

    await panel.getByLabel('per (ms)').fill('60000');
    await panel.getByRole('button', { name: 'Apply limits' }).click();
    await panel
      .getByTestId('rate-limit-in-force')
      .filter({ hasText: "the queue-wide max in the workers' 1,000 ms window" })
      .waitFor();
    expect(await queue.getGlobalRateLimit()).toEqual({ max: 5, duration: 60_000 });
    expect(await panel.getByRole('alert').count()).toBe(0);
    await context.close();
  });
});
