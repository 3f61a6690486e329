/**
 * The console's security headers and sign-in redirects in Debian's Chromium: every page works
 * under its nonce-based Content-Security-Policy (no violation reported on any page, the flow
 * graph and charts included), the headers are on pages and API answers, and a crafted
 * callbackUrl cannot send a user off-site after signing in.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FlowProducer, Queue } from 'oxmq';
import { startConsole, type ConsoleServer } from '../test/console/console-server';
import { attemptSignIn } from '../test/console/sign-in-attempt';
import { ADMIN, consoleEnv } from '../test/console/users';
import { redisOptions, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { launchChromium, watchCspViolations } from './browser';

const name = uniqueQueueName('security-e2e');
let browser: Browser;
let queue: Queue;
let flows: FlowProducer;
let server: ConsoleServer;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  flows = new FlowProducer({ connection: redisOptions() });
  server = await startConsole(consoleEnv(inject('redisPort')));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await flows?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

async function signInThroughForm(page: Page): Promise<void> {
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('security headers', () => {
  it('gives each page its own nonce policy, and every answer the fixed headers', async () => {
    const first = await fetch(`${server.url}/login`);
    const second = await fetch(`${server.url}/login`);
    const policy = first.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}' 'strict-dynamic'/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).not.toContain('unsafe-eval');
    expect(second.headers.get('content-security-policy')).not.toBe(policy);
    const html = await first.text();
    const nonce = /'nonce-([^']+)'/.exec(policy)![1]!;
    // Every script of the page carries this response's nonce (Next's and the theme script).
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
    expect(scripts.length).toBeGreaterThan(1);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);

    for (const response of [first, await fetch(`${server.url}/api/health`)]) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('same-origin');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-powered-by')).toBeNull();
      // Served over http here: no HSTS.
      expect(response.headers.get('strict-transport-security')).toBeNull();
    }
    const api = await fetch(`${server.url}/api/health`);
    expect(api.headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
  });

  it('sends HSTS when the console is served over https', async () => {
    const https = await startConsole(
      consoleEnv(inject('redisPort'), { NEXTAUTH_URL: 'https://console.example' }),
    );
    try {
      const response = await fetch(`${https.url}/login`);
      expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
    } finally {
      await https.stop();
    }
  });

  it('every page works under the policy in Chromium, with no violation reported', async () => {
    const waiting = await queue.add('plain', { n: 1 });
    const tree = await flows.add({
      name: 'root',
      queueName: name,
      data: {},
      children: [{ name: 'leaf', queueName: name, data: {} }],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const violations = await watchCspViolations(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await signInThroughForm(page);
    await page.getByRole('heading', { name: 'Queues', exact: true }).waitFor();
    await page.locator(`section[data-queue="${name}"]`).waitFor({ timeout: 15_000 });

    await page.goto(`${server.url}/queues/bull/${name}`);
    await page.getByRole('heading', { name }).waitFor();
    await page.goto(`${server.url}/queues/bull/${name}/jobs/${waiting.id}`);
    await page.getByRole('heading', { name: `Job ${waiting.id}` }).waitFor();
    await page.goto(`${server.url}/flows/bull/${name}/${tree.job.id}`);
    await waitFor(async () => (await page.getByTestId('flow-node').count()) === 2, 15_000, 100);
    for (const [path, heading] of [
      ['/workers', 'Workers'],
      ['/metrics', 'Metrics'],
      ['/audit', 'Audit log'],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await page.getByRole('heading', { name: heading }).waitFor();
    }
    // The theme script ran under the policy: choosing dark mode sticks across a reload.
    await page.getByRole('button', { name: 'Dark theme' }).click();
    await page.reload();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(violations).toEqual([]);
    // The watch itself works: a page served with an inline script that lacks the nonce (added
    // to the real answer, policy unchanged) has the script blocked and reported.
    await page.route(`${server.url}/workers`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(
        '</body>',
        '<script>window.__notAllowed = 1</script></body>',
      );
      await route.fulfill({ response, body: html });
    });
    await page.goto(`${server.url}/workers`);
    await waitFor(async () => violations.length > 0, 5_000, 50);
    expect(await page.evaluate(() => '__notAllowed' in window)).toBe(false);
    await context.close();
  });
});

describe('redirect after sign-in', () => {
  it.each(['/\\evil.example', '/\t/evil.example', '//evil.example', 'https://evil.example/'])(
    'stays on the console for callbackUrl %j',
    async (callbackUrl) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/login?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      await signInThroughForm(page);
      await page.getByRole('heading', { name: 'Queues', exact: true }).waitFor();
      expect(new URL(page.url()).origin).toBe(server.url);
      await context.close();
    },
  );

  it('follows a same-origin callbackUrl', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/login?callbackUrl=${encodeURIComponent('/workers')}`);
    await signInThroughForm(page);
    await page.waitForURL(`${server.url}/workers`);
    await context.close();
  });

  it('next-auth itself answers an off-site callbackUrl with the console', async () => {
    const response = await attemptSignIn(
      server.url,
      ADMIN.username,
      ADMIN.password,
      {},
      {
        callbackUrl: 'https://evil.example/steal',
      },
    );
    expect(response.status).toBe(200);
    const { url } = (await response.json()) as { url: string };
    expect(new URL(url).origin).toBe(server.url);
  });
});
