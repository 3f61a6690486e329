/**
 * The merged Workers page and the overview's total throughput in Debian's Chromium against
 * `next start` and a real Redis: an OxMQ worker's row shows its heartbeat (host and pid, the job
 * it holds linked, its state) beside a bullmq worker's row marked as sending none; an operator
 * quiets and resumes the OxMQ worker from that page; the overview charts throughput summed over
 * the listed queues. Screenshots: e2e/artifacts/workers.png and overview-throughput.png.
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { Worker as BullWorker } from 'bullmq';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { OPERATOR } from '../test/console/users';
import { cancellableProcessor } from '../test/helpers/cancellable-processor';
import { redisOptions, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-roster');
const metricsName = uniqueQueueName('e2e-throughput');
const started = new Set<string>();
let browser: Browser;
let queue: Queue;
let metricsQueue: Queue;
let oxmq: Worker;
let bull: BullWorker;
let metricsWorker: Worker;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  metricsQueue = new Queue(metricsName, { connection: redisOptions() });
  await Promise.all([queue.waitUntilReady(), metricsQueue.waitUntilReady()]);
  oxmq = new Worker(name, cancellableProcessor(started), {
    connection: redisOptions(),
    concurrency: 2,
    heartbeatInterval: 200,
    name: 'roster-oxmq',
  });
  // Connected (its named blocking connection is open) but not running, so the job the test adds
  // goes to the OxMQ worker.
  bull = new BullWorker(name, async () => 'ok', {
    connection: redisOptions(),
    name: 'roster-bull',
    autorun: false,
  });
  await bull.waitUntilReady();
  metricsWorker = new Worker(metricsName, async () => 'ok', {
    connection: redisOptions(),
    metrics: { maxDataPoints: 60 },
    timingHistory: { flushInterval: 200 },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([oxmq?.close(true), bull?.close(true), metricsWorker?.close()]);
  for (const q of [queue, metricsQueue]) {
    await q?.obliterate({ force: true });
    await q?.close();
  }
});

describe('Workers page in Chromium', () => {
  it('shows the OxMQ worker with its heartbeat and the bullmq one without; quiets from there', async () => {
    const job = await queue.add('long', {});
    await waitFor(async () => started.has(job.id));
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    await page.goto(`${baseUrl}/workers`);
    const section = page.locator(`section[data-queue="${name}"]`);
    const row = section.locator(`tr[data-worker-id="${oxmq.id}"]`);
    await row.waitFor({ timeout: 15_000 });
    await row.getByText(`${hostname()} · ${process.pid}`).waitFor();
    await row.getByRole('link', { name: job.id }).waitFor();
    await row.getByRole('cell', { name: 'roster-oxmq OxMQ' }).waitFor();
    const bullRow = section.locator('tr[data-worker="roster-bull"]');
    await bullRow.getByText('bullmq (no heartbeat)').waitFor();
    expect(await bullRow.getByRole('button').count()).toBe(0);

    await row.getByRole('button', { name: /^Quiet/ }).click();
    await row.getByTestId('worker-state').filter({ hasText: 'quiet' }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'workers.png'), fullPage: true });
    await row.getByRole('button', { name: /^Resume/ }).click();
    await row
      .getByTestId('worker-state')
      .filter({ hasText: 'running' })
      .waitFor({ timeout: 10_000 });
    await context.close();
  });
});

describe('overview throughput in Chromium', () => {
  it('charts completed, failed and retried per minute over the listed queues', async () => {
    const done = new Promise((resolve) => metricsWorker.once('completed', resolve));
    await metricsQueue.add('x', {});
    await done;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    // From the timing history the OxMQ worker writes (every 200 ms here), not its metrics option.
    const chart = page.getByTestId('total-throughput');
    await chart.locator('svg.recharts-surface').first().waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('total-throughput-summary').textContent()).toMatch(
      /Summed over the \d+ of \d+ listed queues with history in the last hour\.$/,
    );
    await page.screenshot({
      path: path.join(ARTIFACTS, 'overview-throughput.png'),
      fullPage: true,
    });
    await context.close();
  });
});
