/**
 * Scheduler and group actions of the console (engine/admin/schedulers.ts,
 * engine/admin/redis/tenant-groups.ts) and the engine's scheduler pause / resume
 * (docs/redis-keys.md, "oxmq.pausedAt"): run now makes an ordinary job any worker takes; pause
 * takes the pending iteration out and resume restores the schedule with its iteration count; an
 * edit re-upserts through the engine's validation; the real bullmq 6.7.0 still reads a paused
 * scheduler.
 */
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import {
  JobSchedulerNotFoundError,
  JobSchedulerPausedStateError,
  Queue,
  ValidationError,
  Worker,
  type Job,
} from 'oxmq';
import {
  actOnGroup,
  editSchedulerRepeat,
  GroupNotFoundError,
  listGroups,
  listSchedulers,
  pauseScheduler,
  removeScheduler,
  resumeScheduler,
  runSchedulerNow,
} from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
/** Far in the future, so the pending iteration stays delayed for the whole test. */
const NEW_YEAR = '0 0 1 1 *';

/** The `repeat.count` an iteration job carries. */
function repeatCount(job: Job): unknown {
  return (job.opts as { repeat?: { count?: unknown } }).repeat?.count;
}

function setup(label = 'sadm') {
  const name = uniqueQueueName(label);
  const queue = track(new Queue(name, { connection: redisOptions() }));
  const redis = track(rawClient());
  return { name, queue, redis, key: (suffix: string) => `bull:${name}:${suffix}` };
}

describe('run now', () => {
  it('adds one plain job from the template that a bullmq worker processes; the schedule stays', async () => {
    const { name, queue, redis } = setup();
    await queue.upsertJobScheduler(
      'nightly',
      { pattern: NEW_YEAR },
      { name: 'report', data: { team: 'ops' }, opts: { attempts: 2 } },
    );
    const before = await queue.getJobScheduler('nightly');

    const jobId = await runSchedulerNow(redis, 'bull', name, 'nightly');
    expect(jobId).not.toContain('repeat:');
    const job = (await queue.getJob(jobId))!;
    expect(job.name).toBe('report');
    expect(job.data).toEqual({ team: 'ops' });
    expect(job.opts.attempts).toBe(2);
    expect(job.repeatJobKey).toBeUndefined();

    const done: string[] = [];
    const worker = track(
      new BullWorker(
        name,
        async (taken) => {
          done.push(`${taken.id}:${taken.name}`);
          return 'ok';
        },
        { connection: redisOptions() },
      ),
    );
    await waitFor(async () => (await queue.getJobState(jobId)) === 'completed');
    await worker.close();
    expect(done).toEqual([`${jobId}:report`]);
    // The schedule is untouched: same next run, its iteration still delayed, nothing counted.
    expect(await queue.getJobScheduler('nightly')).toEqual(before);
    expect(await queue.getJobState(`repeat:nightly:${before!.next}`)).toBe('delayed');
  });

  it('refuses a scheduler that does not exist', async () => {
    const { name, queue, redis } = setup();
    await queue.add('x', {});
    await expect(runSchedulerNow(redis, 'bull', name, 'nope')).rejects.toBeInstanceOf(
      JobSchedulerNotFoundError,
    );
  });
});

describe('pause and resume', () => {
  it('pause takes the pending iteration out; resume restores the same schedule', async () => {
    const { name, queue, redis, key } = setup();
    const first = await queue.upsertJobScheduler('nightly', { pattern: NEW_YEAR, limit: 5 });
    expect(await queue.getJobState(first.id)).toBe('delayed');

    expect(await queue.pauseJobScheduler('nightly')).toBe(true);
    expect(await queue.getJobState(first.id)).toBe('unknown');
    expect(await redis.zcard(key('delayed'))).toBe(0);
    expect(await redis.hget(key('repeat:nightly'), 'oxmq.pausedAt')).toMatch(/^\d+$/);
    expect(await queue.isJobSchedulerPaused('nightly')).toBe(true);
    const page = await listSchedulers(redis, 'bull', name, { page: 1, pageSize: 10 });
    expect(page.schedulers[0]).toMatchObject({
      id: 'nightly',
      paused: true,
      next: null,
      pending: null,
      limit: 5,
      nextCount: 1,
    });

    const next = await resumeScheduler(redis, 'bull', name, 'nightly');
    expect(next).toBe(Number(first.id.split(':')[2]));
    expect(await queue.getJobState(first.id)).toBe('delayed');
    expect(await queue.isJobSchedulerPaused('nightly')).toBe(false);
    expect(await redis.hexists(key('repeat:nightly'), 'oxmq.nextCount')).toBe(0);
    const resumed = await listSchedulers(redis, 'bull', name, { page: 1, pageSize: 10 });
    expect(resumed.schedulers[0]).toMatchObject({
      paused: false,
      next,
      pending: { jobId: first.id, state: 'delayed' },
    });
  });

  it('resume keeps counting toward the limit from the iterations already made', async () => {
    const { name, queue, redis } = setup();
    const runs: string[] = [];
    const worker = track(
      new Worker(
        name,
        async (job: Job) => {
          runs.push(job.id);
        },
        { connection: redisOptions() },
      ),
    );
    // every: the first iteration runs at once; its worker creates iteration 2 (delayed).
    await queue.upsertJobScheduler('tick', { every: 3_600_000, limit: 2 });
    await waitFor(() => runs.length === 1);
    const second = await waitFor(async () => {
      const { next } = (await queue.getJobScheduler('tick'))!;
      const job = await queue.getJob(`repeat:tick:${next}`);
      return job && (await queue.getJobState(job.id)) === 'delayed' ? job : undefined;
    });
    expect(repeatCount(second!)).toBe(2);
    await worker.close();

    await pauseScheduler(redis, 'bull', name, 'tick');
    await resumeScheduler(redis, 'bull', name, 'tick');
    const { next } = (await queue.getJobScheduler('tick'))!;
    const again = (await queue.getJob(`repeat:tick:${next}`))!;
    expect(repeatCount(again)).toBe(2);
  });

  it('a worker creates no successor for an iteration of a paused scheduler', async () => {
    const { queue } = setup();
    const current = await queue.upsertJobScheduler('tick', { every: 3_600_000 });
    await queue.pauseJobScheduler('tick');
    const scheduler = await queue.jobScheduler;
    expect(await scheduler.nextIteration(current as Job)).toEqual({
      created: false,
      reason: 'paused',
    });
  });

  it('refuses resume of a running scheduler and of a missing one', async () => {
    const { name, queue, redis } = setup();
    await queue.upsertJobScheduler('tick', { every: 3_600_000 });
    await expect(resumeScheduler(redis, 'bull', name, 'tick')).rejects.toBeInstanceOf(
      JobSchedulerPausedStateError,
    );
    await expect(queue.resumeJobScheduler('nope')).rejects.toBeInstanceOf(
      JobSchedulerNotFoundError,
    );
    expect(await queue.pauseJobScheduler('nope')).toBe(false);
  });

  it('bullmq 6.7.0 still lists and reads a paused scheduler, and its upsert resumes it', async () => {
    const { name, queue, redis, key } = setup();
    const first = await queue.upsertJobScheduler(
      'nightly',
      { pattern: NEW_YEAR, tz: 'Europe/Paris' },
      { name: 'report', data: { n: 1 } },
    );
    await queue.pauseJobScheduler('nightly');

    const bull = track(new BullQueue(name, { connection: redisOptions() }));
    expect(await bull.getJobSchedulersCount()).toBe(1);
    const [listed] = await bull.getJobSchedulers();
    expect(listed).toMatchObject({
      key: 'nightly',
      name: 'report',
      pattern: NEW_YEAR,
      tz: 'Europe/Paris',
      next: Number(first.id.split(':')[2]),
    });
    expect(await bull.getJobScheduler('nightly')).toMatchObject({ key: 'nightly' });
    // The paused scheduler has no job for a bullmq worker to find.
    expect(await bull.getDelayedCount()).toBe(0);

    await bull.upsertJobScheduler(
      'nightly',
      { pattern: NEW_YEAR, tz: 'Europe/Paris' },
      {
        name: 'report',
        data: { n: 1 },
      },
    );
    expect(await redis.hexists(key('repeat:nightly'), 'oxmq.pausedAt')).toBe(0);
    expect(await queue.isJobSchedulerPaused('nightly')).toBe(false);
    expect(await bull.getDelayedCount()).toBe(1);
  });
});

describe('edit and remove', () => {
  it('replaces the pattern with every, keeping the template; the old iteration goes', async () => {
    const { name, queue, redis } = setup();
    const first = await queue.upsertJobScheduler(
      'nightly',
      { pattern: NEW_YEAR, limit: 9 },
      { name: 'report', data: { team: 'ops' } },
    );
    await editSchedulerRepeat(redis, 'bull', name, 'nightly', { every: 7_200_000 });
    const edited = (await queue.getJobScheduler('nightly'))!;
    expect(edited).toMatchObject({ every: 7_200_000, limit: 9, name: 'report' });
    expect(edited.pattern).toBeUndefined();
    expect(edited.template?.data).toEqual({ team: 'ops' });
    expect(await queue.getJobState(first.id)).toBe('unknown');

    await editSchedulerRepeat(redis, 'bull', name, 'nightly', { pattern: '*/5 * * * *' });
    const cron = (await queue.getJobScheduler('nightly'))!;
    expect(cron.pattern).toBe('*/5 * * * *');
    expect(cron.every).toBeUndefined();
    expect(cron.next! % 300_000).toBe(0);
  });

  it("refuses a bad pattern with the engine's ValidationError and writes nothing", async () => {
    const { name, queue, redis, key } = setup();
    await queue.upsertJobScheduler('nightly', { pattern: NEW_YEAR });
    const before = await redis.hgetall(key('repeat:nightly'));
    await expect(
      editSchedulerRepeat(redis, 'bull', name, 'nightly', { pattern: 'not a cron' }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await redis.hgetall(key('repeat:nightly'))).toEqual(before);
  });

  it('refuses to edit a paused scheduler; remove takes it away', async () => {
    const { name, queue, redis } = setup();
    await queue.upsertJobScheduler('nightly', { pattern: NEW_YEAR });
    await queue.pauseJobScheduler('nightly');
    await expect(
      editSchedulerRepeat(redis, 'bull', name, 'nightly', { every: 1000 }),
    ).rejects.toBeInstanceOf(JobSchedulerPausedStateError);
    await removeScheduler(redis, 'bull', name, 'nightly');
    expect(await queue.getJobSchedulersCount()).toBe(0);
    await expect(removeScheduler(redis, 'bull', name, 'nightly')).rejects.toBeInstanceOf(
      JobSchedulerNotFoundError,
    );
  });
});

describe('groups', () => {
  it('pages groups by cursor and acts only on known groups', async () => {
    const { name, queue, redis } = setup('gadm');
    for (const id of ['a', 'b', 'c']) await queue.add('j', {}, { group: { id } });
    const first = await listGroups(redis, 'bull', name, { cursor: '', count: 2 });
    expect(first.groups.map((group) => group.id)).toEqual(['a', 'b']);
    const second = await listGroups(redis, 'bull', name, { cursor: first.cursor, count: 2 });
    expect(second.groups.map((group) => group.id)).toEqual(['c']);
    expect(second.cursor).toBe('');

    expect(await actOnGroup(redis, 'bull', name, 'b', { kind: 'pause' })).toMatchObject({
      id: 'b',
      paused: true,
      waiting: 1,
    });
    const limited = await actOnGroup(redis, 'bull', name, 'b', {
      kind: 'rate-limit',
      rateLimit: { max: 3, duration: 1000 },
    });
    expect(limited.rateLimit).toEqual({ max: 3, duration: 1000 });
    await expect(actOnGroup(redis, 'bull', name, 'zz', { kind: 'pause' })).rejects.toBeInstanceOf(
      GroupNotFoundError,
    );
    await expect(
      actOnGroup(redis, 'bull', name, 'b', { kind: 'concurrency', concurrency: 0 }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
