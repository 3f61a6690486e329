/**
 * The overview's total throughput (engine/admin/metrics-total.ts): bullmq metrics of several
 * queues summed minute by minute, written by real workers started with the `metrics` option.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { getTotalThroughput, sumTimelines, type MetricsTimeline } from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });
const MIN = 60_000;

const countOf = (timeline: MetricsTimeline) =>
  timeline.pending + timeline.points.reduce((sum, point) => sum + point.count, 0);

describe('getTotalThroughput', () => {
  it('sums completed and failed over the queues that keep metrics, and counts them', async () => {
    const redis = track(rawClient());
    const a = uniqueQueueName('tp-a');
    const b = uniqueQueueName('tp-b');
    const none = uniqueQueueName('tp-none');
    const finished: string[] = [];
    for (const [name, fail] of [
      [a, false],
      [b, true],
    ] as const) {
      const queue = track(new Queue(name, connection()));
      const worker = track(
        new Worker(
          name,
          async (job) => {
            if (fail && job.data.fail) throw new Error('no');
            return 1;
          },
          { ...connection(), metrics: { maxDataPoints: 60 } },
        ),
      );
      worker.on('completed', (job) => finished.push(job.id!));
      worker.on('failed', (job) => finished.push(job!.id!));
      await queue.addBulk([
        { name: 'x', data: {} },
        { name: 'x', data: {} },
        { name: 'x', data: { fail: true } },
      ]);
    }
    const idle = track(new Queue(none, connection()));
    await idle.add('x', {});
    await waitFor(() => finished.length === 6);

    const total = await getTotalThroughput(
      redis,
      [a, b, none].map((name) => ({ prefix: 'bull', name })),
      { minutes: 60 },
    );
    expect(total).toMatchObject({ queues: 3, queuesWithMetrics: 2, minutes: 60 });
    expect(countOf(total.completed)).toBe(5);
    expect(countOf(total.failed)).toBe(1);
    expect(total.completed.total).toBe(5);
    expect(total.completed.recorded).toBe(true);
  });

  it('has nothing recorded when no queue keeps metrics', async () => {
    const redis = track(rawClient());
    const name = uniqueQueueName('tp-empty');
    track(new Queue(name, connection()));
    const total = await getTotalThroughput(redis, [{ prefix: 'bull', name }]);
    expect(total.queuesWithMetrics).toBe(0);
    expect(total.completed).toEqual({
      points: [],
      pending: 0,
      pendingSince: null,
      total: 0,
      recorded: false,
    });
  });
});

describe('sumTimelines', () => {
  it('adds minute by minute; an older open minute joins the closed point of its minute', () => {
    const t = 100 * MIN;
    const sum = sumTimelines([
      { points: [{ t: t - MIN, count: 2 }], pending: 3, pendingSince: t, total: 5, recorded: true },
      {
        points: [
          { t: t - 2 * MIN, count: 1 },
          { t: t - MIN, count: 4 },
        ],
        pending: 7,
        pendingSince: t - MIN,
        total: 12,
        recorded: true,
      },
      { points: [], pending: 0, pendingSince: null, total: 0, recorded: false },
    ]);
    expect(sum).toEqual({
      points: [
        { t: t - 2 * MIN, count: 1 },
        { t: t - MIN, count: 2 + 4 + 7 },
      ],
      pending: 3,
      pendingSince: t,
      total: 17,
      recorded: true,
    });
  });
});
