/**
 * Notifications in Debian's Chromium, against a `next start` with a webhook pointing at a
 * receiver of the test's own: an admin's "Send a test notification" (after the confirmation
 * dialog) reaches the receiver and the page says so; an operator sees the page without the
 * button; an operator mutes a queue from its page, finds it on the notifications page and
 * unmutes it there. No Content-Security-Policy violation on the way. Screenshots go to
 * e2e/artifacts/.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { startConsole, type ConsoleServer } from '../test/console/console-server';
import { ADMIN, consoleEnv, OPERATOR } from '../test/console/users';
import { redisOptions } from '../test/helpers/redis';
import {
  notificationOf,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../test/helpers/webhook-receiver';
import { launchChromium, watchCspViolations } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const prefix = `ntfe-${randomUUID().slice(0, 8)}`;
let browser: Browser;
let receiver: WebhookReceiver;
let server: ConsoleServer;
let queue: Queue;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  receiver = await startWebhookReceiver();
  server = await startConsole(
    consoleEnv(inject('redisPort'), {
      OXMQ_PREFIXES: prefix,
      OXMQ_NOTIFY_WEBHOOKS: JSON.stringify([{ url: receiver.url, name: 'team channel' }]),
    }),
  );
  queue = new Queue('billing', { connection: redisOptions(), prefix });
  await queue.setGlobalConcurrency(3);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await receiver?.close();
});

async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
}

describe('notifications in Chromium', () => {
  it('an admin sends a test notification from the notifications page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const violations = await watchCspViolations(context);
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(page, server.url, ADMIN);
    await page.getByRole('link', { name: 'Notifications' }).click();
    await page.getByRole('heading', { name: 'Notifications', exact: true }).waitFor();
    await page.getByTestId('webhooks').getByText('team channel').waitFor();

    await page.getByRole('button', { name: 'Send a test notification' }).click();
    const results = page.getByTestId('test-results');
    await results.getByText('Delivered to 1 of 1 webhook.').waitFor();
    await results.getByText('team channel: delivered (HTTP 200)').waitFor();
    const test = await receiver.next(notificationOf('test'));
    expect(test.body.message).toContain(ADMIN.username);
    await screenshot(page, 'notifications-test.png');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('an operator mutes a queue on its page and unmutes it on the notifications page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, server.url, OPERATOR);
    await page.goto(`${server.url}/notifications`);
    await page.getByRole('heading', { name: 'Muted queues' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send a test notification' }).count()).toBe(0);

    await page.goto(`${server.url}/queues/${prefix}/billing`);
    const panel = page.getByTestId('notifications');
    await panel.getByText(/sent to the webhooks when they start and clear/).waitFor();
    await panel.getByRole('button', { name: 'Mute notifications' }).click();
    await panel.getByText(`Muted by ${OPERATOR.username}`, { exact: false }).waitFor();
    await screenshot(page, 'notifications-muted-queue.png');

    await page.goto(`${server.url}/notifications`);
    const row = page.locator('tr[data-queue="billing"]');
    await row.getByText(OPERATOR.username).waitFor();
    await row.getByRole('button', { name: 'Unmute' }).click();
    await page.getByText('No queue is muted.').waitFor();
    await context.close();
  });
});
