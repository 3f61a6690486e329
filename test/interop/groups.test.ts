/**
 * Tenant groups next to bullmq 6.7.0 (B). Groups are OxMQ's own (N) design: waiting and delayed
 * grouped jobs live in keys bullmq does not know, so a bullmq worker on the same queue never
 * takes one, while active grouped jobs sit in `Q active` where bullmq's counts (and Bull-Board)
 * see them. The one documented hole: bullmq's stalled checker recovers a stalled grouped job into
 * plain `Q wait`; an OxMQ fetch that finds it there returns it to its group.
 */
import {
  Queue as BullQueue,
  QueueEvents as BullQueueEvents,
  Worker as BullWorker,
  type Job as BullJob,
} from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { collectErrors, gate } from '../helpers/interop-core';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { queueKey } from '../helpers/redis-state';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });
const groupKey = (name: string, gid: string, suffix: string) =>
  queueKey(name, `group:${gid}:${suffix}`);

describe('grouped jobs and bullmq workers', () => {
  it('a bullmq Worker processes only ungrouped jobs; bullmq counts active grouped jobs', async () => {
    const name = uniqueQueueName('gbull');
    const redis = track(rawClient());
    const queue = track(new Queue(name, connection()));
    const bullQueue = track(new BullQueue(name, connection()));
    const bullEvents = track(new BullQueueEvents(name, connection()));
    await bullEvents.waitUntilReady();
    const bullCompleted = new Set<string>();
    bullEvents.on('completed', ({ jobId }) => bullCompleted.add(jobId));

    const grouped = await queue.addBulk(
      Array.from({ length: 30 }, (_, i) => ({
        name: 'grouped',
        data: { i },
        opts: { group: { id: `tenant-${i % 3}` }, attempts: 2 },
      })),
    );
    await queue.add('grouped-later', {}, { group: { id: 'tenant-0' }, delay: 300 });
    // Plain jobs from a bullmq producer.
    await bullQueue.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'plain', data: { i } })));

    const bullSeen: string[] = [];
    const bullWorker = track(
      new BullWorker(
        name,
        async (job: BullJob) => {
          bullSeen.push(job.name);
        },
        { ...connection(), concurrency: 5, drainDelay: 1 },
      ),
    );
    const bullErrors = collectErrors(bullWorker);
    await waitFor(async () => (await redis.zcard(queueKey(name, 'completed'))) === 20);
    // Give it time to take anything else it could reach (the delayed grouped job becomes due).
    await sleep(600);
    expect(bullSeen).toHaveLength(20);
    expect(new Set(bullSeen)).toEqual(new Set(['plain']));
    expect(await bullQueue.getJobCounts('waiting', 'delayed', 'active')).toEqual({
      waiting: 0,
      delayed: 0,
      active: 0,
    });
    const groups = await queue.getGroups();
    expect(groups.groups.map((g) => [g.id, g.waiting])).toEqual([
      ['tenant-0', 10],
      ['tenant-1', 10],
      ['tenant-2', 10],
    ]);

    // OxMQ workers take the grouped jobs; hold five of them active and look with bullmq's eyes.
    const hold = gate();
    let running = 0;
    const oxWorker = track(
      new Worker(
        name,
        async (job: Job) => {
          running++;
          if (job.name === 'grouped' && (job.data as { i: number }).i < 5) await hold.opened;
        },
        { ...connection(), concurrency: 5 },
      ),
    );
    const oxErrors = collectErrors(oxWorker);
    await waitFor(async () => (await redis.llen(queueKey(name, 'active'))) === 5);
    expect(running).toBeGreaterThanOrEqual(5);
    expect((await bullQueue.getJobCounts('active')).active).toBe(5);
    expect((await bullQueue.getActive()).map((job) => job.name)).toEqual(
      Array.from({ length: 5 }, () => 'grouped'),
    );
    // While they run, a plain job added meanwhile is fair game for either side.
    await bullQueue.add('plain-late', {});
    hold.open();
    await waitFor(async () => (await redis.zcard(queueKey(name, 'completed'))) === 52);
    expect(bullSeen.filter((n) => n.startsWith('grouped'))).toEqual([]);
    // bullmq's QueueEvents reads the stream on its own connection: its events may trail the
    // completed set by a moment, so wait for them rather than race them.
    await waitFor(() => grouped.every((job) => bullCompleted.has(job.id!)), 5_000);
    for (const job of grouped) expect(bullCompleted.has(job.id!)).toBe(true);
    expect(bullErrors).toEqual([]);
    expect(oxErrors).toEqual([]);
    expect(await bullQueue.getJobCounts('active', 'waiting')).toEqual({ active: 0, waiting: 0 });
  });

  it('bullmq’s stalled checker puts a stalled grouped job in plain wait; an OxMQ fetch returns it to its group', async () => {
    const name = uniqueQueueName('gbstall');
    const redis = track(rawClient());
    const queue = track(new Queue(name, connection()));
    await queue.setGroupConcurrency('g', 1);
    const victim = await queue.add('victim', {}, { group: { id: 'g' } });
    const next = await queue.add('next', {}, { group: { id: 'g' } });

    let started = false;
    const dying = new Worker(
      name,
      async () => {
        started = true;
        await new Promise(() => undefined);
      },
      { ...connection(), lockDuration: 600, skipStalledCheck: true },
    );
    await waitFor(() => started);
    await dying.close(true);

    // A bullmq worker that only runs its stalled checker (it fetches nothing).
    const bullWorker = track(
      new BullWorker(name, async () => undefined, {
        ...connection(),
        autorun: false,
        stalledInterval: 300,
      }),
    );
    const bullStalled: string[] = [];
    bullWorker.on('stalled', (jobId: string) => bullStalled.push(jobId));
    await bullWorker.startStalledCheckTimer();
    await waitFor(async () => (await redis.lpos(queueKey(name, 'wait'), victim.id!)) !== null);
    await bullWorker.close();
    expect(bullStalled).toEqual([victim.id]);
    // bullmq knows nothing of the group: its active set still names the job.
    expect(await redis.smembers(groupKey(name, 'g', 'active'))).toEqual([victim.id]);

    const order: string[] = [];
    let peak = 0;
    let runningNow = 0;
    const oxWorker = track(
      new Worker(
        name,
        async (job: Job) => {
          runningNow++;
          peak = Math.max(peak, runningNow);
          order.push(job.name);
          await sleep(50);
          runningNow--;
        },
        { ...connection(), concurrency: 3 },
      ),
    );
    const oxErrors = collectErrors(oxWorker);
    await waitFor(async () => (await next.getState()) === 'completed');
    expect(order).toEqual(['victim', 'next']);
    expect(peak).toBe(1);
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
    expect(await redis.exists(groupKey(name, 'g', 'active'))).toBe(0);
    expect(oxErrors).toEqual([]);
  });
});
