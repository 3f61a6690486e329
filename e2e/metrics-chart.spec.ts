/**
 * The throughput chart and the queue list's sparkline in Chromium, on metrics written into
 * Redis as a bullmq worker writes them: busy finished minutes and a few jobs so far in the
 * minute under way. The y axis has evenly spaced ticks on a 1-2-5 step; the lines end at the
 * last finished minute, and the minute under way is a separate point, so no chart ends in a
 * drop that reads like an outage.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { rawClient, redisOptions, sleep, uniqueQueueName } from '../test/helpers/redis';
import { VIEWER } from '../test/console/users';
import { launchChromium } from './browser';
import { signIn } from './sign-in';

const ARTIFACTS = path.resolve('e2e/artifacts');
const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('e2e-chart');
const MINUTE_MS = 60_000;
/** Completed per finished minute, oldest first: the busiest is 120, the newest 110. */
const COMPLETED = [90, 100, 120, 95, 105, 110];
const FAILED = [2, 1, 3, 2, 1, 2];
const SO_FAR = { completed: 4, failed: 1 };
const redis = rawClient();
let browser: Browser;
let queue: Queue;
let openMinute: number;

/** bullmq's metrics layout (engine/admin/metrics.ts): the running count, and one count per minute. */
async function writeMetrics(type: 'completed' | 'failed', perMinute: number[], soFar: number) {
  const key = `bull:${name}:metrics:${type}`;
  const closed = perMinute.reduce((sum, count) => sum + count, 0);
  await redis.hset(key, 'count', closed + soFar, 'prevCount', closed, 'prevTS', Date.now());
  await redis.lpush(`${key}:data`, ...perMinute.map(String));
}

/** The points of an SVG path ("M x,y L x,y" or a curve's "C ... x,y"): its last one. */
function lastPoint(d: string): { x: number; y: number } {
  const numbers = (d.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);
  return { x: numbers.at(-2)!, y: numbers.at(-1)! };
}

async function yTicks(chart: Locator): Promise<{ value: number; y: number }[]> {
  return chart
    .locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value')
    .evaluateAll((nodes) =>
      nodes.map((node) => ({
        value: Number(node.textContent?.replace(/[^\d.]/g, '')),
        y: Number(node.getAttribute('y')),
      })),
    );
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  queue = new Queue(name, { connection: redisOptions() });
  await queue.add('meta', {});
  // The minute under way must stay so while the page is checked: near its end, start afresh
  // in the next one (a wait on the clock, which is what the test is about).
  const left = MINUTE_MS - (Date.now() % MINUTE_MS);
  if (left < 25_000) await sleep(left + 50);
  openMinute = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS;
  await writeMetrics('completed', COMPLETED, SO_FAR.completed);
  await writeMetrics('failed', FAILED, SO_FAR.failed);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await redis.quit();
});

describe('metrics charts in Chromium', () => {
  it('spaces y ticks evenly and ends the lines at the last finished minute', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page: Page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    await page.goto(`${baseUrl}/metrics/bull/${name}`);
    const chart = page.getByTestId('throughput-chart');
    await chart.locator('path[name="Completed / min"]').waitFor();

    const ticks = await yTicks(chart);
    expect(ticks.map((tick) => tick.value)).toEqual([0, 50, 100, 150]);
    const gaps = ticks.slice(1).map((tick, index) => ticks[index]!.y - tick.y);
    for (const gap of gaps) expect(Math.abs(gap - gaps[0]!)).toBeLessThan(1);

    // The minute under way is named apart, and no line point is in it.
    expect(Number(await chart.getAttribute('data-open-minute'))).toBe(openMinute);
    expect(Number(await chart.getAttribute('data-last-minute'))).toBe(openMinute - MINUTE_MS);
    await chart.getByText(/this minute so far \(partial\): 4 completed · 1 failed/).waitFor();
    // recharts names each series' path and dots after the series.
    const completedLine = chart.locator('path[name="Completed / min"]');
    const end = lastPoint((await completedLine.getAttribute('d')) ?? '');
    const partial = chart.locator('circle[name="Completed this minute, so far"]');
    const partialX = Number(await partial.getAttribute('cx'));
    expect(end.x).toBeLessThan(partialX);
    // The line ends at 110 (between the 100 and 150 ticks), not at the 4 jobs so far.
    const at = (value: number) => ticks.find((tick) => tick.value === value)!.y;
    expect(end.y).toBeLessThan(at(100));
    expect(end.y).toBeGreaterThan(at(150));
    await page.screenshot({ path: path.join(ARTIFACTS, 'metrics-chart.png'), fullPage: true });
    await context.close();
  });

  it('ends the queue list sparkline at the last finished minute too', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, VIEWER);
    const card = page.locator(`section[data-queue="${name}"]`);
    const sparkline = card.locator('figure.sparkline[data-metric="completed"]');
    await sparkline.getByText('Completed: 4 this minute').waitFor();
    const line = sparkline.locator('path.recharts-curve');
    const end = lastPoint((await line.getAttribute('d')) ?? '');
    // 32 px tall, its top the busiest minute (120): the newest finished one (110) is near the
    // top, where 4 would be at the bottom.
    expect(end.y).toBeLessThan(16);
    await context.close();
  });
});
