/**
 * Error groups in Debian's Chromium: 300 jobs failed by a real Worker with three distinct errors
 * show as three groups of 100 under "Group by error" (kept in the URL); the scan continues by
 * itself, call after call, saying how far it got; an operator retries one group and it leaves
 * the table while its jobs wait again. Screenshot in e2e/artifacts/error-groups.png.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { OPERATOR } from '../test/console/users';
import { redisOptions, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-errors');
const PER_ERROR = 100;
const ERRORS = {
  user: (n: number) => `User ${7000 + n} not found`,
  timeout: (n: number) => `Timeout after ${300 + n}ms calling 10.2.${n}.7:9090`,
  card: (n: number) => `Card ${n}-${n * 3} declined: insufficient funds (${n}.00 EUR)`,
} as const;
type Kind = keyof typeof ERRORS;
const TIMEOUT_SIGNATURE = 'Timeout after <n>ms calling <ip>:<port>';
/** Jobs per call the page is made to ask for, so 300 jobs take three calls. */
const CALL_BUDGET = 120;
let browser: Browser;
let queue: Queue;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  await queue.addBulk(
    (Object.keys(ERRORS) as Kind[]).flatMap((kind) =>
      Array.from({ length: PER_ERROR }, (_, n) => ({ name: kind, data: { kind, n } })),
    ),
  );
  const worker = new Worker(
    name,
    async (job) => {
      const { kind, n } = job.data as { kind: Kind; n: number };
      throw new Error(ERRORS[kind](n));
    },
    { connection: redisOptions(), concurrency: 25 },
  );
  await waitFor(async () => (await queue.getJobCounts('failed')).failed === 3 * PER_ERROR, 30_000);
  await worker.close();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

/** Waits for the scan status to read `text`; a timeout says what it read instead. */
async function expectStatus(groups: Locator, text: string): Promise<void> {
  try {
    await groups.getByText(text, { exact: true }).waitFor({ timeout: 30_000 });
  } catch (caught) {
    const shown = await groups
      .getByRole('status')
      .textContent()
      .catch(() => null);
    throw new Error(`scan status never read "${text}"; it reads "${shown}"`, { cause: caught });
  }
}

describe('error groups in Chromium', () => {
  it('groups the failed tab by error, scans on by itself, and retries one group', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    // Each scan call asks for fewer jobs, so the page has to make successive calls. The calls
    // after the first are held until the page has said how far the first got: the in-between
    // state is then on screen for as long as the test needs, however loaded the machine is.
    const calls: string[] = [];
    let releaseFollowUps!: () => void;
    const followUpsReleased = new Promise<void>((resolve) => (releaseFollowUps = resolve));
    await page.route('**/error-groups*', async (route) => {
      const url = new URL(route.request().url());
      url.searchParams.set('budget', String(CALL_BUDGET));
      calls.push(url.search);
      if (url.searchParams.has('cursor')) await followUpsReleased;
      // A call the page abandoned meanwhile (a new scan) has nothing left to continue.
      await route.continue({ url: url.toString() }).catch(() => undefined);
    });

    await page.goto(`${baseUrl}/queues/bull/${name}?state=failed`);
    await page.getByLabel('Group by error').check();
    expect(new URL(page.url()).searchParams.get('group')).toBe('error');
    const groups = page.getByTestId('error-groups');
    await expectStatus(groups, `Grouped ${CALL_BUDGET} of 300 failed jobs… scanning`);
    await groups.getByRole('button', { name: 'Stop' }).waitFor();
    releaseFollowUps();
    await expectStatus(groups, 'Grouped 300 of 300 failed jobs');
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.slice(1).every((search) => search.includes('cursor='))).toBe(true);

    const rows = groups.getByTestId('error-group');
    expect(await rows.count()).toBe(3);
    expect(await groups.getByTestId('error-group-count').allTextContents()).toEqual([
      '100',
      '100',
      '100',
    ]);
    const timeoutRow = rows.filter({ hasText: TIMEOUT_SIGNATURE });
    await timeoutRow.getByRole('link').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'error-groups.png'), fullPage: true });

    // Reloading keeps the grouped view: the choice is in the URL.
    await page.reload();
    await expectStatus(groups, 'Grouped 300 of 300 failed jobs');

    await timeoutRow.getByRole('button', { name: 'Retry group' }).click();
    await groups
      .getByTestId('bulk-progress')
      .getByText('retry error group in failed: 300 of 300 (100%)', { exact: false })
      .waitFor({ timeout: 15_000 });
    // The run ends, the groups are scanned again, and the retried group is gone.
    await expectStatus(groups, 'Grouped 200 of 200 failed jobs');
    await waitFor(async () => (await rows.count()) === 2);
    expect(await rows.filter({ hasText: TIMEOUT_SIGNATURE }).count()).toBe(0);
    await page.screenshot({
      path: path.join(ARTIFACTS, 'error-groups-retried.png'),
      fullPage: true,
    });
    const waiting = await queue.getJobs(['waiting'], 0, -1);
    expect(waiting).toHaveLength(PER_ERROR);
    expect(waiting.every((job) => job.name === 'timeout')).toBe(true);
    await context.close();
  });
});
