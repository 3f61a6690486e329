/**
 * bullmq's "manually processing jobs" pattern: a Worker without a processor, getNextJob, and the
 * job finishing itself with moveToCompleted / moveToFailed / extendLock.
 */
import { QueueEvents as BullQueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Job, Queue, ValidationError, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

function setup(workerOpts: Record<string, unknown> = {}) {
  const name = uniqueQueueName('manual');
  const queue = track(new Queue(name, connection()));
  const worker = track(new Worker(name, null, { ...connection(), ...workerOpts }));
  return { name, queue, worker };
}

describe('manual processing', () => {
  it('a worker without a processor emits ready, does not run, and run() says why', async () => {
    const { worker } = setup();
    await new Promise<void>((resolve) => worker.once('ready', () => resolve()));
    expect(worker.isRunning()).toBe(false);
    await expect(worker.run()).rejects.toBeInstanceOf(ValidationError);
  });

  it('fetches, completes with fetch-next, and completes the next job from its JSON', async () => {
    const { name, queue, worker } = setup();
    const first = await queue.add('a', { n: 1 });
    const second = await queue.add('b', { n: 2 });
    const token = 'my-token';
    const job = await worker.getNextJob(token);
    expect(job?.id).toBe(first.id);
    expect(job?.data).toEqual({ n: 1 });
    expect(await job!.getState()).toBe('active');

    const next = await job!.moveToCompleted({ ok: 1 }, token);
    expect(job!.returnvalue).toEqual({ ok: 1 });
    expect(next?.[1]).toBe(second.id);
    const nextJob = Job.fromJSON(worker, next![0]!, next![1]!);
    expect(nextJob.name).toBe('b');
    expect(nextJob.data).toEqual({ n: 2 });
    expect(await nextJob.getState()).toBe('active');
    expect(await nextJob.moveToCompleted('done', token, false)).toBeUndefined();

    const redis = track(rawClient());
    expect(await redis.hget(`bull:${name}:${first.id}`, 'returnvalue')).toBe('{"ok":1}');
    expect(await redis.hget(`bull:${name}:${second.id}`, 'returnvalue')).toBe('"done"');
    expect(await redis.hget(`bull:${name}:${second.id}`, 'atm')).toBe('1');
    expect(await queue.getJobCounts('completed', 'active')).toEqual({ completed: 2, active: 0 });
  });

  it('returns undefined when nothing is waiting (block false, and block after one wait)', async () => {
    const { worker } = setup({ drainDelay: 0.05 });
    expect(await worker.getNextJob('t', { block: false })).toBeUndefined();
    expect(await worker.getNextJob('t')).toBeUndefined();
    await expect(worker.getNextJob('')).rejects.toBeInstanceOf(ValidationError);
  });

  it('retries through moveToFailed with the backoff, then fails for good', async () => {
    const { name, queue, worker } = setup();
    const added = await queue.add('x', {}, { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
    const token = 't1';
    const job = await worker.getNextJob(token);
    await job!.moveToFailed(new Error('first'), token);
    expect(await job!.getState()).toBe('delayed');
    expect(job!.delay).toBe(50);
    expect(job!.attemptsMade).toBe(1);

    // Blocks on the marker until the retry is due.
    const again = (await waitFor(() => worker.getNextJob(token)))!;
    expect(again.id).toBe(added.id);
    expect(again.attemptsMade).toBe(1);
    await again.moveToFailed(new Error('second'), token);
    expect(await again.getState()).toBe('failed');
    const redis = track(rawClient());
    const hash = await redis.hgetall(`bull:${name}:${added.id}`);
    expect(hash.failedReason).toBe('second');
    expect(hash.atm).toBe('2');
    expect(JSON.parse(hash.stacktrace!)).toHaveLength(2);
  });

  it('extends the lock with the right token only', async () => {
    const { name, queue, worker } = setup({ lockDuration: 1_000 });
    const added = await queue.add('x', {});
    const job = await worker.getNextJob('good');
    const redis = track(rawClient());
    expect(await job!.extendLock('good', 60_000)).toBe(1);
    expect(await redis.pttl(`bull:${name}:${added.id}:lock`)).toBeGreaterThan(30_000);
    expect(await job!.extendLock('bad', 60_000)).toBe(0);
    await expect(job!.extendLock('good', -1)).rejects.toBeInstanceOf(ValidationError);
    await expect(job!.moveToCompleted(1, 'bad')).rejects.toThrow();
    expect(await job!.getState()).toBe('active');
  });

  it('startStalledCheckTimer recovers a fetched job whose lock was never extended', async () => {
    const { queue, worker } = setup({ lockDuration: 100, stalledInterval: 100 });
    const added = await queue.add('x', {});
    const job = await worker.getNextJob('t');
    expect(job?.id).toBe(added.id);
    const stalled = new Promise<string>((resolve) => worker.once('stalled', resolve));
    await worker.startStalledCheckTimer();
    expect(await stalled).toBe(added.id);
    expect(await job!.getState()).toBe('waiting');
  });

  it("bullmq's QueueEvents sees manual completions and failures", async () => {
    const { name, queue, worker } = setup();
    const events = track(new BullQueueEvents(name, connection()));
    await events.waitUntilReady();
    const ok = await queue.add('ok', {});
    const bad = await queue.add('bad', {});
    const completed = new Promise((resolve) =>
      events.on('completed', (event) => event.jobId === ok.id && resolve(event.returnvalue)),
    );
    const failed = new Promise((resolve) =>
      events.on('failed', (event) => event.jobId === bad.id && resolve(event.failedReason)),
    );
    const job = await worker.getNextJob('t');
    const next = await job!.moveToCompleted({ v: 1 }, 't');
    await Job.fromJSON(worker, next![0]!, next![1]!).moveToFailed(new Error('nope'), 't');
    expect(await completed).toEqual({ v: 1 });
    expect(await failed).toBe('nope');
  });

  it('Job.fromId reads the job, or undefined', async () => {
    const { queue, worker } = setup();
    const added = await queue.add('x', { a: 1 }, { attempts: 3 });
    const read = await Job.fromId(worker, added.id);
    expect(read?.data).toEqual({ a: 1 });
    expect(read?.opts.attempts).toBe(3);
    expect(await Job.fromId(queue, 'missing')).toBeUndefined();
  });
});
