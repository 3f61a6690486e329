import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { startTcpProxy } from '../helpers/engine-tcp-proxy';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const TWO_32 = 2 ** 32;

/** A worker (concurrency 1) that records the ids it starts, in order, with their start time. */
function recordingWorker(name: string, opts: { drainDelay?: number } = {}) {
  const started: { id: string; at: number; processedOn: number | undefined }[] = [];
  const worker = track(
    new Worker(
      name,
      async (job: Job) => {
        started.push({ id: job.id, at: Date.now(), processedOn: job.processedOn });
      },
      { connection: redisOptions(), ...opts },
    ),
  );
  return { worker, started };
}

describe('processing order', () => {
  it('FIFO: adds LPUSH onto wait and the worker takes the oldest first', async () => {
    const name = uniqueQueueName('fifo');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await queue.add('j', { i })).id);

    // Newest at the head, oldest at the tail (where workers pop).
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([...ids].reverse());
    expect(await redis.get(`bull:${name}:id`)).toBe('8');

    const { started } = recordingWorker(name);
    await waitFor(() => started.length === 8);
    expect(started.map((s) => s.id)).toEqual(ids);
  });

  it('LIFO: lifo jobs go to the front of wait and run first, newest first', async () => {
    const name = uniqueQueueName('lifo');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const a1 = await queue.add('fifo', { n: 'a1' });
    const a2 = await queue.add('fifo', { n: 'a2' });
    const l1 = await queue.add('lifo', { n: 'l1' }, { lifo: true });
    const l2 = await queue.add('lifo', { n: 'l2' }, { lifo: true });
    const a3 = await queue.add('fifo', { n: 'a3' });

    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([
      a3.id,
      a2.id,
      a1.id,
      l1.id,
      l2.id,
    ]);
    expect(JSON.parse((await redis.hget(`bull:${name}:${l1.id}`, 'opts')) ?? '{}')).toMatchObject({
      lifo: true,
    });

    const { started } = recordingWorker(name);
    await waitFor(() => started.length === 5);
    expect(started.map((s) => s.id)).toEqual([l2.id, l1.id, a1.id, a2.id, a3.id]);
  });

  it('priorities: 0 first, then ascending, FIFO within a priority, with bullmq scores', async () => {
    const name = uniqueQueueName('prio');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const p5 = await queue.add('p', { p: 5 }, { priority: 5 });
    const p1a = await queue.add('p', { p: 1 }, { priority: 1 });
    const p3 = await queue.add('p', { p: 3 }, { priority: 3 });
    const p1b = await queue.add('p', { p: 1 }, { priority: 1 });
    const p0 = await queue.add('p', { p: 0 });
    // lifo is ignored for prioritized jobs: they are ordered by score only.
    const p3lifo = await queue.add('p', { p: 3 }, { priority: 3, lifo: true });

    const prioritized = `bull:${name}:prioritized`;
    expect(await redis.zscore(prioritized, p5.id)).toBe(String(5 * TWO_32 + 1));
    expect(await redis.zscore(prioritized, p1a.id)).toBe(String(1 * TWO_32 + 2));
    expect(await redis.zscore(prioritized, p3.id)).toBe(String(3 * TWO_32 + 3));
    expect(await redis.zscore(prioritized, p1b.id)).toBe(String(1 * TWO_32 + 4));
    expect(await redis.zscore(prioritized, p3lifo.id)).toBe(String(3 * TWO_32 + 5));
    expect(await redis.get(`bull:${name}:pc`)).toBe('5');
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([p0.id]);
    expect(await redis.hget(`bull:${name}:${p5.id}`, 'priority')).toBe('5');

    const { started } = recordingWorker(name);
    await waitFor(() => started.length === 6);
    expect(started.map((s) => s.id)).toEqual([p0.id, p1a.id, p1b.id, p3.id, p3lifo.id, p5.id]);
    // The counter is dropped once a worker finds the prioritized set empty.
    await waitFor(async () => (await redis.exists(`bull:${name}:pc`)) === 0);
    expect(await redis.exists(prioritized)).toBe(0);
  });

  it('delayed: scored dueTs*4096, announced with the due time, never started early', async () => {
    const name = uniqueQueueName('delay');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    // The worker is already idle, blocked on the marker, when the delayed jobs arrive.
    const { worker, started } = recordingWorker(name);
    await new Promise((resolve) => worker.once('drained', resolve));

    const late = await queue.add('late', {}, { delay: 1600 });
    const early = await queue.add('early', {}, { delay: 800 });
    const dueLate = late.timestamp + 1600;
    const dueEarly = early.timestamp + 800;

    expect(await redis.zscore(`bull:${name}:delayed`, late.id)).toBe(String(dueLate * 4096));
    expect(await redis.zscore(`bull:${name}:delayed`, early.id)).toBe(String(dueEarly * 4096));
    expect(await redis.hget(`bull:${name}:${late.id}`, 'delay')).toBe('1600');
    const events = await redis.xrange(`bull:${name}:events`, '-', '+');
    const delayedEvent = events.find(
      ([, fields]) => fields[1] === 'delayed' && fields[3] === late.id,
    );
    expect(delayedEvent?.[1]).toEqual([
      'event',
      'delayed',
      'jobId',
      late.id,
      'delay',
      String(dueLate),
    ]);

    await waitFor(() => started.length === 2, 15_000);
    expect(started.map((s) => s.id)).toEqual([early.id, late.id]);
    const [first, second] = started;
    expect(first!.processedOn).toBeGreaterThanOrEqual(dueEarly);
    expect(first!.at).toBeGreaterThanOrEqual(dueEarly);
    expect(second!.processedOn).toBeGreaterThanOrEqual(dueLate);
    expect(second!.at).toBeGreaterThanOrEqual(dueLate);
    // Promotion reset the relative delay.
    expect(await redis.hget(`bull:${name}:${late.id}`, 'delay')).toBe('0');
  });

  it('delayed: marker member "1" carries the earliest due time', async () => {
    const name = uniqueQueueName('marker');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const now = Date.now();
    await queue.add('a', {}, { timestamp: now, delay: 50_000 });
    expect(await redis.zrange(`bull:${name}:marker`, 0, -1, 'WITHSCORES')).toEqual([
      '1',
      String(now + 50_000),
    ]);
    await queue.add('b', {}, { timestamp: now, delay: 20_000 });
    expect(Number(await redis.zscore(`bull:${name}:marker`, '1'))).toBe(now + 20_000);
    await queue.add('c', {}, { timestamp: now, delay: 30_000 });
    expect(Number(await redis.zscore(`bull:${name}:marker`, '1'))).toBe(now + 20_000);
    // A ready job adds the "0" marker (score 0) beside it.
    await queue.add('d', {});
    expect(await redis.zscore(`bull:${name}:marker`, '0')).toBe('0');
  });

  it('delayed: jobs due in the same millisecond get scores base, base+1, ... and keep FIFO', async () => {
    const name = uniqueQueueName('samems');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const now = Date.now();
    const due = now + 1000;
    const a = await queue.add('a', {}, { timestamp: now, delay: 1000 });
    const b = await queue.add('b', {}, { timestamp: now, delay: 1000 });
    const c = await queue.add('c', {}, { timestamp: now + 400, delay: 600 });
    const d = await queue.add('d', {}, { timestamp: now, delay: 999 });

    const base = due * 4096;
    const delayed = `bull:${name}:delayed`;
    expect(await redis.zscore(delayed, a.id)).toBe(String(base));
    expect(await redis.zscore(delayed, b.id)).toBe(String(base + 1));
    expect(await redis.zscore(delayed, c.id)).toBe(String(base + 2));
    expect(await redis.zscore(delayed, d.id)).toBe(String((due - 1) * 4096));

    const { started } = recordingWorker(name);
    await waitFor(() => started.length === 4, 15_000);
    expect(started.map((s) => s.id)).toEqual([d.id, a.id, b.id, c.id]);
    for (const s of started.slice(1)) expect(s.processedOn).toBeGreaterThanOrEqual(due);
    expect(started[0]!.processedOn).toBeGreaterThanOrEqual(due - 1);
  });

  it('a due delayed job with a priority joins the prioritized set behind smaller priorities', async () => {
    const name = uniqueQueueName('delprio');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const started: string[] = [];
    let blockerStarted!: () => void;
    const blockerRunning = new Promise<void>((resolve) => (blockerStarted = resolve));
    track(
      new Worker(
        name,
        async (job: Job) => {
          started.push(job.name);
          if (job.name === 'blocker') {
            blockerStarted();
            await sleep(900);
          }
        },
        { connection: redisOptions() },
      ),
    );
    await queue.add('blocker', {});
    await blockerRunning;
    const delayed = await queue.add('delayed-p7', {}, { delay: 200, priority: 7 });
    await queue.add('p3', {}, { priority: 3 });
    await queue.add('p0', {});
    await waitFor(() => started.length === 4, 10_000);
    // Promoted while the blocker ran: it must not jump the queue by landing in wait.
    expect(started).toEqual(['blocker', 'p0', 'p3', 'delayed-p7']);
    const redis = track(rawClient());
    expect(
      Number(await redis.hget(`bull:${name}:${delayed.id}`, 'processedOn')),
    ).toBeGreaterThanOrEqual(delayed.timestamp + 200);
    const events = await redis.xrange(`bull:${name}:events`, '-', '+');
    expect(events.map(([, f]) => f.join(' '))).toContain(
      `event waiting jobId ${delayed.id} prev delayed`,
    );
  });
});

describe('addBulk', () => {
  it('writes every job in one round trip, in input order, each job complete', async () => {
    const name = uniqueQueueName('bulk');
    const redis = track(rawClient());
    const proxy = await startTcpProxy(redisOptions().port);
    track(proxy);
    const queue = track(new Queue(name, { connection: { ...redisOptions(), port: proxy.port } }));
    await queue.waitUntilReady();
    // Warm up: the first script call may also check/load scripts.
    await queue.add('warm', {});
    const idBefore = Number(await redis.get(`bull:${name}:id`));

    const jobs = Array.from({ length: 40 }, (_, i) => ({
      name: `bulk-${i}`,
      data: { i },
      opts: i % 10 === 9 ? { priority: 2 } : i % 10 === 8 ? { delay: 60_000 } : {},
    }));
    const turnsBefore = proxy.totalTurns();
    const added = await queue.addBulk(jobs);
    const turns = proxy.totalTurns() - turnsBefore;

    // 40 awaited adds would need 40 request/reply turns; a pipeline needs one (plus at most a
    // script check/load on this connection).
    expect(turns).toBeGreaterThanOrEqual(1);
    expect(turns).toBeLessThanOrEqual(3);

    expect(added.map((j) => j.name)).toEqual(jobs.map((j) => j.name));
    expect(added.map((j) => j.id)).toEqual(jobs.map((_, i) => String(idBefore + 1 + i)));
    expect(await redis.get(`bull:${name}:id`)).toBe(String(idBefore + 40));
    for (const [i, job] of added.entries()) {
      const hash = await redis.hgetall(`bull:${name}:${job.id}`);
      expect(hash).toMatchObject({ name: `bulk-${i}`, data: JSON.stringify({ i }) });
      expect(Object.keys(hash)).toEqual(
        expect.arrayContaining(['name', 'data', 'opts', 'timestamp', 'delay', 'priority']),
      );
    }
    const plain = added.filter((_, i) => i % 10 < 8).map((j) => j.id);
    const waitList = await redis.lrange(`bull:${name}:wait`, 0, -1);
    // Everything after the warm-up job, oldest at the tail: input order is kept.
    expect(waitList.slice(0, -1).reverse()).toEqual(plain);
    expect(await redis.zcard(`bull:${name}:prioritized`)).toBe(4);
    expect(await redis.zcard(`bull:${name}:delayed`)).toBe(4);
    const prioritizedOrder = await redis.zrange(`bull:${name}:prioritized`, 0, -1);
    expect(prioritizedOrder).toEqual(added.filter((_, i) => i % 10 === 9).map((j) => j.id));
    // Every job announced itself, in input order.
    const events = await redis.xrange(`bull:${name}:events`, '-', '+');
    const addedIds = events.filter(([, f]) => f[1] === 'added').map(([, f]) => f[3]);
    expect(addedIds.slice(1)).toEqual(added.map((j) => j.id));
  });

  it('works as the first call on a fresh Queue and is processed in input order', async () => {
    const name = uniqueQueueName('bulkorder');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const added = await queue.addBulk(
      Array.from({ length: 15 }, (_, i) => ({ name: 'b', data: { i } })),
    );
    const { started } = recordingWorker(name);
    await waitFor(() => started.length === 15);
    expect(started.map((s) => s.id)).toEqual(added.map((j) => j.id));
  });
});
