/**
 * A job made by a job scheduler (id `repeat:<scheduler id>:<millis>`, bullmq's format) in
 * Chromium: reached from its queue page's list, its page opens with its data and state, and an
 * operator promotes it from there.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { redisOptions, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { OPERATOR } from '../test/console/users';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-sched-job');
let browser: Browser;
let queue: Queue;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  // A yearly pattern: the pending job waits in delayed, where Promote applies.
  await queue.upsertJobScheduler(
    'new-year',
    { pattern: '0 0 1 1 *' },
    { name: 'greeting', data: { message: 'happy new year' } },
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

describe("a job scheduler's job in Chromium", () => {
  it('opens from the queue page and is promoted from its own page', async () => {
    const [job] = await queue.getJobs(['delayed']);
    expect(job?.id).toMatch(/^repeat:new-year:\d+$/);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    await page.goto(`${baseUrl}/queues/bull/${name}?state=delayed`);
    // The list's row (the schedulers panel may link the same job too: either opens its page).
    await page.getByRole('link', { name: job!.id, exact: true }).first().click();

    await page.getByRole('heading', { name: `Job ${job!.id}`, level: 1 }).waitFor();
    await page.getByTestId('job-state').filter({ hasText: 'delayed' }).waitFor();
    await page.getByText('"happy new year"').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'scheduler-job.png'), fullPage: true });

    await page.getByRole('button', { name: 'Promote' }).click();
    await page.getByTestId('job-state').filter({ hasText: 'waiting' }).waitFor();
    await waitFor(async () => (await queue.getJobState(job!.id)) === 'waiting');
    await context.close();
  });
});
