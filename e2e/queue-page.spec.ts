/**
 * The queue page in Debian's Chromium against `next start`, a real Redis and a
 * real OxMQ Worker: search by a value inside job data, bulk-retry every failed job with a
 * progress bar until the worker completes them, pause and resume, and a viewer who sees no
 * mutation controls and gets 403 from the API; "Retry all matching" a search by a value inside
 * data, which the worker then completes, and "Remove all" behind the typed queue name. Every
 * state is saved to e2e/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { redisOptions, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { ADMIN, OPERATOR, VIEWER } from '../test/console/users';
import { launchChromium } from './browser';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-qpage');
const FLAKY = 12;
/** A second queue for "all matching": 9 failed jobs, 3 of them for tenant acme. */
const tenantName = uniqueQueueName('e2e-qpage-tenant');
const TENANTS = 9;
const ACME = 3;
let browser: Browser;
let queue: Queue;
let worker: Worker;
let tenants: Queue;
let tenantWorker: Worker;

async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
}

async function signIn(
  page: Page,
  user: { username: string; password: string },
  queueName: string = name,
) {
  await page.goto(
    `${baseUrl}/login?callbackUrl=${encodeURIComponent(`/queues/bull/${queueName}`)}`,
  );
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: `bull:${queueName}` }).waitFor();
}

/** Fails each job's first attempt only, so a retry from the console completes it. */
const failFirstAttempt = async (job: { attemptsMade: number }) => {
  if (job.attemptsMade === 0) throw new Error('first attempt fails');
  return 'ok';
};

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  // Fails each job's first attempt only, so a retry from the console completes it.
  worker = new Worker(
    name,
    async (job) => {
      if (job.attemptsMade === 0) throw new Error('first attempt fails');
      return 'ok';
    },
    { connection: redisOptions(), concurrency: 4 },
  );
  await queue.addBulk(
    Array.from({ length: FLAKY }, (_, i) => ({
      name: 'charge',
      data: { order: { id: `ord-${i}`, total: i * 10 } },
    })),
  );
  await waitFor(async () => (await queue.getJobCounts('failed')).failed === FLAKY, 20_000);
  tenants = new Queue(tenantName, { connection: redisOptions() });
  tenantWorker = new Worker(tenantName, failFirstAttempt, {
    connection: redisOptions(),
    concurrency: 4,
  });
  await tenants.addBulk(
    Array.from({ length: TENANTS }, (_, i) => ({
      name: 'sync',
      data: { n: i, tenant: i % 3 === 0 ? 'acme' : 'globex' },
    })),
  );
  await waitFor(async () => (await tenants.getJobCounts('failed')).failed === TENANTS, 20_000);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await queue?.close();
  await tenantWorker?.close();
  await tenants?.close();
});

describe('queue page in Chromium', () => {
  it('searches inside data, bulk-retries all failed jobs, pauses and resumes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, OPERATOR);
    await page
      .getByRole('tab', { name: /Failed/ })
      .getByText(String(FLAKY))
      .waitFor();
    await screenshot(page, 'queue-page.png');

    // Keyboard: the tabs follow the arrow keys.
    await page.getByRole('tab', { name: /Completed/ }).click();
    await page.keyboard.press('ArrowRight');
    const failedTab = page.getByRole('tab', { name: /Failed/ });
    expect(await failedTab.getAttribute('aria-selected')).toBe('true');
    await page
      .locator('#jobs-panel tbody tr')
      .nth(FLAKY - 1)
      .waitFor();
    await screenshot(page, 'queue-page-failed.png');

    // Search by a value at a JSON path inside the data.
    await page.getByLabel('Search by', { exact: true }).selectOption('path');
    await page.getByLabel('In state', { exact: true }).selectOption('failed');
    await page.getByLabel('Path', { exact: true }).fill('order.id');
    await page.getByLabel('Equals', { exact: true }).fill('ord-7');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const result = page.getByTestId('search-result');
    await result.getByText(`1 found · searched ${FLAKY} of ${FLAKY} failed jobs`).waitFor();
    const [ord7] = (await queue.getJobs(['failed'], 0, -1)).filter(
      (job) => (job.data as { order: { id: string } }).order.id === 'ord-7',
    );
    await result.getByRole('link', { name: ord7!.id }).waitFor();
    expect(await result.locator('tbody tr').count()).toBe(1);
    await screenshot(page, 'queue-page-search.png');

    // Bulk retry of all N failed jobs: progress to 100%, then the worker completes them.
    await page.getByRole('button', { name: `Retry all ${FLAKY} failed` }).click();
    const progress = page.getByTestId('bulk-progress');
    await progress.getByText(`retry all failed: ${FLAKY} of ${FLAKY} (100%)`).waitFor();
    await progress.getByText('done').waitFor();
    expect(await progress.locator('progress').getAttribute('value')).toBe('100');
    await screenshot(page, 'queue-page-bulk-retry.png');
    await waitFor(async () => (await queue.getJobCounts('completed')).completed === FLAKY, 20_000);
    await page
      .getByRole('tab', { name: /Completed/ })
      .getByText(String(FLAKY))
      .waitFor();
    await screenshot(page, 'queue-page-completed.png');

    // Pause and resume from the queue page; the diagnosis explains the pause.
    await page.getByRole('button', { name: 'Pause queue' }).click();
    await page.getByRole('button', { name: 'Resume queue' }).waitFor();
    expect(await queue.isPaused()).toBe(true);
    await page.getByTestId('diagnosis').locator('[data-reason="paused"]').waitFor();
    await screenshot(page, 'queue-page-paused.png');
    await page.getByRole('button', { name: 'Resume queue' }).click();
    await page.getByRole('button', { name: 'Pause queue' }).waitFor();
    expect(await queue.isPaused()).toBe(false);
    await context.close();
  });

  it('shows a viewer no mutation controls, and the API refuses them with 403', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, VIEWER);
    await page.getByRole('tab', { name: /Completed/ }).click();
    await page.locator('#jobs-panel .pager').waitFor();
    await page.getByTestId('limits').waitFor();
    // Inside the page only tabs, pagers and the search form are buttons.
    const labels = await page.locator('.queue-page button').allTextContents();
    for (const label of labels) {
      expect(label).not.toMatch(/Pause|Resume|Retry|Promote|Remove|Drain|Clean|Obliterate|Apply/);
    }
    expect(await page.locator('#jobs-panel input[type="checkbox"]').count()).toBe(0);
    const status = await page.evaluate(async (url) => {
      const response = await fetch(`${url}/bulk`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ action: 'retry', state: 'completed' }),
      });
      return response.status;
    }, `/api/queues/bull/${name}`);
    expect(status).toBe(403);
    await screenshot(page, 'queue-page-viewer.png');
    await context.close();
  });

  it('retries all jobs matching a data search, and removes all only with the typed name', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, ADMIN, tenantName);
    await page.getByLabel('Search by', { exact: true }).selectOption('path');
    await page.getByLabel('In state', { exact: true }).selectOption('failed');
    await page.getByLabel('Path', { exact: true }).fill('tenant');
    await page.getByLabel('Equals', { exact: true }).fill('acme');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const result = page.getByTestId('search-result');
    await result
      .getByText(`${ACME} found · searched ${TENANTS} of ${TENANTS} failed jobs`)
      .waitFor();

    // "Retry all matching" scans the whole failed state and retries only the acme jobs.
    await result.getByRole('button', { name: 'Retry all matching' }).click();
    const progress = result.getByTestId('bulk-progress');
    await progress
      .getByText(`retry all matching failed: ${TENANTS} of ${TENANTS} (100%)`)
      .waitFor();
    await progress.getByText(`${ACME} matched and acted on`).waitFor();
    await progress.getByText('done').waitFor();
    expect(await progress.locator('progress').getAttribute('value')).toBe('100');
    await screenshot(page, 'queue-page-bulk-matching.png');
    await waitFor(async () => (await tenants.getJobCounts('completed')).completed === ACME, 20_000);
    const completed = await tenants.getJobs(['completed'], 0, -1);
    expect(completed.map((job) => (job.data as { tenant: string }).tenant)).toEqual(
      Array(ACME).fill('acme'),
    );
    expect((await tenants.getJobCounts('failed')).failed).toBe(TENANTS - ACME);

    // Remove all failed: a typed confirmation, and the API refuses it without the name.
    const status = await page.evaluate(async (url) => {
      const response = await fetch(`${url}/bulk`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ action: 'remove', state: 'failed' }),
      });
      return response.status;
    }, `/api/queues/bull/${tenantName}`);
    expect(status).toBe(422);
    const left = TENANTS - ACME;
    await page.getByRole('tab', { name: /Failed/ }).click();
    const jobs = page.locator('#jobs-panel');
    await jobs.getByRole('button', { name: `Remove all ${left} failed` }).click();
    const confirm = jobs.getByRole('form', { name: `Confirm Remove ${left} failed jobs` });
    const submit = confirm.getByRole('button', { name: `Remove ${left} failed jobs` });
    expect(await submit.isDisabled()).toBe(true);
    await confirm.getByLabel('Type').fill('wrong');
    expect(await submit.isDisabled()).toBe(true);
    await confirm.getByLabel('Type').fill(tenantName);
    await screenshot(page, 'queue-page-remove-confirm.png');
    await submit.click();
    await jobs
      .getByTestId('bulk-progress')
      .getByText(`remove all failed: ${left} of ${left} (100%)`)
      .waitFor();
    expect((await tenants.getJobCounts('failed')).failed).toBe(0);
    expect((await tenants.getJobCounts('completed')).completed).toBe(ACME);
    await context.close();
  });
});
