/**
 * The console's single-job actions refuse a job in the wrong state in words a person can act
 * on (engine/admin/job-action-states.ts): before anything is sent, and also when the job moves
 * between that check and the script (the race a stale page runs into).
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import {
  JOB_ACTION_STATES,
  JobActionStateError,
  jobActionRefusal,
  performJobAction,
  runJobAction,
  type JobAction,
  type JobActionKind,
  type JobActionState,
} from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

/** Words a person should never meet: script names, internal codes, bullmq's lock wording. */
const INTERNAL =
  /changeDelay|changePriority|removeJob|reprocessJob|expected state|locked by another worker|Missing key/;

async function refusalOf(action: Promise<unknown>): Promise<string> {
  const error = await action.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(JobActionStateError);
  const message = (error as Error).message;
  expect(message).not.toMatch(INTERNAL);
  return message;
}

function setup() {
  const name = uniqueQueueName('job-refusal');
  const redis = track(rawClient());
  const queue = track(new Queue(name, { connection: redisOptions() }));
  const act = (id: string, action: JobAction) => runJobAction(redis, 'bull', name, id, action);
  return { name, redis, queue, act };
}

describe('job actions in the wrong state', () => {
  it('Set delay on a waiting job says what the job does and what to do instead', async () => {
    const { queue, act } = setup();
    const job = await queue.add('w', {});
    const message = await refusalOf(act(job.id, { kind: 'delay', delay: 5_000 }));
    expect(message).toBe(
      `Job ${job.id} is waiting for a worker: only a delayed job has a delay to change. To hold it back, pause the queue, or remove it and add it again with a delay.`,
    );
    expect(await queue.getJobState(job.id)).toBe('waiting');
  });

  it('Remove on a running job says to cancel it or wait, and removes nothing', async () => {
    const { name, queue, act } = setup();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = track(new Worker(name, () => released, { connection: redisOptions() }));
    const job = await queue.add('busy', {});
    await waitFor(async () => (await queue.getJobState(job.id)) === 'active');
    const message = await refusalOf(act(job.id, { kind: 'remove' }));
    expect(message).toBe(
      `Job ${job.id} is running on a worker: its worker holds it locked, so it cannot be removed while it runs. Cancel it, or wait until it finishes, then remove it.`,
    );
    expect(await queue.getJobState(job.id)).toBe('active');
    release();
    await worker.close();
  });

  it('a priority on a finished job is refused, not silently stored', async () => {
    const { queue, redis, name, act } = setup();
    const job = await queue.add('w', {}, { priority: 3 });
    // Completed by hand: the job hash and the completed set, as a worker leaves them.
    await redis.zrem(`bull:${name}:prioritized`, job.id);
    await redis.zadd(`bull:${name}:completed`, Date.now(), job.id);
    const message = await refusalOf(act(job.id, { kind: 'priority', priority: 7 }));
    expect(message).toMatch(/has completed: a priority only matters until a job starts\./);
    expect((await queue.getJob(job.id))?.priority).toBe(3);
  });

  it("a grouped job's priority is refused in words", async () => {
    const { queue, act } = setup();
    const job = await queue.add('g', {}, { group: { id: 'acme' } });
    const message = await refusalOf(act(job.id, { kind: 'priority', priority: 2 }));
    expect(message).toContain('belongs to tenant group "acme"');
  });
});

describe('the race: the job moved after the check', () => {
  it('a delay for a job promoted meanwhile reads as a refusal for its state now', async () => {
    const { queue } = setup();
    const job = await queue.add('d', {}, { delay: 60_000 });
    await job.promote();
    // The page (and the check) saw it delayed; the script meets it waiting.
    const message = await refusalOf(
      performJobAction(queue, job, { kind: 'delay', delay: 1_000 }, 'delayed'),
    );
    expect(message).toMatch(new RegExp(`^Job ${job.id} is waiting for a worker: `));
  });

  it('a job removed meanwhile says so', async () => {
    const { queue } = setup();
    const job = await queue.add('d', {}, { delay: 60_000 });
    await queue.remove(job.id);
    const message = await refusalOf(performJobAction(queue, job, { kind: 'promote' }, 'delayed'));
    expect(message).toMatch(new RegExp(`^Job ${job.id} no longer exists: `));
  });

  it('a retry of a job that left the failed set meanwhile says what it is doing now', async () => {
    const { queue } = setup();
    const job = await queue.add('r', {});
    const message = await refusalOf(performJobAction(queue, job, { kind: 'retry' }, 'failed'));
    expect(message).toMatch(
      /is waiting for a worker: only a failed or completed job can be retried/,
    );
  });
});

describe('every refusal', () => {
  it('is null exactly where the action is offered, and otherwise says what to do instead', () => {
    const states: JobActionState[] = [
      'waiting',
      'prioritized',
      'delayed',
      'waiting-children',
      'active',
      'completed',
      'failed',
      'unknown',
    ];
    for (const action of Object.keys(JOB_ACTION_STATES) as JobActionKind[]) {
      for (const state of states) {
        const refusal = jobActionRefusal(action, '6', state);
        if (JOB_ACTION_STATES[action].includes(state)) {
          expect(refusal).toBeNull();
          continue;
        }
        // What happened, then at least one sentence on what to do.
        expect(refusal).toMatch(/^Job 6 .+: .+\. [A-Z].+\.$/);
      }
    }
    expect(JOB_ACTION_STATES.cancel).toEqual(['active']);
    expect(JOB_ACTION_STATES.remove).not.toContain('active');
  });
});
