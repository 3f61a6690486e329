/**
 * queue.cancelJob (and the console's Cancel, the same request) ends the job: the holding worker
 * is woken through Redis rather than at its next heartbeat, the attempt fails with the reason and
 * is not retried, and the job's timeline records the request and how it ended. A sandboxed
 * processor that ignores its signal can be force stopped. worker.cancelJob, local, keeps bullmq's
 * semantics (test/engine/cancellation.test.ts).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from 'oxmq';
import { getJobTimeline } from 'oxmq/internals';
import { cancellableProcessor } from '../helpers/cancellable-processor';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });
/** Far longer than the 1 s a cancel may take: only the wake can deliver it in time. */
const heartbeatInterval = 30_000;
const WITHIN_MS = 1_000;

/** Resolves with the first job that becomes active on `worker`. */
function nextActive(worker: { once(event: 'active', listener: (job: Job) => void): unknown }) {
  return new Promise<Job>((resolve) => worker.once('active', resolve));
}

/** Resolves with [job, error, ms since `from`] at the worker's next `failed` event. */
function nextFailure(worker: Worker) {
  return new Promise<{ job: Job; error: Error; at: number }>((resolve) =>
    worker.once('failed', (job: Job | undefined, error: Error) =>
      resolve({ job: job!, error, at: Date.now() }),
    ),
  );
}

async function timelineEvents(name: string, jobId: string, createdAt: number) {
  const redis = track(rawClient());
  const timeline = await getJobTimeline(redis, {
    prefix: 'bull',
    queueName: name,
    jobId,
    createdAt,
  });
  return timeline.entries.map(({ event, detail }) => (detail ? `${event}: ${detail}` : event));
}

describe('queue.cancelJob ends the job', () => {
  it('fails a busy worker’s job with the reason within 1 s, not retried', async () => {
    const name = uniqueQueueName('rcancel-busy');
    const queue = track(new Queue(name, connection()));
    const started = new Set<string>();
    // Concurrency 1 and one job: every slot busy, so the worker is not waiting on the marker.
    const worker = track(
      new Worker(name, cancellableProcessor(started), { ...connection(), heartbeatInterval }),
    );
    const active = nextActive(worker);
    const job = await queue.add('x', {}, { attempts: 3 });
    await active;
    const failure = nextFailure(worker);
    const askedAt = Date.now();
    expect(await queue.cancelJob(job.id, 'by user')).toBe('requested');
    const { error, at } = await failure;
    expect(at - askedAt).toBeLessThan(WITHIN_MS);
    expect(error.message).toBe('Cancelled: by user');

    const stored = (await queue.getJob(job.id))!;
    expect(await stored.getState()).toBe('failed');
    expect(stored.failedReason).toBe('Cancelled: by user');
    expect(stored.attemptsMade).toBe(1);
    // Not retried: it ran once.
    expect(started.size).toBe(1);
    expect(await queue.getJobCounts('wait', 'delayed', 'active')).toEqual({
      wait: 0,
      delayed: 0,
      active: 0,
    });
    const events = await timelineEvents(name, job.id, stored.timestamp);
    expect(events).toEqual(
      expect.arrayContaining(['cancel-requested: by user', 'cancelled: stopped']),
    );
    expect(events.indexOf('cancel-requested: by user')).toBeLessThan(
      events.indexOf('cancelled: stopped'),
    );
  });

  it('reaches a worker waiting on the marker with a slot free', async () => {
    const name = uniqueQueueName('rcancel-idle-slot');
    const queue = track(new Queue(name, connection()));
    const started = new Set<string>();
    const worker = track(
      new Worker(name, cancellableProcessor(started), {
        ...connection(),
        heartbeatInterval,
        concurrency: 2,
      }),
    );
    const active = nextActive(worker);
    const job = await queue.add('x', {}, { attempts: 2 });
    await active;
    const failure = nextFailure(worker);
    const askedAt = Date.now();
    expect(await queue.cancelJob(job.id, '')).toBe('requested');
    const { error, at } = await failure;
    expect(at - askedAt).toBeLessThan(WITHIN_MS);
    expect(error.message).toBe('Cancelled');
    expect((await queue.getJob(job.id))?.attemptsMade).toBe(1);
    expect(started.size).toBe(1);
  });

  it('reaches a paused worker’s running job', async () => {
    const name = uniqueQueueName('rcancel-paused');
    const queue = track(new Queue(name, connection()));
    const started = new Set<string>();
    const worker = track(
      new Worker(name, cancellableProcessor(started), { ...connection(), heartbeatInterval }),
    );
    const active = nextActive(worker);
    const job = await queue.add('x', {}, { attempts: 2 });
    await active;
    await worker.pause(true);
    const failure = nextFailure(worker);
    const askedAt = Date.now();
    expect(await queue.cancelJob(job.id, 'paused anyway')).toBe('requested');
    const { at } = await failure;
    expect(at - askedAt).toBeLessThan(WITHIN_MS);
    expect(await queue.getJobState(job.id)).toBe('failed');
  });

  it('a processor that returns anyway completes its job; the timeline says so', async () => {
    const name = uniqueQueueName('rcancel-ignored');
    const queue = track(new Queue(name, connection()));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let sawAbort!: () => void;
    const aborted = new Promise<void>((resolve) => (sawAbort = resolve));
    const worker = track(
      new Worker(
        name,
        async (_job: Job, _token?: string, signal?: AbortSignal) => {
          // Notices the abort, then goes on until released and returns a result.
          signal?.addEventListener('abort', () => sawAbort());
          await released;
          return { aborted: signal?.aborted };
        },
        { ...connection(), heartbeatInterval },
      ),
    );
    const active = nextActive(worker);
    const job = await queue.add('x', {}, { attempts: 2 });
    await active;
    expect(await queue.cancelJob(job.id, 'please stop')).toBe('requested');
    await aborted;
    const redis = track(rawClient());
    const requested = await redis.hget(`bull:${name}:${job.id}`, 'oxmq.cancel');
    expect(JSON.parse(requested!)).toMatchObject({ reason: 'please stop', attempt: 1 });
    const completed = new Promise<unknown>((resolve) =>
      worker.once('completed', (_job: Job, result: unknown) => resolve(result)),
    );
    release();
    expect(await completed).toEqual({ aborted: true });
    expect(await queue.getJobState(job.id)).toBe('completed');
    const events = await timelineEvents(name, job.id, job.timestamp);
    expect(events).toContain('cancel-ignored: completed-anyway');
  });
});

describe('force stop of a sandboxed processor that ignores its signal', () => {
  it('kills the child; the attempt fails as cancelled, not retried', async () => {
    const name = uniqueQueueName('rcancel-force');
    const queue = track(new Queue(name, connection()));
    const file = fileURLToPath(
      new URL('../helpers/sandbox-processors/ignores-cancel.ts', import.meta.url),
    );
    const worker = track(new Worker(name, file, { ...connection(), heartbeatInterval }));
    const progress = (key: string) =>
      new Promise<void>((resolve) => {
        const listener = (_job: Job, value: unknown) => {
          if (typeof value !== 'object' || value === null || !(key in value)) return;
          worker.off('progress', listener);
          resolve();
        };
        worker.on('progress', listener);
      });
    const running = progress('running');
    const job = await queue.add('x', {}, { attempts: 3 });
    await running;
    const sawCancel = progress('sawCancel');
    expect(await queue.cancelJob(job.id, 'stuck')).toBe('requested');
    // The child saw the abort and runs on: the job stays active.
    await sawCancel;
    expect(await queue.getJobState(job.id)).toBe('active');
    const redis = track(rawClient());
    // The worker's record says a force stop can work.
    const [record] = await redis.keys(`bull:${name}:oxmq:worker:*`);
    expect(await redis.hget(record!, 'forceStop')).toBe('1');

    const failure = nextFailure(worker);
    const askedAt = Date.now();
    expect(await queue.cancelJob(job.id, 'stuck', { force: true })).toBe('requested');
    const { error, at } = await failure;
    expect(at - askedAt).toBeLessThan(WITHIN_MS);
    expect(error.message).toBe('Cancelled (force stop): stuck');
    const stored = (await queue.getJob(job.id))!;
    expect(await stored.getState()).toBe('failed');
    expect(stored.attemptsMade).toBe(1);
    const events = await timelineEvents(name, job.id, stored.timestamp);
    expect(events).toEqual(
      expect.arrayContaining([
        'cancel-requested: stuck',
        'cancel-requested: force stop: stuck',
        'cancelled: force-stopped',
      ]),
    );
  });
});
