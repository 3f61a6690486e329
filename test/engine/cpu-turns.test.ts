/**
 * engine/admin/cpu-turns.ts: the admin layer's CPU-heavy loops take one slice per turn of the
 * event loop between them all, first come first served, each slice ending once its time is
 * spent; and searches over a real Redis go through those turns, so however many run at once
 * the event loop keeps turning for everyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { CpuTurns } from 'oxmq/admin';
import { searchJobs } from 'oxmq/internals';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

/** Busy for `ms`: the CPU work of one item. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

/** Counts turns of the event loop (one setImmediate per turn) until stopped. */
function loopTurns(): { count: () => number; log: string[]; stop: () => void } {
  const log: string[] = [];
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns += 1;
    log.push('tick');
    setImmediate(tick);
  };
  setImmediate(tick);
  return { count: () => turns, log, stop: () => (running = false) };
}

/** A loop of `items` items of `itemMs` each, taking slices on `turns`, logging each slice. */
async function slicedLoop(
  turns: CpuTurns,
  label: string,
  items: number,
  itemMs: number,
  log: string[],
): Promise<number[]> {
  const slice = turns.slice();
  const perSlice: number[] = [];
  await slice.begin();
  log.push(label);
  perSlice.push(0);
  for (let i = 0; i < items; i += 1) {
    spin(itemMs);
    perSlice[perSlice.length - 1]! += 1;
    if (slice.spent() && i < items - 1) {
      await slice.begin();
      log.push(label);
      perSlice.push(0);
    }
  }
  return perSlice;
}

describe('CpuTurns', () => {
  it('ends a slice once its time is spent', async () => {
    const turns = new CpuTurns(3);
    const perSlice = await slicedLoop(turns, 'a', 30, 1, []);
    // Items of 1 ms or more (a busy machine only stretches them) in 3 ms slices: never more
    // than three in a slice, and slices of several items, not a turn per item.
    expect(perSlice.every((items) => items >= 1 && items <= 3)).toBe(true);
    expect(perSlice.length).toBeLessThan(30);
    expect(perSlice.reduce((sum, items) => sum + items, 0)).toBe(30);
  });

  it('grants one slice per turn of the event loop, however many loops wait', async () => {
    const turns = new CpuTurns(2);
    const ticker = loopTurns();
    await Promise.all(['a', 'b', 'c'].map((label) => slicedLoop(turns, label, 20, 1, ticker.log)));
    ticker.stop();
    // Between any two slices the event loop turned at least once (the ticker ran).
    const slices = ticker.log.filter((entry) => entry !== 'tick').length;
    expect(slices).toBeGreaterThanOrEqual(30);
    for (const [i, entry] of ticker.log.entries()) {
      if (entry !== 'tick' && i > 0) expect(ticker.log[i - 1], `entry ${i}`).toBe('tick');
    }
  });

  it('serves waiting loops first come first served', async () => {
    const turns = new CpuTurns(1);
    const log: string[] = [];
    await Promise.all([slicedLoop(turns, 'a', 4, 1, log), slicedLoop(turns, 'b', 4, 1, log)]);
    expect(log).toEqual(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('lets a lone loop run without waiting for timers', async () => {
    const turns = new CpuTurns(1);
    const started = performance.now();
    // 200 turns, each right after the last: far below a timer's millisecond each.
    for (let i = 0; i < 200; i += 1) await turns.next();
    expect(performance.now() - started).toBeLessThan(200);
    expect(turns.queued).toBe(0);
  });
});

describe('searches on shared turns', () => {
  const client = rawClient();
  const name = uniqueQueueName('cpu-turns');
  let queue: Queue;
  const JOBS = 1_000;

  beforeAll(async () => {
    queue = new Queue(name, { connection: redisOptions() });
    await queue.addBulk(
      Array.from({ length: JOBS }, (_, i) => ({
        name: 'order',
        data: Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`key${k}`, `v-${i}-${k}`])),
      })),
    );
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    await client.quit();
  });

  it('match every job in slices, the event loop turning between them', async () => {
    const turns = new CpuTurns(2);
    const ticker = loopTurns();
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        searchJobs(client, 'bull', name, {
          state: 'waiting',
          mode: 'text',
          // No letters: the prefilter keeps every job, so each is parsed and redacted.
          query: '::::9',
          turns,
        }),
      ),
    );
    ticker.stop();
    for (const result of results) {
      expect(result).toMatchObject({ scanned: JOBS, matches: [], stoppedBy: null });
    }
    // Four searches of a thousand jobs in slices of 2 ms: many turns, not a handful.
    expect(ticker.count()).toBeGreaterThan(20);
    expect(turns.queued).toBe(0);
  });
});
