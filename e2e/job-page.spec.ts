/**
 * The job page and the flows page in Debian's Chromium against `next start`, a real Redis and
 * a real OxMQ Worker: a job that fails on its first run is retried from
 * the page until it shows completed, its timeline spans both runs, secrets stay redacted, and a
 * FlowProducer flow renders its nodes on the flows page. Screenshots go to e2e/artifacts/.
 * The shared console has test/console/links-env.ts' link settings: a traced job's id links to
 * the trace viewer, and the queue page to its Grafana dashboard.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FlowProducer, Queue, Worker } from 'oxmq';
import { redisOptions, uniqueQueueName, waitFor } from '../test/helpers/redis';
import { GRAFANA_BASE, traceUrlFor } from '../test/console/links-env';
import { OPERATOR, VIEWER } from '../test/console/users';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-job');
const failedOnce = new Set<string>();
let browser: Browser;
let queue: Queue;
let worker: Worker;
let flows: FlowProducer;

async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
}

const jobUrl = (id: string) => `${baseUrl}/queues/bull/${name}/jobs/${id}`;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  flows = new FlowProducer({ connection: redisOptions() });
  worker = new Worker(
    name,
    async (job) => {
      if (job.name === 'flaky' && !failedOnce.has(job.id)) {
        failedOnce.add(job.id);
        await job.log('first run: giving up');
        throw new Error('upstream refused token=e2e-secret-token');
      }
      await job.updateProgress(100);
      await job.log(`run for ${job.name} done`);
      return { ok: true };
    },
    { connection: redisOptions(), name: 'e2e-job-worker' },
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await flows?.close();
  await queue?.close();
});

describe('job page in Chromium', () => {
  it('retries a failed job until it shows completed, with a timeline across both runs', async () => {
    const job = await queue.add(
      'flaky',
      { user: 'e2e', password: 'e2e-secret-password', nested: { apiKey: 'e2e-secret-key' } },
      { attempts: 1 },
    );
    await waitFor(async () => (await queue.getJobState(job.id)) === 'failed');

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    await page.goto(jobUrl(job.id));
    await page.getByTestId('job-state').filter({ hasText: 'failed' }).waitFor();
    await page.getByTestId('failed-reason').filter({ hasText: 'token=[redacted]' }).waitFor();
    await page.getByLabel('Job data').waitFor();
    await page.getByText('"[redacted]"').first().waitFor();
    const html = await page.content();
    for (const secret of ['e2e-secret-password', 'e2e-secret-key', 'e2e-secret-token']) {
      expect(html).not.toContain(secret);
    }
    await page.locator('.timeline li[data-event="failed"]').waitFor();
    await screenshot(page, 'job-failed.png');

    await page.getByRole('button', { name: 'Retry' }).click();
    await page
      .getByTestId('job-state')
      .filter({ hasText: 'completed' })
      .waitFor({ timeout: 20_000 });
    await page.locator('.timeline li[data-event="completed"]').waitFor({ timeout: 20_000 });
    const events = await page
      .locator('.timeline li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-event')));
    const lifecycle = events.filter((event) => event !== 'retries-exhausted');
    expect(lifecycle).toEqual([
      'added',
      'waiting',
      'active',
      'failed',
      'waiting',
      'active',
      'completed',
    ]);
    await page.getByLabel('Log lines').filter({ hasText: 'run for flaky done' }).waitFor();
    expect(await page.getByTestId('progress').getAttribute('value')).toBe('100');
    await screenshot(page, 'job-completed.png');

    await page.getByRole('button', { name: 'Dark theme' }).click();
    await screenshot(page, 'job-completed-dark.png');
    await context.close();
  });

  it('shows a viewer the job without action controls', async () => {
    const job = await queue.add('plain', { n: 1 });
    await waitFor(async () => (await queue.getJobState(job.id)) === 'completed');
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    await page.goto(jobUrl(job.id));
    await page.getByTestId('job-state').filter({ hasText: 'completed' }).waitFor();
    for (const label of ['Retry', 'Duplicate', 'Remove', 'Edit data']) {
      expect(await page.getByRole('button', { name: label }).count()).toBe(0);
    }
    await context.close();
  });

  it('links trace ids to the trace viewer and the queue to its Grafana dashboard', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const tree = await flows.add({
      name: 'traced',
      queueName: name,
      opts: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      children: [{ name: 'traced-child', queueName: name }],
    });
    const child = tree.children![0]!.job;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    await page.goto(jobUrl(child.id));
    const link = page.getByTestId('trace-link');
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(traceUrlFor(traceId));
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await link.getByTestId('trace-id').textContent()).toBe(traceId);
    await screenshot(page, 'job-trace-link.png');

    await page.goto(`${baseUrl}/flows/bull/${name}/${tree.job.id}`);
    const nodeLinks = page.getByTestId('flow-node-trace');
    await waitFor(async () => (await nodeLinks.count()) === 2, 15_000, 100);
    const hrefs = await nodeLinks.evaluateAll((all) => all.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual([traceUrlFor(traceId), traceUrlFor(traceId)]);
    await screenshot(page, 'flow-trace-links.png');

    await page.goto(`${baseUrl}/queues/bull/${name}`);
    const dashboard = page.getByTestId('grafana-queue-link');
    await dashboard.waitFor();
    expect(await dashboard.getAttribute('href')).toBe(
      `${GRAFANA_BASE}/d/oxmq-queue/oxmq-queue?var-prefix=bull&var-queue=${encodeURIComponent(name)}`,
    );
    await context.close();
  });

  it('renders a FlowProducer flow on the flows page and clicks through to a job', async () => {
    const tree = await flows.add({
      name: 'assemble',
      queueName: name,
      data: { part: 'root' },
      children: [
        { name: 'wheel', queueName: name, data: { n: 1 } },
        { name: 'wheel', queueName: name, data: { n: 2 } },
        { name: 'frame', queueName: name, data: {} },
      ],
    });
    await waitFor(async () => (await queue.getJobState(tree.job.id)) === 'completed');
    const child = tree.children![0]!.job;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OPERATOR);
    await page.goto(jobUrl(child.id));
    // The parent link, then the way to the whole flow.
    await page.getByRole('link', { name: `${name}:${tree.job.id}` }).waitFor();
    await page.getByRole('link', { name: 'Show the flow graph' }).click();
    await page.waitForURL(/\/flows\//);
    const nodes = page.getByTestId('flow-node');
    await waitFor(async () => (await nodes.count()) === 4, 15_000, 100);
    expect(await page.locator('[data-testid="flow-node"][data-state="completed"]').count()).toBe(4);
    await screenshot(page, 'flow.png');

    await page.locator(`[data-job-key="bull:${name}:${tree.job.id}"]`).click();
    await page.waitForURL(new RegExp(`/jobs/${tree.job.id}$`));
    await page.getByRole('heading', { name: `Job ${tree.job.id}` }).waitFor();
    await context.close();
  });
  it('loads a big flow a page at a time with "Load more"', async () => {
    // No worker on this queue: the jobs stay waiting, so the counts below are stable.
    const still = new Queue(uniqueQueueName('e2e-bigflow'), { connection: redisOptions() });
    await still.waitUntilReady();
    try {
      const children = Array.from({ length: 25 }, (_, i) => ({
        name: `part-${i}`,
        queueName: still.name,
        data: { i },
      }));
      const tree = await flows.add({ name: 'big', queueName: still.name, data: {}, children });
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await signIn(page, baseUrl, OPERATOR);
      await page.goto(`${baseUrl}/flows/bull/${still.name}/${tree.job.id}`);
      const nodes = page.getByTestId('flow-node');
      // The graph route reads at most 20 children per node: the root + 20.
      await waitFor(async () => (await nodes.count()) === 21, 15_000, 100);
      // Edge handles never take a click: the root's bottom handle overlaps its button.
      const handles = page.locator('[data-testid="flow-node"] .react-flow__handle');
      expect(
        await handles.evaluateAll((all) => all.map((el) => getComputedStyle(el).pointerEvents)),
      ).toEqual(Array(42).fill('none'));
      await page.getByRole('button', { name: 'Load more' }).click();
      await waitFor(async () => (await nodes.count()) === 26, 15_000, 100);
      expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
      await screenshot(page, 'flow-big.png');
      await context.close();
    } finally {
      await still.obliterate({ force: true });
      await still.close();
    }
  });
});
