/**
 * The integrity page in a real browser (docs/integrity.md, "Console page"): an admin follows the
 * queue page's link, sees the broken invariant of a hand-corrupted queue with its sample,
 * confirms "Repair safe findings", sees the applied repair listed and the queue clean.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { ADMIN } from '../test/console/users';
import { rawClient, redisOptions, uniqueQueueName } from '../test/helpers/redis';
import { queueKey } from '../test/helpers/redis-state';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('integrity-e2e');
const redis = rawClient();
let browser: Browser;
let queue: Queue;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  const gone = await queue.add('gone', {});
  await queue.add('kept', {});
  await redis.del(queueKey(name, gone.id!));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await redis.quit();
});

describe('integrity page in Chromium', () => {
  it('shows the finding of a corrupt queue, repairs it, and shows the queue clean', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, ADMIN);
    await page.goto(`${baseUrl}/queues/bull/${name}`);
    await page.getByTestId('integrity-link').click();
    await page.waitForURL(`${baseUrl}/queues/bull/${name}/integrity`);

    const status = page.getByTestId('integrity-status');
    await status.getByText('Walk done: 1 invariant(s) broken.').waitFor({ timeout: 15_000 });
    const row = page.locator('tr[data-invariant="member-without-hash"]');
    expect(await row.getByTestId('count-member-without-hash').textContent()).toBe('1');
    await page.screenshot({ path: path.join(ARTIFACTS, 'integrity-broken.png'), fullPage: true });

    await page.getByRole('button', { name: 'Repair safe findings…' }).click();
    await page.getByRole('button', { name: 'Apply safe repairs' }).click();
    const repairs = page.getByTestId('integrity-repairs');
    await repairs.getByText('1 applied, 0 not applied.').waitFor({ timeout: 15_000 });
    expect(await repairs.locator('tr[data-applied="true"]').textContent()).toContain(
      'member-without-hash',
    );
    await status.getByText('Walk done: clean.').waitFor({ timeout: 15_000 });
    expect(await row.getByTestId('count-member-without-hash').textContent()).toBe('0');
    expect(await page.getByRole('button', { name: 'Repair safe findings…' }).count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'integrity-repaired.png'), fullPage: true });
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(1);
    await context.close();
  });
});
