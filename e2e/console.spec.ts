/**
 * The console in a real browser (Debian's Chromium) against `next start`, a real Redis and a
 * real OxMQ Worker: sign in through the form, read the right counts, pause and resume from the
 * UI, read the audit log, switch to dark mode. Every page is saved to e2e/artifacts/.
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
const name = uniqueQueueName('e2e');
let browser: Browser;
let queue: Queue;
let worker: Worker;

async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  worker = new Worker(
    name,
    async (job) => {
      if (job.name === 'explode') throw new Error('boom');
      return 'ok';
    },
    { connection: redisOptions(), metrics: { maxDataPoints: 60 }, name: 'e2e-worker' },
  );
  await queue.addBulk([
    { name: 'send', data: { n: 1 } },
    { name: 'send', data: { n: 2 } },
    { name: 'send', data: { n: 3 } },
    { name: 'explode', data: { n: 4 } },
  ]);
  await queue.add('later', {}, { delay: 600_000 });
  await queue.add('later', {}, { delay: 600_000 });
  await waitFor(async () => {
    const counts = await queue.getJobCounts('completed', 'failed');
    return counts.completed === 3 && counts.failed === 1;
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await queue?.close();
});

/** The queue's card on the overview. */
const card = (page: Page) => page.locator(`section[data-queue="${name}"]`);

async function expectCount(page: Page, state: string, value: number): Promise<void> {
  await card(page)
    .locator(`[data-state="${state}"] dd`, { hasText: new RegExp(`^${value}$`) })
    .waitFor({ timeout: 15_000 });
}

async function signInThroughForm(page: Page, user: { username: string; password: string }) {
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('console in Chromium', () => {
  it('signs in, shows the right counts, pauses and resumes, and audits it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();

    await page.goto(`${baseUrl}/`);
    await page.waitForURL(/\/login/);
    await screenshot(page, 'login.png');

    await signInThroughForm(page, { username: OPERATOR.username, password: 'not-the-password' });
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor();
    await screenshot(page, 'login-error.png');

    await signInThroughForm(page, OPERATOR);
    await page.getByRole('heading', { name: 'Queues', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');

    await expectCount(page, 'completed', 3);
    await expectCount(page, 'failed', 1);
    await expectCount(page, 'delayed', 2);
    await expectCount(page, 'waiting', 0);
    await card(page)
      .getByTestId('workers')
      .filter({ hasText: /^1 worker/ })
      .waitFor();
    await card(page).getByText('Completed: 3 this minute').waitFor();
    await screenshot(page, 'overview.png');

    // Keyboard first: the Pause button is reachable and works with Enter.
    const pause = card(page).getByRole('button', { name: `Pause ${name}` });
    await pause.focus();
    await page.keyboard.press('Enter');
    await card(page).getByText('Paused', { exact: true }).waitFor();
    expect(await queue.isPaused()).toBe(true);
    await screenshot(page, 'overview-paused.png');

    await card(page)
      .getByRole('button', { name: `Resume ${name}` })
      .click();
    await card(page)
      .getByRole('button', { name: `Pause ${name}` })
      .waitFor();
    expect(await queue.isPaused()).toBe(false);
    await expect(card(page).getByText('Paused', { exact: true }).count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const rows = page.locator('tbody tr', { hasText: `bull:${name}` });
    await rows.filter({ hasText: 'queue.resume' }).waitFor();
    await rows.filter({ hasText: 'queue.pause' }).waitFor();
    expect(await rows.first().textContent()).toContain(OPERATOR.username);
    await screenshot(page, 'audit.png');

    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('button', { name: 'Dark theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await expectCount(page, 'completed', 3);
    await screenshot(page, 'overview-dark.png');
    // The choice survives a reload (applied before paint by the boot script).
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await context.close();
  });

  it('honours the system dark preference and signs an admin out', async () => {
    const context = await browser.newContext({ colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/login`);
    await signInThroughForm(page, ADMIN);
    await page.getByRole('heading', { name: 'Queues', exact: true }).waitFor();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(20, 21, 26)');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await context.close();
  });

  it('shows a viewer the queues without mutation controls or the audit link', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl}/login`);
    await signInThroughForm(page, VIEWER);
    await expectCount(page, 'completed', 3);
    expect(await card(page).getByRole('button').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await page.goto(`${baseUrl}/audit`);
    await page.getByRole('alert').filter({ hasText: 'needs the operator role' }).waitFor();
    await screenshot(page, 'audit-viewer.png');
    await context.close();
  });
});
