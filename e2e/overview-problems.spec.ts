/**
 * The overview's problem strip, sort and filter, and the queue page's opening tab, in Debian's
 * Chromium against `next start` and a real Redis: a queue of 1,200 waiting jobs and no worker
 * shows "No worker" in the strip and its count with a thousands separator; the filter and sort
 * live in the URL; a queue whose only jobs are delayed opens on its Delayed tab. Screenshots go
 * to e2e/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { redisOptions, uniqueQueueName } from '../test/helpers/redis';
import { VIEWER } from '../test/console/users';
import { launchChromium } from './browser';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const backlogName = uniqueQueueName('e2e-ov-backlog');
const delayedName = uniqueQueueName('e2e-ov-delayed');
const JOBS = 1_200;
let browser: Browser;
let backlog: Queue;
let delayed: Queue;

async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  backlog = new Queue(backlogName, { connection: redisOptions() });
  await backlog.addBulk(Array.from({ length: JOBS }, (_, i) => ({ name: 'job', data: { n: i } })));
  delayed = new Queue(delayedName, { connection: redisOptions() });
  await delayed.add('later', {}, { delay: 600_000 });
  await delayed.add('later', {}, { delay: 600_000 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await backlog?.obliterate({ force: true });
  await delayed?.obliterate({ force: true });
  await backlog?.close();
  await delayed?.close();
});

async function signIn(page: Page, callbackUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/login?callbackUrl=${encodeURIComponent(callbackUrl)}`);
  await page.getByLabel('Username').fill(VIEWER.username);
  await page.getByLabel('Password').fill(VIEWER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('overview problems in Chromium', () => {
  it('shows "No worker" in the problem strip, 1,200 with a separator, and filters by name', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, '/');
    await page.getByRole('heading', { name: 'Queues', exact: true }).waitFor();

    const strip = page.getByTestId('problem-strip');
    const problem = strip.locator(`li[data-queue="${backlogName}"][data-kind="no-worker"]`);
    await problem.getByText('1,200 jobs wait but no worker is connected.').waitFor();
    await problem.getByText('No worker').waitFor();
    const card = page.locator(`section[data-queue="${backlogName}"]`);
    await card.locator('[data-state="waiting"] dd', { hasText: /^1,200$/ }).waitFor();
    await screenshot(page, 'overview-problems.png');

    // The name filter narrows the cards and is written to the URL.
    await page.getByLabel('Filter by name').fill(backlogName);
    await page
      .getByTestId('queue-filter-count')
      .getByText(/^1 of \d+ queues match$/)
      .waitFor();
    expect(await page.locator('.queue-grid section[data-queue]').count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('q')).toBe(backlogName);

    // A shared view: sort and filter from the URL alone.
    await page.goto(`${baseUrl}/?sort=backlog&q=e2e-ov-`);
    await page.getByLabel('Sort by').waitFor();
    expect(await page.getByLabel('Sort by').inputValue()).toBe('backlog');
    expect(await page.getByLabel('Filter by name').inputValue()).toBe('e2e-ov-');
    const order = await page
      .locator('.queue-grid section[data-queue]')
      .evaluateAll((cards) => cards.map((element) => element.getAttribute('data-queue')));
    expect(order).toEqual([backlogName, delayedName]);
    await screenshot(page, 'overview-sorted.png');

    // The strip links to the queue page, which opens on the waiting jobs.
    await page.goto(`${baseUrl}/`);
    await problem.getByRole('link', { name: `bull:${backlogName}` }).click();
    await page.getByRole('heading', { name: `bull:${backlogName}` }).waitFor();
    await page
      .getByRole('tab', { name: /Waiting/ })
      .first()
      .getByText('1,200')
      .waitFor();
    await page.getByText('Page 1 of 48 · 1,200 jobs').waitFor();
    await context.close();
  });

  it('opens the queue page on the first state with jobs when the URL names none', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, `/queues/bull/${delayedName}`);
    await page.getByRole('heading', { name: `bull:${delayedName}` }).waitFor();
    const delayedTab = page.getByRole('tab', { name: /Delayed/ });
    await page.locator('#jobs-panel tbody tr').nth(1).waitFor();
    expect(await delayedTab.getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).searchParams.get('state')).toBeNull();
    // The search starts in the opened tab's state too.
    expect(await page.getByLabel('In state', { exact: true }).inputValue()).toBe('delayed');
    await screenshot(page, 'queue-page-first-non-empty.png');

    // A chosen tab is written to the URL and survives a reload.
    await page.getByRole('tab', { name: /Failed/ }).click();
    expect(new URL(page.url()).searchParams.get('state')).toBe('failed');
    await page.reload();
    await page.getByText('No failed jobs.').waitFor();
    expect(await page.getByRole('tab', { name: /Failed/ }).getAttribute('aria-selected')).toBe(
      'true',
    );
    await context.close();
  });
});
