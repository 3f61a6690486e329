/**
 * Live workers and cancellation in Debian's Chromium: the queue page lists the OxMQ worker from
 * its heartbeat, an operator quiets and resumes it, and cancels a running job from the job page
 * (the worker, told through Redis, fails the job with the reason). Screenshots in e2e/artifacts.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
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
const name = uniqueQueueName('e2e-workers');
const started = new Set<string>();
let browser: Browser;
let queue: Queue;
let worker: Worker;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  await queue.waitUntilReady();
  worker = new Worker(name, cancellableProcessor(started), {
    connection: redisOptions(),
    concurrency: 3,
    heartbeatInterval: 200,
    name: 'e2e-worker',
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await worker?.close(true);
  await queue?.obliterate({ force: true });
  await queue?.close();
});

describe('live workers in Chromium', () => {
  it('quiets and resumes a worker, and cancels a running job', async () => {
    const job = await queue.add('long', {});
    await waitFor(async () => started.has(job.id));
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);

    await page.goto(`${baseUrl}/queues/bull/${name}`);
    const row = page.locator(`[data-worker-id="${worker.id}"]`);
    await row.waitFor({ timeout: 15_000 });
    await row.getByRole('link', { name: job.id }).waitFor();
    await row.getByRole('button', { name: 'Quiet' }).click();
    await row.getByTestId('worker-state').filter({ hasText: 'quiet' }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'live-workers-quiet.png'), fullPage: true });
    await row.getByRole('button', { name: 'Resume' }).click();
    await row
      .getByTestId('worker-state')
      .filter({ hasText: 'running' })
      .waitFor({ timeout: 10_000 });

    await page.goto(`${baseUrl}/queues/bull/${name}/jobs/${job.id}`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('status').filter({ hasText: 'Cancellation sent' }).waitFor();
    await page.getByTestId('job-state').filter({ hasText: 'failed' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'job-cancelled.png'), fullPage: true });
    expect((await queue.getJob(job.id))?.failedReason).toBe('Cancelled');
    await context.close();
  });
});
