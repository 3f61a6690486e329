/**
 * Search at scale in Debian's Chromium: in a bullmq-made queue of 100,001 waiting jobs, a text
 * search finds the newest job (added last) as the scan streams, with no "continue" to click; the
 * search lives in the URL, so the link runs it again; the quick-jump box (`/`) opens a job page by
 * id from anywhere. Screenshots in e2e/artifacts.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Queue as BullQueue } from 'bullmq';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { VIEWER } from '../test/console/users';
import { redisOptions, uniqueQueueName } from '../test/helpers/redis';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-search');
const TOTAL = 100_001;
let browser: Browser;
let producer: BullQueue;
let needleId: string;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  producer = new BullQueue(name, { connection: redisOptions() });
  const pad = 'p'.repeat(120);
  for (let from = 0; from < TOTAL - 1; from += 2_000) {
    await producer.addBulk(
      Array.from({ length: Math.min(2_000, TOTAL - 1 - from) }, (_, i) => ({
        name: 'sync',
        data: { account: `acct-${from + i}`, pad },
      })),
    );
  }
  needleId = (await producer.add('sync', { account: 'needle-account', pad })).id!;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await producer?.obliterate({ force: true });
  await producer?.close();
});

describe('search at scale', () => {
  it('finds the newest of 100,001 bullmq-made jobs without a click on continue', async () => {
    expect(await producer.count()).toBe(TOTAL);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    await page.goto(`${baseUrl}/queues/bull/${name}`);
    await page.getByLabel('Search by', { exact: true }).selectOption('text');
    await page.getByLabel('In state', { exact: true }).selectOption('waiting');
    await page.getByLabel('Value', { exact: true }).fill('needle-account');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const result = page.getByTestId('search-result');
    // Newest first: the needle is in the first window, long before the scan ends.
    await result.getByRole('link', { name: needleId }).waitFor({ timeout: 15_000 });
    await result
      .getByText('1 found · searched 100,001 of 100,001 waiting jobs (all of them)')
      .waitFor({
        timeout: 30_000,
      });
    expect(await page.getByRole('button', { name: 'Continue searching' }).count()).toBe(0);
    await screenshot(page, 'search-streamed.png');

    // The search is in the URL: opening the link runs it again.
    const shared = page.url();
    expect(new URL(shared).searchParams.get('q')).toBe('needle-account');
    const again = await context.newPage();
    await again.goto(shared);
    await again
      .getByTestId('search-result')
      .getByRole('link', { name: needleId })
      .waitFor({ timeout: 15_000 });
    expect(await again.getByLabel('Value', { exact: true }).inputValue()).toBe('needle-account');

    // Oldest first finds it last; Stop ends the walk where it is.
    await again.getByLabel('Order', { exact: true }).selectOption('oldest');
    await again.getByRole('button', { name: 'Search', exact: true }).click();
    await again.getByRole('button', { name: 'Stop' }).click();
    await again
      .getByTestId('search-result')
      .getByText(/· stopped/)
      .waitFor();
    await context.close();
  });

  it('jumps to a job by id from the header with the / shortcut', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    await page.keyboard.press('/');
    const box = page.getByLabel('Jump to job id');
    expect(await box.evaluate((element) => element === document.activeElement)).toBe(true);
    await box.fill(needleId);
    await box.press('Enter');
    await page.waitForURL(`**/queues/bull/${name}/jobs/${needleId}`);
    await page.getByText('needle-account').first().waitFor();
    await screenshot(page, 'quick-jump.png');

    await page.keyboard.press('/');
    await box.fill('no-such-job-id');
    await box.press('Enter');
    await page.getByText('No job no-such-job-id in any queue').waitFor();
    await context.close();
  });
});

async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
}
