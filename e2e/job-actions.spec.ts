/**
 * The job page offers each action only in the states where it works, and when the job moved
 * after the page read it, the refusal it shows says what the job does now and what to do
 * instead. Against `next start`, a real Redis and a real OxMQ Worker, in Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { redisOptions, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { ADMIN } from '../test/console/users';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const baseUrl = inject('consoleUrl');
/** No worker: jobs stay waiting or delayed. */
const idle = uniqueQueueName('e2e-actions');
/** A worker that holds its job until released. */
const busy = uniqueQueueName('e2e-actions-busy');
let browser: Browser;
let idleQueue: Queue;
let busyQueue: Queue;
let worker: Worker;
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

const ACTIONS = ['Retry', 'Cancel', 'Promote', 'Duplicate', 'Remove', 'Set priority', 'Set delay'];

beforeAll(async () => {
  idleQueue = new Queue(idle, { connection: redisOptions() });
  busyQueue = new Queue(busy, { connection: redisOptions() });
  worker = new Worker(busy, () => released, { connection: redisOptions() });
  browser = await launchChromium();
});

afterAll(async () => {
  release();
  await browser?.close();
  await worker?.close();
  for (const queue of [idleQueue, busyQueue]) {
    await queue?.obliterate({ force: true });
    await queue?.close();
  }
});

async function openJob(queue: string, id: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signIn(page, baseUrl, ADMIN);
  await page.goto(`${baseUrl}/queues/bull/${queue}/jobs/${id}`);
  await page.getByRole('heading', { name: 'Actions' }).waitFor();
  return page;
}

async function offered(page: Page): Promise<string[]> {
  const labels = await page.locator('.job-actions button').allTextContents();
  return ACTIONS.filter((action) => labels.some((label) => label.trim() === action));
}

describe('job actions by state', () => {
  it('a waiting job: no Set delay, Promote, Retry or Cancel', async () => {
    const job = await idleQueue.add('w', {});
    const page = await openJob(idle, job.id);
    await page.getByTestId('job-state').filter({ hasText: 'waiting' }).waitFor();
    expect(await offered(page)).toEqual(['Duplicate', 'Remove', 'Set priority']);
    await page.context().close();
  });

  it('a running job: Cancel, not Remove, with a note saying why', async () => {
    const job = await busyQueue.add('b', {});
    await waitFor(async () => (await busyQueue.getJobState(job.id)) === 'active');
    const page = await openJob(busy, job.id);
    await page.getByTestId('job-state').filter({ hasText: 'active' }).waitFor();
    expect(await offered(page)).toEqual(['Cancel', 'Duplicate']);
    expect(await page.getByTestId('actions-note').textContent()).toContain(
      'it can be cancelled, but not removed',
    );
    await page.context().close();
  });

  it('Set delay on a job promoted since the page read it: a refusal in words', async () => {
    const job = await idleQueue.add('d', {}, { delay: 600_000 });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // The page keeps the job as it first read it, so it still offers Set delay after the
    // promotion below, whatever its polling does meanwhile.
    const detailPath = `/api/queues/bull/${idle}/jobs/${job.id}`;
    let first: { status: number; body: string } | undefined;
    await page.route(
      (url) => url.pathname === detailPath,
      async (route) => {
        if (route.request().method() !== 'GET') return route.continue();
        if (!first) {
          const response = await route.fetch();
          first = { status: response.status(), body: await response.text() };
        }
        await route.fulfill({
          status: first.status,
          body: first.body,
          contentType: 'application/json',
        });
      },
    );
    await signIn(page, baseUrl, ADMIN);
    await page.goto(`${baseUrl}/queues/bull/${idle}/jobs/${job.id}`);
    await page.getByTestId('job-state').filter({ hasText: 'delayed' }).waitFor();
    await job.promote();
    await page.getByLabel('Delay (ms)').fill('5000');
    await page.getByRole('button', { name: 'Set delay' }).click();
    const alert = page.locator('.job-actions [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      `Job ${job.id} is waiting for a worker: only a delayed job has a delay to change. To hold it back, pause the queue, or remove it and add it again with a delay.`,
    );
    expect(await idleQueue.getJobState(job.id)).toBe('waiting');
    await context.close();
  });
});
