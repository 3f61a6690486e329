/**
 * Jobs of tenant groups are visible in the console, in Debian's Chromium against `next start`
 * and a real Redis: a queue of 38 grouped jobs and no worker shows 38 waiting on its overview
 * card and a "No worker" problem, its Waiting tab lists them (and the diagnosis does not say
 * "Nothing to do"), a group's row opens its jobs, and a job opened from there is waiting.
 * Screenshots go to e2e/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { VIEWER } from '../test/console/users';
import { redisOptions, uniqueQueueName } from '../test/helpers/redis';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-grouped');
const JOBS = 38;
let browser: Browser;
let queue: Queue;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  await queue.addBulk(
    Array.from({ length: JOBS }, (_, n) => ({
      name: 'sync',
      data: { n },
      opts: { group: { id: `tenant-${n % 3}` } },
    })),
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

describe('grouped jobs in Chromium', () => {
  it('counts them, lists them, flags the missing worker and opens them from their group', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);

    await page.goto(`${baseUrl}/?q=${name}`);
    const card = page.locator(`section[data-queue="${name}"]`);
    await card.locator('[data-state="waiting"] dd', { hasText: /^38$/ }).waitFor();
    const problem = page
      .getByTestId('problem-strip')
      .locator(`li[data-queue="${name}"][data-kind="no-worker"]`);
    await problem.getByText('38 jobs wait but no worker is connected.').waitFor();

    await page.goto(`${baseUrl}/queues/bull/${name}?state=waiting`);
    await page.getByRole('heading', { name: `bull:${name}` }).waitFor();
    await page
      .getByRole('tab', { name: /Waiting/ })
      .first()
      .getByText('38')
      .waitFor();
    await page.getByText('Page 1 of 2 · 38 jobs').waitFor();
    expect(await page.locator('#jobs-panel tbody tr').count()).toBe(25);
    await page.getByText('No worker is connected to this queue.').waitFor();
    expect(await page.getByText('Nothing to do').count()).toBe(0);

    // tenant-1 holds jobs 1, 4, 7, ...: its line runs them in that order.
    await page.getByRole('button', { name: /tenant-1/ }).click();
    const jobs = page.locator('[data-group-jobs-of="tenant-1"]');
    await jobs.getByText('Waiting in line (13), next to run first').waitFor();
    const firstLink = jobs.getByRole('link').first();
    const [expectedFirst] = await queue.getGroupJobs('tenant-1', 0, 0);
    expect(await firstLink.textContent()).toBe(`#${expectedFirst!.id} sync`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'grouped-jobs.png'), fullPage: true });

    await firstLink.click();
    await page.waitForURL(`**/queues/bull/${name}/jobs/${expectedFirst!.id}`);
    await page.getByTestId('job-state').getByText('waiting', { exact: true }).waitFor();
    await context.close();
  });
});
