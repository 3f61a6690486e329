/**
 * Live updates, workers and metrics in Chromium against `next start`, a real Redis and real
 * OxMQ workers: the overview's counts change without a reload when a job is added (polling is
 * set to "off", so only the event stream can bring the change), the workers page shows the
 * worker by name, and the metrics pages chart a queue's history and its worker's metrics.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { redisOptions, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { VIEWER } from '../test/console/users';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const liveName = uniqueQueueName('e2e-live');
const metricsName = uniqueQueueName('e2e-metrics');
let browser: Browser;
let liveQueue: Queue;
let metricsQueue: Queue;
let metricsWorker: Worker;

async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  liveQueue = new Queue(liveName, { connection: redisOptions() });
  await liveQueue.add('first', {});
  metricsQueue = new Queue(metricsName, { connection: redisOptions() });
  metricsWorker = new Worker(
    metricsName,
    async (job) => {
      if (job.name === 'bad') throw new Error('bad job');
      return 'ok';
    },
    { connection: redisOptions(), metrics: { maxDataPoints: 60 }, name: 'metrics-e2e' },
  );
  await metricsQueue.addBulk([
    { name: 'good', data: {} },
    { name: 'good', data: {} },
    { name: 'bad', data: {} },
  ]);
  await waitFor(async () => {
    const counts = await metricsQueue.getJobCounts('completed', 'failed');
    return counts.completed === 2 && counts.failed === 1;
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await metricsWorker?.close();
  await Promise.all([liveQueue?.close(), metricsQueue?.close()]);
});

describe('live pages in Chromium', () => {
  it('updates the overview counts without a reload when a job is added', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // Polling off: only the event stream can make the new count appear.
    await context.addInitScript(() => window.localStorage.setItem('oxmq.pollingMs', '0'));
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    const card = page.locator(`section[data-queue="${liveName}"]`);
    const waiting = (n: number) =>
      card
        .locator('[data-state="waiting"] dd', { hasText: new RegExp(`^${n}$`) })
        .waitFor({ timeout: 10_000 });
    await waiting(1);
    await page.getByTestId('live-status').filter({ hasText: 'Live' }).waitFor();
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    });

    await liveQueue.add('second', {});
    await waiting(2);
    await liveQueue.addBulk([
      { name: 'third', data: {} },
      { name: 'fourth', data: {} },
    ]);
    await waiting(4);
    expect(navigations).toEqual([]);
    await screenshot(page, 'overview-live.png');
    await context.close();
  });

  it('shows the worker on the workers page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    await nav(page).getByRole('link', { name: 'Workers', exact: true }).click();
    await page.getByRole('heading', { name: 'Workers', level: 1 }).waitFor();
    const section = page.locator(`section[data-queue="${metricsName}"]`);
    await section.locator('tr[data-worker="metrics-e2e"]').waitFor();
    expect(await section.getByText(/^1 worker$/).count()).toBe(1);
    // A queue with no worker says what that means.
    await page
      .locator(`section[data-queue="${liveName}"]`)
      .getByText(/No worker is connected/)
      .waitFor();
    await screenshot(page, 'workers-connected.png');
    await context.close();
  });

  it('charts a queue whose worker records metrics, and explains an empty one', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      colorScheme: 'dark',
    });
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    await nav(page).getByRole('link', { name: 'Metrics', exact: true }).click();
    await page.getByRole('heading', { name: 'Metrics', level: 1 }).waitFor();
    await page.getByTestId('history-coverage').waitFor();
    await screenshot(page, 'metrics.png');

    // The queue's page: the history its OxMQ worker keeps (flushed every 5 s while it runs)...
    await page.goto(`${baseUrl}/metrics/bull/${metricsName}`);
    await page.getByRole('heading', { name: new RegExp(`Metrics of .*${metricsName}`) }).waitFor();
    await page
      .getByTestId('history-throughput-summary')
      .getByText(/2 completed · 1 failed · 0 retried/)
      .waitFor();
    // ... and bullmq's per-minute lists, which its metrics option writes. Every job finished in
    // one minute: drawn as dots, a line needs two points (hollow ones of their own while that
    // minute is under way, the lines' once it is over).
    await page
      .getByTestId('throughput-chart')
      .locator('.recharts-line-dots circle')
      .first()
      .waitFor({ state: 'attached' });
    await page.getByRole('group', { name: 'Range' }).getByRole('button', { name: '6 h' }).click();
    await page.getByText(/Last 6 h:/).waitFor();
    await page.getByText(/Last 6 h, 5 min points: 2 completed/).waitFor();
    await screenshot(page, 'metrics-queue.png');

    // A queue no worker served says what records the history.
    await page.goto(`${baseUrl}/metrics/bull/${liveName}`);
    await page
      .getByText(/OxMQ workers record timing history as they process jobs/)
      .first()
      .waitFor();
    await context.close();
  });
});
