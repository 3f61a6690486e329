/**
 * Cancel means stop, in Debian's Chromium. An operator cancels a running job from its page: the
 * worker (whose heartbeat is far off) is woken through Redis, the job fails as cancelled within
 * a second and is not retried, and the timeline shows the request and its outcome. A sandboxed
 * processor that ignores its signal: the page says so after the grace period and offers a force
 * stop, which kills its child and fails the attempt as cancelled. Screenshots in e2e/artifacts.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker, type Job } from 'oxmq';
import { OPERATOR } from '../test/console/users';
import { cancellableProcessor } from '../test/helpers/cancellable-processor';
import { redisOptions, uniqueQueueName } from '../test/helpers/redis';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
/** Far longer than the test: only the wake through Redis can bring the cancel in time. */
const heartbeatInterval = 60_000;
const closables: { close(): Promise<unknown> }[] = [];
const queues: Queue[] = [];
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(closables.map((thing) => thing.close()));
  for (const queue of queues) {
    await queue.obliterate({ force: true });
    await queue.close();
  }
});

function newQueue(label: string): Queue {
  const queue = new Queue(uniqueQueueName(label), { connection: redisOptions() });
  queues.push(queue);
  return queue;
}

function nextEvent<T extends unknown[]>(worker: Worker, event: 'active' | 'failed') {
  return new Promise<T>((resolve) =>
    worker.once(event, (...args: unknown[]) => resolve(args as T)),
  );
}

async function operatorPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  await signIn(page, baseUrl, OPERATOR);
  return page;
}

/** Clicks Cancel (accepting its confirm) and resolves when the console answered. */
async function clickCancel(page: Page): Promise<number> {
  page.once('dialog', (dialog) => void dialog.accept());
  const answered = page.waitForResponse(
    (response) => response.url().endsWith('/cancel') && response.request().method() === 'POST',
  );
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await answered;
  return Date.now();
}

describe('cancelling a running job from its page', () => {
  it('ends it within a second, failed as cancelled, not retried; the timeline says so', async () => {
    const queue = newQueue('e2e-cancel');
    const started = new Set<string>();
    const worker = new Worker(queue.name, cancellableProcessor(started), {
      connection: redisOptions(),
      heartbeatInterval,
    });
    closables.push({ close: () => worker.close(true) });
    const active = nextEvent<[Job]>(worker, 'active');
    const job = await queue.add('long', {}, { attempts: 3 });
    await active;

    const page = await operatorPage();
    await page.goto(`${baseUrl}/queues/bull/${queue.name}/jobs/${job.id}`);
    await page.getByTestId('job-state').filter({ hasText: 'active' }).waitFor();
    const failed = nextEvent<[Job, Error]>(worker, 'failed');
    const answeredAt = await clickCancel(page);
    const [, error] = await failed;
    expect(Date.now() - answeredAt).toBeLessThan(1_000);
    expect(error.message).toBe('Cancelled');
    await page.getByRole('status').filter({ hasText: 'without a retry' }).waitFor();

    await page.getByTestId('job-state').filter({ hasText: 'failed' }).waitFor({ timeout: 10_000 });
    await page.getByTestId('failed-reason').filter({ hasText: 'Cancelled' }).waitFor();
    const timeline = page.getByRole('list', { name: 'Lifecycle timeline' });
    await timeline.locator('li[data-event="cancel-requested"]').waitFor({ timeout: 10_000 });
    await timeline
      .locator('li[data-event="cancelled"]')
      .filter({ hasText: 'stopped' })
      .waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'job-cancel-stopped.png'), fullPage: true });

    const stored = (await queue.getJob(job.id))!;
    expect(stored.attemptsMade).toBe(1);
    expect(started.size).toBe(1);
    expect(await queue.getJobCounts('wait', 'delayed', 'active')).toEqual({
      wait: 0,
      delayed: 0,
      active: 0,
    });
    await page.context().close();
  });

  it('says when a sandboxed processor ignores it, and force stops it', async () => {
    const queue = newQueue('e2e-cancel-force');
    const file = fileURLToPath(
      new URL('../test/helpers/sandbox-processors/ignores-cancel.ts', import.meta.url),
    );
    const worker = new Worker(queue.name, file, { connection: redisOptions(), heartbeatInterval });
    closables.push({ close: () => worker.close(true) });
    const running = new Promise<void>((resolve) => worker.once('progress', () => resolve()));
    const job = await queue.add('stubborn', {}, { attempts: 3 });
    await running;

    const page = await operatorPage();
    await page.goto(`${baseUrl}/queues/bull/${queue.name}/jobs/${job.id}`);
    await page.getByTestId('job-state').filter({ hasText: 'active' }).waitFor();
    await clickCancel(page);
    const status = page.getByTestId('cancel-status');
    await status.filter({ hasText: 'waiting for the processor to stop' }).waitFor();
    // Past the grace period (5 s) the page says the processor ignores the cancel.
    await status.filter({ hasText: 'has not stopped' }).waitFor({ timeout: 15_000 });
    expect(await queue.getJobState(job.id)).toBe('active');
    await page.screenshot({ path: path.join(ARTIFACTS, 'job-cancel-ignored.png'), fullPage: true });

    const failed = nextEvent<[Job, Error]>(worker, 'failed');
    page.once('dialog', (dialog) => void dialog.accept());
    await status.getByRole('button', { name: 'Force stop' }).click();
    const [, error] = await failed;
    expect(error.message).toBe('Cancelled (force stop)');
    await page.getByTestId('job-state').filter({ hasText: 'failed' }).waitFor({ timeout: 10_000 });
    await page
      .getByRole('list', { name: 'Lifecycle timeline' })
      .locator('li[data-event="cancelled"]')
      .filter({ hasText: 'force-stopped' })
      .waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'job-cancel-forced.png'), fullPage: true });
    expect((await queue.getJob(job.id))?.attemptsMade).toBe(1);
    await page.context().close();
  });
});
