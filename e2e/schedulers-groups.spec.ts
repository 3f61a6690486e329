/**
 * The schedulers and groups panels in Debian's Chromium: a scheduler is listed with its next
 * run, "Run now" adds a job that shows up in the queue's waiting list, and an operator pauses
 * and resumes a tenant group from its panel. Screenshots in e2e/artifacts.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { OPERATOR } from '../test/console/users';
import { redisOptions, uniqueQueueName } from '../test/helpers/redis';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-sched');
let browser: Browser;
let queue: Queue;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  await queue.upsertJobScheduler(
    'nightly-report',
    { pattern: '0 3 * * *', tz: 'Europe/Paris', limit: 100 },
    { name: 'report', data: { team: 'ops' } },
  );
  await queue.upsertJobScheduler('heartbeat', { every: 90 * 60_000 }, { name: 'ping' });
  await queue.addBulk(
    ['acme', 'globex', 'initech'].map((id) => ({
      name: 'sync',
      data: {},
      opts: { group: { id } },
    })),
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

describe('schedulers and groups panels in Chromium', () => {
  it('lists a scheduler with its next run and runs it now', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    await page.goto(`${baseUrl}/queues/bull/${name}`);

    const row = page.locator('[data-scheduler-id="nightly-report"]');
    await row.waitFor({ timeout: 15_000 });
    const next = (await queue.getJobScheduler('nightly-report'))!.next!;
    const shown = await row.getByTestId('scheduler-next').locator('time').getAttribute('datetime');
    expect(shown).toBe(new Date(next).toISOString());
    await row.getByTestId('scheduler-schedule').filter({ hasText: '0 3 * * *' }).waitFor();
    await page
      .locator('[data-scheduler-id="heartbeat"]')
      .getByTestId('scheduler-schedule')
      .filter({ hasText: 'every 1 h 30 min' })
      .waitFor();

    const waitingBefore = await queue.getWaitingCount();
    await row.getByRole('button', { name: 'Run now' }).click();
    const result = page.getByTestId('scheduler-run-result');
    await result.waitFor({ timeout: 10_000 });
    const jobId = /Added job (\S+)\./.exec((await result.textContent()) ?? '')?.[1];
    expect(jobId).toBeDefined();
    expect(await queue.getJobState(jobId!)).toBe('waiting');
    expect(await queue.getWaitingCount()).toBe(waitingBefore + 1);

    await page.locator('#tab-waiting').click();
    await page.getByRole('link', { name: jobId!, exact: true }).waitFor({ timeout: 10_000 });
    await page.locator('section[aria-labelledby="schedulers-heading"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'schedulers.png'), fullPage: true });
    await context.close();
  });

  it('pauses and resumes a tenant group from its panel', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    await page.goto(`${baseUrl}/queues/bull/${name}`);

    const row = page.locator('[data-group-id="globex"]');
    await row.waitFor({ timeout: 15_000 });
    await row.getByRole('button', { name: 'Pause' }).click();
    await row.getByTestId('group-state').filter({ hasText: 'paused' }).waitFor({ timeout: 10_000 });
    expect((await queue.getGroup('globex')).paused).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'groups.png'), fullPage: true });

    await row.getByRole('button', { name: 'Resume' }).click();
    await row
      .getByTestId('group-state')
      .filter({ hasText: 'running' })
      .waitFor({ timeout: 10_000 });
    expect((await queue.getGroup('globex')).paused).toBe(false);

    // Half a rate limit is refused in words, and nothing is sent.
    await row.getByRole('button', { name: 'Limits…' }).click();
    const form = page.getByTestId('group-limits-form');
    await form.getByLabel('Max jobs').fill('5');
    await form.getByRole('button', { name: 'Set rate limit' }).click();
    await form
      .getByRole('alert')
      .getByText('A rate limit needs both "Max jobs" and "per (ms)"', { exact: false })
      .waitFor();
    expect((await queue.getGroup('globex')).rateLimit).toBeNull();
    await context.close();
  });
});
