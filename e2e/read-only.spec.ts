/**
 * Read-only mode in a real browser: a console started with OXMQ_READ_ONLY=true shows the badge,
 * offers no mutation control even to an admin, and refuses a mutation sent from the page itself
 * (same origin, signed in) with 403 READ_ONLY, leaving the queue untouched.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { startConsole, type ConsoleServer } from '../test/console/console-server';
import { ADMIN, consoleEnv } from '../test/console/users';
import { redisOptions, uniqueQueueName } from '../test/helpers/redis';
import { launchChromium } from './browser';

const ARTIFACTS = path.resolve('e2e/artifacts');
const name = uniqueQueueName('ro-e2e');
let browser: Browser;
let queue: Queue;
let server: ConsoleServer;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  await queue.add('waiting', { n: 1 });
  server = await startConsole(consoleEnv(inject('redisPort'), { OXMQ_READ_ONLY: 'true' }));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await queue?.close();
});

describe('read-only console in Chromium', () => {
  it('shows no mutation controls to an admin and refuses a same-origin mutation', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/`);

    const card = page.locator(`section[data-queue="${name}"]`);
    await card.waitFor({ timeout: 15_000 });
    await page.getByText('read-only', { exact: true }).waitFor();
    expect(await card.getByRole('button', { name: `Pause ${name}` }).count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'read-only.png'), fullPage: true });

    // The page's own session and origin: only the read-only switch stands in the way.
    const answer = await page.evaluate(async (url) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: response.status, body: (await response.json()) as { code?: string } };
    }, `/api/queues/bull/${name}/pause`);
    expect(answer).toEqual({ status: 403, body: expect.objectContaining({ code: 'READ_ONLY' }) });
    expect(await queue.isPaused()).toBe(false);
    await context.close();
  });
});
