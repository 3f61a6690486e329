/**
 * Worker processes SIGKILLed at chosen points of a job's lifecycle (docs/reliability.md): right
 * after the script of that point was sent to Redis, either before Redis could answer (`sent`: it
 * may or may not have run) or once it answered and before the worker saw the answer (`replied`:
 * Redis changed the job, the worker never knew). Redis is real; the worker process only watches
 * its own command sending to pick the moment (test/helpers/fault-worker-kill-at.ts).
 *
 * Points: fetch (moveToActive), processing (killed by the test while a job runs), completion
 * (moveToFinished, or moveToFinishedBatch when two completions go together), retry scheduling (a
 * failing attempt with backoff: moveToDelayed), and the completion of a flow's child (which
 * updates its parent's dependencies in the same script). The completion point also runs with
 * bullmq 6.7.0 worker processes on the same checks.
 */
import { FlowProducer, type Queue } from 'oxmq';
import { expect, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions } from '../helpers/redis';
import { completionEvents, runsPerJob } from './fault-checks';
import { streamEntries } from '../helpers/redis-state';
import { runLifecyclePoint, type Kill, type LifecycleRun } from './lifecycle-kill-run';

const track = useCleanup();

const addPlain = async (queue: Queue, _name: string, i: number) => [
  (await queue.add('job', { i }, { jobId: `job-${i}` })).id!,
];

/** The ids of the jobs a completion call carried (moveToFinished's ARGV[1], or the batch's). */
function completedIds(kill: Kill): string[] {
  if (kill.script === 'moveToFinishedBatch') {
    return (JSON.parse(kill.argv[3]!) as [string][]).map(([id]) => id);
  }
  return [kill.argv[0]!];
}

/**
 * A completion Redis ran and the dead worker never heard of is final: the job is completed, once,
 * and nobody runs it again (its lock went with the completion, so it cannot stall).
 */
async function assertRepliedCompletionsFinal({ queue, redis, kills, workers }: LifecycleRun) {
  const replied = kills.filter((kill) => kill.when === 'replied').flatMap(completedIds);
  expect(replied.length).toBeGreaterThan(0);
  const runs = runsPerJob(workers);
  const completions = await completionEvents(redis, queue.name);
  for (const id of replied) {
    expect(await queue.getJobState(id), `state of ${id}`).toBe('completed');
    expect(runs.get(id), `runs of ${id}`).toBe(1);
    expect(completions.get(id), `completed events of ${id}`).toBe(1);
  }
}

test('killed during fetch: a job moved to active for a dead worker is recovered as stalled', async () => {
  const run = await runLifecyclePoint(track, {
    scenario: 'lifecycle SIGKILL: fetch',
    killAt: { scripts: ['moveToActive'] },
    add: addPlain,
    addEveryMs: 15,
  });
  expect(run.kills.every((kill) => kill.script === 'moveToActive')).toBe(true);
  // A fetch that handed the dead worker a job: that job stalled and ran elsewhere, once.
  const fetched = run.kills.flatMap(({ when, replyJobId }) =>
    when === 'replied' && replyJobId && replyJobId !== '0' ? [replyJobId] : [],
  );
  const runs = runsPerJob(run.workers);
  for (const id of fetched) expect(runs.get(id), `runs of ${id}`).toBe(1);
}, 90_000);

test('killed during processing: the held jobs stall and run again elsewhere', async () => {
  const run = await runLifecyclePoint(track, {
    scenario: 'lifecycle SIGKILL: processing',
    add: addPlain,
    addEveryMs: 15,
  });
  expect(run.kills.some((kill) => kill.held.length > 0)).toBe(true);
}, 90_000);

test('killed during completion: a completion Redis ran stays the only one', async () => {
  const run = await runLifecyclePoint(track, {
    scenario: 'lifecycle SIGKILL: completion',
    killAt: { scripts: ['moveToFinished', 'moveToFinishedBatch'] },
    add: addPlain,
    addEveryMs: 15,
  });
  await assertRepliedCompletionsFinal(run);
}, 90_000);

test('bullmq workers killed during completion: the same holds on the wire format', async () => {
  // bullmq 6.7.0 defines its scripts as ioredis commands too (`moveToFinished:<version>`), with
  // the job id as ARGV[1]; it completes one job a call.
  const run = await runLifecyclePoint(track, {
    scenario: 'lifecycle SIGKILL: completion (bullmq workers)',
    library: 'bullmq',
    killAt: { scripts: ['moveToFinished'] },
    add: addPlain,
    addEveryMs: 15,
  });
  await assertRepliedCompletionsFinal(run);
}, 90_000);

/** Attempts that fail on purpose before the last one completes: 1 or 2. */
const failingAttempts = (i: number) => 1 + (i % 2);

test('killed during retry scheduling: every job ends with the right attemptsMade', async () => {
  const run = await runLifecyclePoint(track, {
    scenario: 'lifecycle SIGKILL: retry scheduling',
    killAt: { scripts: ['moveToDelayed'] },
    add: async (queue, _name, i) => [
      (
        await queue.add(
          'job',
          { i, failAttempts: failingAttempts(i) },
          { jobId: `job-${i}`, attempts: 3, backoff: { type: 'fixed', delay: 100 } },
        )
      ).id!,
    ],
    addEveryMs: 20,
  });
  // Each failed attempt counted once, whether its move to delayed was answered or not, plus the
  // completing one: a lost reply neither skips nor repeats a count.
  for (const id of run.acked) {
    const job = await run.queue.getJob(id);
    const i = Number(id.slice('job-'.length));
    expect(job?.attemptsMade, `attemptsMade of ${id}`).toBe(failingAttempts(i) + 1);
  }
}, 90_000);

const CHILDREN = 3;

test('killed during a flow child completion: parents complete once all children do', async () => {
  let flows: FlowProducer | undefined;
  const run = await runLifecyclePoint(track, {
    scenario: 'lifecycle SIGKILL: flow child completion',
    // Only children's completions: their ids, keys and ARGV hold `-child-`.
    killAt: { scripts: ['moveToFinished', 'moveToFinishedBatch'], argIncludes: '-child-' },
    add: async (_queue, queueName, i) => {
      flows ??= track(new FlowProducer({ connection: redisOptions() }));
      const children = Array.from({ length: CHILDREN }, (_, c) => ({
        name: 'child',
        queueName,
        data: { i, c },
        opts: { jobId: `flow-${i}-child-${c}` },
      }));
      await flows.add({
        name: 'parent',
        queueName,
        data: { i },
        opts: { jobId: `flow-${i}` },
        children,
      });
      return [`flow-${i}`, ...children.map((child) => child.opts.jobId)];
    },
    addEveryMs: 60,
  });
  await assertRepliedCompletionsFinal(run);
  const { queue, redis, acked } = run;
  for (const parentId of acked.filter((id) => !id.includes('-child-'))) {
    const parentKey = queue.keys.job(parentId);
    expect(await redis.scard(`${parentKey}:dependencies`), `pending children of ${parentId}`).toBe(
      0,
    );
    const processed = await redis.hkeys(`${parentKey}:processed`);
    expect(processed.sort(), `processed children of ${parentId}`).toEqual(
      Array.from({ length: CHILDREN }, (_, c) => queue.keys.job(`${parentId}-child-${c}`)).sort(),
    );
  }
  // Each parent ran only after its last child had completed, in the order of the events stream
  // (Redis's clock; the jobs' processedOn and finishedOn come from the workers' clocks).
  const entries = await streamEntries(redis, queue.name);
  const firstIndex = (event: string, jobId: string) =>
    entries.findIndex(({ fields }) => fields.event === event && fields.jobId === jobId);
  for (const parentId of acked.filter((id) => !id.includes('-child-'))) {
    const active = firstIndex('active', parentId);
    for (let c = 0; c < CHILDREN; c += 1) {
      const completed = firstIndex('completed', `${parentId}-child-${c}`);
      expect(completed, `${parentId}: child ${c} completed`).toBeGreaterThanOrEqual(0);
      expect(active, `${parentId} active after child ${c} completed`).toBeGreaterThan(completed);
    }
  }
}, 90_000);
