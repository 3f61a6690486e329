/**
 * Worker heartbeats (engine/worker/heartbeat.ts) and what travels through them: the records the
 * admin reader lists, quiet / resume from anywhere, and queue.cancelJob reaching the worker that
 * runs a job in another process (or a sandbox child), next to a real bullmq worker that cannot
 * be reached.
 */
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { BatchWorker, Queue, ValidationError, Worker } from 'oxmq';
import {
  listWorkerHeartbeats,
  quietWorker,
  resumeWorker,
  type WorkerHeartbeatRecord,
} from 'oxmq/admin';
import { OXMQ_VERSION } from 'oxmq/internals';
import { HEARTBEAT_INDEX_KEEP_MS } from 'oxmq/internals';
import { startChildWorker, type ChildWorker } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });
/** Short, so a test waits for a few beats rather than seconds. */
const heartbeatInterval = 100;

function children() {
  const started: ChildWorker[] = [];
  track({ close: () => Promise.all(started.map((child) => child.kill())) });
  return (child: ChildWorker) => (started.push(child), child);
}

async function recordOf(
  redis: ReturnType<typeof rawClient>,
  queue: string,
  match: (record: WorkerHeartbeatRecord) => boolean = () => true,
): Promise<WorkerHeartbeatRecord> {
  const found = await waitFor(async () => {
    const { workers } = await listWorkerHeartbeats(redis, 'bull', queue);
    return workers.find(match);
  });
  return found!;
}

/** Resolves after the worker's record has been refreshed `beats` more times. */
async function afterBeats(redis: ReturnType<typeof rawClient>, queue: string, beats: number) {
  const first = await recordOf(redis, queue);
  await recordOf(redis, queue, (r) => r.lastHeartbeat >= first.lastHeartbeat + beats * 90);
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('worker heartbeats', () => {
  it('a worker publishes its record while it runs and deletes it on close', async () => {
    const name = uniqueQueueName('hb');
    const redis = track(rawClient());
    const queue = track(new Queue(name, connection()));
    const release = gate();
    const worker = new Worker(name, () => release.opened.then(() => 'done'), {
      ...connection(),
      name: 'hb-worker',
      concurrency: 2,
      heartbeatInterval,
    });
    track(worker);
    const job = await queue.add('x', {});
    const running = await recordOf(redis, name, (r) => r.jobIds.includes(job.id));
    expect(running).toMatchObject({
      id: worker.id,
      workerName: 'hb-worker',
      queue: name,
      prefix: 'bull',
      host: hostname(),
      pid: process.pid,
      version: OXMQ_VERSION,
      concurrency: 2,
      active: 1,
      jobIds: [job.id],
      completed: 0,
      failed: 0,
      lockRenewalFailures: 0,
      quiet: false,
      paused: false,
      heartbeatInterval,
    });
    expect(running.startedAt).toBeGreaterThan(0);
    expect(running.lastHeartbeat).toBeGreaterThanOrEqual(running.startedAt);
    const raw = await redis.hgetall(`bull:${name}:oxmq:worker:${worker.id}`);
    expect(raw.lastHeartbeat).toBe(String(running.lastHeartbeat));
    expect(raw.lastHeartbeat).toMatch(/^\d{13}$/);
    const ttl = await redis.pttl(`bull:${name}:oxmq:worker:${worker.id}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3 * heartbeatInterval);

    release.open();
    await recordOf(redis, name, (r) => r.completed === 1 && r.active === 0);
    await worker.close();
    expect(await listWorkerHeartbeats(redis, 'bull', name)).toEqual({ workers: [], total: 0 });
    expect(await redis.keys(`bull:${name}:oxmq:worker*`)).toEqual([]);
  });

  it('a BatchWorker beats too; heartbeatInterval 0 turns heartbeats off', async () => {
    const name = uniqueQueueName('hb-batch');
    const redis = track(rawClient());
    const queue = track(new Queue(name, connection()));
    const batch = track(
      new BatchWorker(name, async (jobs) => jobs.map(() => 1), {
        ...connection(),
        heartbeatInterval,
      }),
    );
    await queue.add('x', {});
    const record = await recordOf(redis, name, (r) => r.completed === 1);
    expect(record.id).toBe(batch.id);
    await batch.close();

    const silent = track(
      new Worker(name, async () => 1, { ...connection(), heartbeatInterval: 0 }),
    );
    const done = new Promise((resolve) => silent.once('completed', resolve));
    await queue.add('y', {});
    await done;
    expect(await redis.keys(`bull:${name}:oxmq:worker*`)).toEqual([]);
    expect(
      () => new Worker(name, async () => 1, { ...connection(), heartbeatInterval: -1 }),
    ).toThrow(ValidationError);
  });

  it("a SIGKILLed worker's record expires and leaves the index", async () => {
    const name = uniqueQueueName('hb-kill');
    const redis = track(rawClient());
    const spawned = children();
    const child = spawned(
      await startChildWorker({
        side: 'oxmq',
        queueName: name,
        port: redisOptions().port,
        heartbeatInterval,
      }),
    );
    const record = await recordOf(redis, name);
    expect(record.pid).toBe(child.pid);
    await child.kill();
    await waitFor(
      async () => (await listWorkerHeartbeats(redis, 'bull', name)).workers.length === 0,
    );
    // The dead worker's entry stays in the index for a while after its last beat (so a console
    // can say a worker went missing), even while another worker of the queue beats.
    const other = track(new Worker(name, async () => 1, { ...connection(), heartbeatInterval }));
    await afterBeats(redis, name, 2);
    const { workers, total } = await listWorkerHeartbeats(redis, 'bull', name);
    expect(total).toBe(2);
    expect(workers.map((worker) => worker.id)).toEqual([other.id]);
    // Once its last beat is older than HEARTBEAT_INDEX_KEEP_MS, the next beat of any worker
    // prunes it: moved back here rather than waited for.
    await redis.zadd(
      `bull:${name}:oxmq:workers`,
      Date.now() - HEARTBEAT_INDEX_KEEP_MS - 1_000,
      record.id,
    );
    await waitFor(async () => {
      const { workers, total } = await listWorkerHeartbeats(redis, 'bull', name);
      return total === 1 && workers[0]?.id === other.id;
    });
  });

  it('quiet stops fetching (running jobs finish, new ones wait) and resume restarts it', async () => {
    const name = uniqueQueueName('hb-quiet');
    const redis = track(rawClient());
    const queue = track(new Queue(name, connection()));
    const gates = new Map<string, ReturnType<typeof gate>>();
    const worker = track(
      new Worker(
        name,
        async (job) => {
          const entry = gate();
          gates.set(job.id!, entry);
          await entry.opened;
        },
        { ...connection(), concurrency: 2, heartbeatInterval },
      ),
    );
    const first = await queue.add('first', {});
    await waitFor(() => gates.has(first.id));

    expect(await quietWorker(redis, 'bull', name, worker.id)).toBe(true);
    await recordOf(redis, name, (r) => r.quiet);
    const later = await queue.add('later', {});
    gates.get(first.id)!.open();
    await waitFor(async () => (await queue.getJobState(first.id)) === 'completed');
    // Several beats later the quiet worker has still not taken it.
    await afterBeats(redis, name, 3);
    expect(await queue.getJobState(later.id)).toBe('waiting');
    expect(gates.has(later.id)).toBe(false);

    expect(await resumeWorker(redis, 'bull', name, worker.id)).toBe(true);
    await waitFor(() => gates.has(later.id));
    gates.get(later.id)!.open();
    await waitFor(async () => (await queue.getJobState(later.id)) === 'completed');
    expect((await recordOf(redis, name, (r) => r.completed === 2)).quiet).toBe(false);

    expect(await quietWorker(redis, 'bull', name, 'no-such-worker')).toBe(false);
    // A local pause shows too.
    await worker.pause(true);
    await recordOf(redis, name, (r) => r.paused && !r.quiet);
  });
});

describe('queue.cancelJob', () => {
  it('reaches an OxMQ worker in another process; the job fails with the reason', async () => {
    const name = uniqueQueueName('hb-cancel');
    const redis = track(rawClient());
    const queue = track(new Queue(name, connection()));
    const spawned = children();
    const child = spawned(
      await startChildWorker({
        side: 'oxmq',
        queueName: name,
        port: redisOptions().port,
        heartbeatInterval,
        honourCancel: true,
      }),
    );
    const job = await queue.add('x', {});
    await child.waitForMessage((m) => m.event === 'active' && m.jobId === job.id);
    // The job is active before its worker's next beat lists it; the lock names the worker.
    expect(await queue.cancelJob(job.id, 'no longer needed')).toBe('requested');
    const failed = await child.waitForMessage((m) => m.event === 'failed');
    // The attempt ends as cancelled, with the request's reason (the processor's own error is
    // the failure's cause).
    expect(failed).toMatchObject({ jobId: job.id, reason: 'Cancelled: no longer needed' });
    await waitFor(async () => (await queue.getJobState(job.id)) === 'failed');
    expect(await redis.hget(`bull:${name}:${job.id}`, 'failedReason')).toBe(
      'Cancelled: no longer needed',
    );
    // The request was served and cleaned.
    expect(await redis.keys(`bull:${name}:oxmq:worker:*:cancel`)).toEqual([]);

    expect(await queue.cancelJob(job.id, 'again')).toBe('not-active');
    expect(await queue.cancelJob('missing', 'why')).toBe('not-active');
  });

  it('answers held-by-bullmq for a job a real bullmq worker runs', async () => {
    const name = uniqueQueueName('hb-bull');
    const queue = track(new Queue(name, connection()));
    const release = gate();
    const bull = new BullWorker(name, () => release.opened, connection());
    track({ close: () => (release.open(), bull.close()) });
    const job = await queue.add('x', {});
    await waitFor(async () => (await queue.getJobState(job.id)) === 'active');
    expect(await queue.cancelJob(job.id, 'stop')).toBe('held-by-bullmq');
    release.open();
    await waitFor(async () => (await queue.getJobState(job.id)) === 'completed');
  });

  it('reaches a sandboxed processor through its worker', async () => {
    const name = uniqueQueueName('hb-sandbox');
    const queue = track(new Queue(name, connection()));
    const file = fileURLToPath(
      new URL('../helpers/sandbox-processors/cancellable.ts', import.meta.url),
    );
    const worker = track(new Worker(name, file, { ...connection(), heartbeatInterval }));
    const failures: Error[] = [];
    worker.on('failed', (_job, error: Error) => failures.push(error));
    const job = await queue.add('x', {});
    await new Promise<void>((resolve) => worker.once('progress', () => resolve()));
    expect(await queue.cancelJob(job.id, 'from afar')).toBe('requested');
    await waitFor(() => failures.length === 1);
    expect(failures[0]!.message).toBe('Cancelled: from afar');
    // The processor in the child gave up on its signal, with the reason and its token.
    expect((failures[0]!.cause as Error).message).toBe(
      'cancelled in child: from afar, token given',
    );
    expect(await queue.getJobState(job.id)).toBe('failed');
  });
});
