/**
 * The metrics pages' history charts in Chromium, against `next start`, a real Redis and a real
 * OxMQ worker that ran known jobs and was closed (no `metrics` option, no Prometheus): the
 * charts render with the right totals and percentiles in their text summaries and a tooltip
 * with the point's time, the range and a job name filter change them and survive a reload
 * through the URL, a queue no OxMQ worker served says what to do, and the overview's
 * sparklines and total come from the same history.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker, type Job } from 'oxmq';
import { formatMs, formatPercent } from '../components/metrics/history-format';
import type { QueueHistoryResponse } from '../lib/api-types';
import { redisOptions, sleep, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { VIEWER } from '../test/console/users';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-history');
const emptyName = uniqueQueueName('e2e-history-empty');
const NO_OUTCOMES =
  "OxMQ workers record timing history as they process jobs; bullmq workers don't.";
let browser: Browser;
let queue: Queue;
let emptyQueue: Queue;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  emptyQueue = new Queue(emptyName, { connection: redisOptions() });
  await emptyQueue.add('never', {}, { delay: 3_600_000 });
  // 6 uploads (one fails for good), 4 resizes, 2 flaky jobs that fail once and then complete:
  // 11 completed, 1 failed, 2 retried, over 14 attempts of 12 jobs.
  await queue.addBulk([
    ...[5, 20, 20, 60, 150, 5].map((ms, i) => ({ name: 'upload', data: { ms, fail: i === 5 } })),
    ...[10, 10, 40, 80].map((ms) => ({ name: 'resize', data: { ms, fail: false } })),
    ...[0, 1].map(() => ({ name: 'flaky', data: { ms: 5, fail: false }, opts: { attempts: 2 } })),
  ]);
  const worker = new Worker(
    name,
    async (job: Job<{ ms: number; fail: boolean }>) => {
      await sleep(job.data.ms);
      if (job.data.fail) throw new Error('planned');
      if (job.name === 'flaky' && job.attemptsMade === 0) throw new Error('first try');
    },
    { connection: redisOptions(), concurrency: 4, timingHistory: { flushInterval: 200 } },
  );
  await waitFor(async () => {
    const counts = await queue.getJobCounts('completed', 'failed');
    return counts.completed === 11 && counts.failed === 1;
  }, 30_000);
  await worker.close();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const one of [queue, emptyQueue]) {
    await one?.obliterate({ force: true });
    await one?.close();
  }
});

async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  await signIn(page, baseUrl, VIEWER);
  return { context, page };
}

const summary = (page: Page, chart: string) => page.getByTestId(`${chart}-summary`);

describe('history charts in Chromium', () => {
  it('charts the queue with the right totals and percentiles, and a tooltip', async () => {
    const { context, page } = await openPage();
    await page.goto(`${baseUrl}/metrics/bull/${name}`);
    await summary(page, 'history-throughput')
      .getByText('Last 1 h, 1 min points: 11 completed · 1 failed · 2 retried.')
      .waitFor();
    for (const chart of [
      'history-throughput',
      'history-failure-rate',
      'history-wait',
      'history-run',
    ]) {
      await page.getByTestId(chart).locator('svg.recharts-surface').first().waitFor();
      // Each chart is named by its heading, and its SVG is hidden from assistive technology.
      expect(await page.getByTestId(chart).getAttribute('aria-labelledby')).toBeTruthy();
    }
    // The percentiles the page writes are the ones the API answers, in human units.
    const response = await page.request.get(`${baseUrl}/api/queues/bull/${name}/history`);
    const history = (await response.json()) as QueueHistoryResponse;
    const run = history.total.run!;
    const wait = history.total.wait!;
    await summary(page, 'history-run')
      .getByText(
        `Run time of 14 attempts: p50 ${formatMs(run.p50Ms)} · p95 ${formatMs(run.p95Ms)} · p99 ${formatMs(run.p99Ms)}`,
      )
      .waitFor();
    await summary(page, 'history-wait')
      .getByText(`Wait time of 12 jobs: p50 ${formatMs(wait.p50Ms)} · p95 ${formatMs(wait.p95Ms)}`)
      .waitFor();
    expect(run.p95Ms).toBeGreaterThanOrEqual(60);
    await summary(page, 'history-failure-rate')
      .getByText(
        `Failed for good: ${formatPercent(1 / 12)} of finished jobs (1 of 12) · attempts failed: ${formatPercent(3 / 14)}`,
      )
      .waitFor();
    // The names table: the busiest first (resize and flaky tie), each with its own counts.
    const names = page.getByTestId('history-names');
    const listed = await names.locator('tbody th').allTextContents();
    expect(listed[0]).toBe('upload');
    expect(listed.toSorted()).toEqual(['flaky', 'resize', 'upload']);
    expect(
      await names.locator('tbody tr', { hasText: 'flaky' }).locator('td').allTextContents(),
    ).toEqual(expect.arrayContaining(['2', '0']));

    // Hovering the chart near the newest points shows one point's time span and its values.
    const plot = page.getByTestId('history-throughput').locator('.recharts-wrapper');
    const box = (await plot.boundingBox())!;
    await page.mouse.move(box.x + box.width - 20, box.y + box.height / 3);
    const tooltip = page.getByTestId('history-throughput').locator('.recharts-tooltip-wrapper');
    await tooltip.getByText(/\d{1,2}:\d{2}\s?(AM|PM)?–\d{1,2}:\d{2}/).waitFor();
    await tooltip
      .getByText(/Completed/)
      .first()
      .waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-queue.png'), fullPage: true });
    await context.close();
  });

  it('switches the range and filters by a job name, both kept in the URL', async () => {
    const { context, page } = await openPage();
    await page.goto(`${baseUrl}/metrics/bull/${name}`);
    const throughput = summary(page, 'history-throughput');
    await throughput.getByText(/11 completed · 1 failed · 2 retried/).waitFor();

    await page.getByRole('group', { name: 'Range' }).getByRole('button', { name: '24 h' }).click();
    await throughput
      .getByText('Last 24 h, 15 min points: 11 completed · 1 failed · 2 retried.')
      .waitFor();
    await waitFor(() => new URL(page.url()).searchParams.get('range') === '24h');

    await page.getByTestId('history-names').getByRole('button', { name: 'upload' }).click();
    await throughput
      .getByText('Last 24 h, 15 min points: 5 completed · 1 failed · 0 retried.')
      .waitFor();
    await page.getByTestId('history-job-filter').getByText('upload').waitFor();
    await waitFor(() => new URL(page.url()).searchParams.get('job') === 'upload');
    await summary(page, 'history-run')
      .getByText(/^Run time of 6 attempts:/)
      .waitFor();

    // A reload (or a shared link) opens the same view.
    await page.reload();
    await throughput.getByText('Last 24 h, 15 min points: 5 completed · 1 failed').waitFor();
    const pressed = page
      .getByRole('group', { name: 'Range' })
      .getByRole('button', { name: '24 h' });
    expect(await pressed.getAttribute('aria-pressed')).toBe('true');

    await page
      .getByTestId('history-job-filter')
      .getByRole('button', { name: 'Show all job names' })
      .click();
    await throughput.getByText(/11 completed · 1 failed · 2 retried/).waitFor();
    expect(new URL(page.url()).searchParams.get('job')).toBeNull();
    await context.close();
  });

  it('says what to do on a queue no OxMQ worker served', async () => {
    const { context, page } = await openPage();
    await page.goto(`${baseUrl}/metrics/bull/${emptyName}`);
    await page.getByText(NO_OUTCOMES, { exact: false }).first().waitFor();
    expect(await page.getByTestId('history-throughput').count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-empty.png'), fullPage: true });
    await context.close();
  });

  it('draws the overview sparklines and total from the same history', async () => {
    const { context, page } = await openPage();
    const card = page.locator(`section[data-queue="${name}"]`);
    const completed = card.locator('figure.sparkline[data-metric="completed"]');
    await completed.getByText(/· 11 last hour$/).waitFor();
    expect(await completed.getAttribute('data-source')).toBe('history');
    await card
      .locator('figure.sparkline[data-metric="failed"]')
      .getByText(/· 1 last hour$/)
      .waitFor();
    await page
      .getByTestId('total-throughput-summary')
      .getByText(/with history in the last hour/)
      .waitFor();
    await context.close();
  });
});
