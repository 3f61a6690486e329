/**
 * A large backlog (docs/reliability.md, Large backlogs): OXMQ_BACKLOG_JOBS jobs (1,000,000 by
 * default) of which a tenth are delayed (half of those due at once) and a hundredth prioritized,
 * on a redis-server of the test's own. Then every phase a producer, a worker and the console go
 * through runs between a SLOWLOG RESET and a SLOWLOG GET: adds, the console's list and search
 * reads, promotion of the due batch, fetching and completing with a Worker, the job actions
 * (remove, priority, promote, retry, state), promoteJobs and clean. No command any phase sends
 * may run longer than 10 ms inside Redis (stalls of Redis itself set aside, backlog-verdict.ts):
 * every script call is bounded, whatever the backlog. The one path that is not, taking a waiting
 * job out of the middle of the wait list, has a phase of its own that is measured and reported
 * but not held to the bound.
 */
import { Queue, Worker, type Job } from 'oxmq';
import { createAdmin } from 'oxmq/admin';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { uniqueQueueName, waitFor } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { adminClient } from './fault-run';
import { LOAD_CHUNK, loadBacklog } from './backlog-load';
import { describePhase, measurePhase, type PhaseResult } from './backlog-slowlog';
import { judge } from './backlog-verdict';

const TOTAL = Number(process.env.OXMQ_BACKLOG_JOBS ?? 1_000_000);
/** The bound every command of every phase must stay under, in microseconds (SLOWLOG's unit). */
const BOUND_MICROS = 10_000;
/** Logged from 1 ms, so the table shows each phase's slowest command even when it is in bound. */
const LOG_FROM_MICROS = 1_000;
/** How long the worker runs after the due batch is promoted, unless it processed a quarter first. */
const FETCH_MS = 5_000;
const CONCURRENCY = 50;
/** One processed job in this many fails, so that retries have failed jobs to work on. */
const FAIL_EVERY = 20;
/** Jobs added again when a load chunk was over the bound once: a hundred more calls. */
const LOAD_REPEAT = 100 * LOAD_CHUNK;

/**
 * SLOWLOG times a command by the wall clock: on a machine whose cores other processes keep busy,
 * a command the scheduler pauses is logged with the pause. The test's redis-server therefore
 * runs under the real-time FIFO policy when the test may set it (root, with `chrt` from
 * util-linux), else at a raised priority, so that the log measures Redis's own work. Redis sleeps
 * in its event loop between commands, so this takes no more CPU than it would anyway; the
 * kernel's real-time throttling still leaves 5 % of each second to everything else.
 */
function raisePriority(pid: number | undefined): string {
  if (pid === undefined) return 'normal';
  try {
    execFileSync('chrt', ['-f', '-p', '10', String(pid)], { stdio: 'ignore' });
    return 'SCHED_FIFO 10';
  } catch {
    // No chrt, or not permitted.
  }
  try {
    os.setPriority(pid, -10);
    return 'nice -10';
  } catch {
    return 'normal';
  }
}

const judgePhase = (result: PhaseResult) =>
  judge(result.entries, BOUND_MICROS, result.waitedMicros);

const track = useCleanup();
let server: RedisServer;
let schedulingPolicy = 'normal';

beforeAll(async () => {
  server = await startRedis([
    '--slowlog-log-slower-than',
    String(LOG_FROM_MICROS),
    '--slowlog-max-len',
    '100000',
  ]);
  schedulingPolicy = raisePriority(server.process.pid);
});
afterAll(async () => {
  await server?.stop();
});

test(`a backlog of ${TOTAL} jobs: no command of any phase runs over 10 ms in Redis`, async () => {
  const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
  const queueName = uniqueQueueName('backlog');
  const queue = track(new Queue(queueName, { connection }));
  const redis = adminClient(track, server.port);
  const admin = createAdmin(redis, { prefixes: ['bull'] });
  const phases: PhaseResult[] = [];
  /** Phases whose commands are held to the bound; `unbounded` ones are measured only. */
  const bounded = new Set<string>();
  const phase = async (name: string, body: () => Promise<unknown>, unbounded = false) => {
    const result = await measurePhase(redis, name, body, server.process.pid);
    phases.push(result);
    if (!unbounded) bounded.add(name);
    console.log(describePhase(result, unbounded ? 0 : BOUND_MICROS));
  };
  /**
   * The phases that call one script thousands of times (loading, fetching) keep Redis's core
   * near full, where the kernel's real-time throttling (or any stall SLOWLOG cannot tell from
   * work) can land inside one call of a small script. A script whose cost grew with the backlog
   * would be over the bound on every call, so when a script is over it in such a phase, the
   * same work runs once more at the same backlog: a script over the bound again counts; one
   * within it on the repeat was a one-off stall, reported but not held against the engine. The
   * repeat is held to the bound like any phase.
   */
  const repeatIfOneOff = async (name: string, again: () => Promise<unknown>) => {
    const first = judgePhase(phases.find((p) => p.phase === name)!);
    const slowScripts = new Set(first.over.map((entry) => entry.script));
    if (first.over.length === 0 || slowScripts.has(undefined)) return;
    await phase(`${name}, repeated`, again);
    const repeatedOver = judgePhase(phases.at(-1)!).over;
    if (repeatedOver.some((entry) => slowScripts.has(entry.script))) return;
    bounded.delete(name);
    console.log(`${name}: ${[...slowScripts].join(', ')} over the bound once, within it on repeat`);
  };

  // ---- load ----
  let loaded!: Awaited<ReturnType<typeof loadBacklog>>;
  await phase('load', async () => {
    loaded = await loadBacklog(queue, 0, TOTAL);
  });
  const { ids } = loaded;
  let loadedCount = TOTAL;
  await repeatIfOneOff('load', async () => {
    const more = await loadBacklog(queue, loadedCount, loadedCount + LOAD_REPEAT);
    for (const kind of Object.keys(ids) as (keyof typeof ids)[]) ids[kind].push(...more.ids[kind]);
    loadedCount += LOAD_REPEAT;
  });
  const counts = await queue.getJobCounts('wait', 'delayed', 'prioritized');
  expect(counts).toEqual({
    wait: ids.wait.length,
    delayed: ids.due.length + ids.far.length,
    prioritized: ids.prioritized.length,
  });
  expect(ids.due.length + ids.far.length).toBe(Math.ceil(loadedCount / 10));
  // A job in the middle of the wait list, as far from either end as a job can be (the k-th
  // after it, towards the tail), and jobs near its ends (the k-th from the head or the tail).
  const midWait = async (k: number) => {
    const length = await redis.llen(queue.keys.wait);
    return (await redis.lindex(queue.keys.wait, Math.floor(length / 2) + k))!;
  };
  const nearHead = async (k: number) => (await redis.lindex(queue.keys.wait, k))!;
  const nearTail = async (k: number) => (await redis.lindex(queue.keys.wait, -1 - k))!;

  // ---- adds: plain, delayed, prioritized, a custom id twice ----
  await phase('add', async () => {
    for (let i = 0; i < 100; i += 1) await queue.add('single', { i });
    for (let i = 0; i < 50; i += 1) await queue.add('single-delayed', { i }, { delay: 60_000 });
    for (let i = 0; i < 50; i += 1) await queue.add('single-prio', { i }, { priority: 3 });
    const first = await queue.add('custom', { n: 1 }, { jobId: 'custom-id' });
    const again = await queue.add('custom', { n: 2 }, { jobId: 'custom-id' });
    expect(again.id).toBe(first.id);
    await queue.addBulk(Array.from({ length: 100 }, (_, i) => ({ name: 'bulk', data: { i } })));
  });

  // ---- the console's reads, at the ends and deep inside each state ----
  const deepPage = Math.floor(ids.wait.length / 2 / 100);
  await phase('console reads', async () => {
    for (const state of ['waiting', 'delayed', 'prioritized'] as const) {
      const first = await admin.jobs.list('bull', queueName, { state, page: 1, pageSize: 100 });
      expect(first.jobs).toHaveLength(100);
      const last = Math.floor(first.total / 100);
      const deep = await admin.jobs.list('bull', queueName, {
        state,
        page: state === 'waiting' ? deepPage : Math.max(1, last),
        pageSize: 100,
      });
      expect(deep.jobs.length).toBeGreaterThan(0);
    }
    const byName = await admin.jobs.search('bull', queueName, {
      state: 'waiting',
      mode: 'name',
      query: 'no-such-name',
    });
    expect(byName.scanned).toBeGreaterThan(0);
    const deepText = await admin.jobs.search('bull', queueName, {
      state: 'waiting',
      mode: 'text',
      query: 't999',
      cursor: Math.floor(ids.wait.length / 2),
    });
    expect(deepText.matches.length).toBeGreaterThan(0);
    const found = await admin.jobs.find('bull', queueName, await midWait(0));
    expect(found?.state).toBe('waiting');
    const detail = await admin.jobs.detail('bull', queueName, await midWait(1));
    expect(detail?.state).toBe('waiting');
    await admin.queues.overview('bull', queueName);
    await queue.getJobCounts();
    const deepJobs = await queue.getJobs(['wait'], ids.wait.length / 2, ids.wait.length / 2 + 99);
    expect(deepJobs).toHaveLength(100);
    const midDelayed = Math.floor(counts.delayed! / 2);
    expect(await queue.getJobs(['delayed'], midDelayed, midDelayed + 99, true)).toHaveLength(100);
  });

  // ---- a worker: first the due batch is promoted, then jobs are fetched and completed ----
  let processed = 0;
  const startWorker = () => {
    const started = track(
      new Worker(
        queueName,
        async (job: Job) => {
          processed += 1;
          if (processed % FAIL_EVERY === 0) throw new Error(`failing ${job.id}`);
          return job.id;
        },
        { connection, concurrency: CONCURRENCY, autorun: false },
      ),
    );
    started.on('error', () => {});
    return started;
  };
  const worker = startWorker();
  await phase('promotion of the due batch', async () => {
    void worker.run();
    await waitFor(async () => (await queue.getDelayedCount(Date.now())) === 0, 120_000, 200);
  });
  const fetchWindow = async (running: Worker, windowMs: number) => {
    // A small OXMQ_BACKLOG_JOBS must leave a wait list for the phases after this one.
    const until = Date.now() + windowMs;
    await waitFor(() => Date.now() >= until || processed >= TOTAL / 4, windowMs + 1_000, 50);
    await running.close();
  };
  await phase('fetch and complete', () => fetchWindow(worker, FETCH_MS));
  await repeatIfOneOff('fetch and complete', async () => {
    const repeated = startWorker();
    void repeated.run();
    await fetchWindow(repeated, FETCH_MS);
  });
  const finished = await queue.getJobCounts('completed', 'failed');
  expect(finished.completed! + finished.failed!).toBeGreaterThan(CONCURRENCY);
  expect(finished.failed).toBeGreaterThan(0);

  // ---- the console's job actions: on waiting jobs near the ends of the wait list (where
  // removals and priority changes are), on jobs deep inside the other states ----
  await phase('job actions', async () => {
    for (const id of [await nearTail(100), await nearHead(100)]) {
      await (await queue.getJob(id))!.remove();
      expect(await queue.getJob(id)).toBeUndefined();
    }
    const actedId = await nearTail(5_000);
    expect(await admin.jobs.act('bull', queueName, actedId, { kind: 'remove' })).toBe(true);
    expect(await queue.getJob(actedId)).toBeUndefined();
    const reprioritized = await queue.getJob(await nearTail(50));
    await reprioritized!.changePriority({ priority: 5 });
    expect(await reprioritized!.getState()).toBe('prioritized');
    const promoted = await queue.getJob(ids.far[Math.floor(ids.far.length / 2)]!);
    await promoted!.promote();
    expect(await promoted!.getState()).toBe('waiting');
    const delayed = await queue.getJob(ids.far[Math.floor(ids.far.length / 3)]!);
    await delayed!.changeDelay(120_000);
    const [failed] = await queue.getFailed(0, 0);
    await admin.jobs.act('bull', queueName, failed!.id!, { kind: 'retry' });
    await queue.retryJobs({ state: 'failed' });
    expect(await queue.getFailedCount()).toBe(0);
    expect(await queue.getJobState(await midWait(5))).toBe('waiting');
  });

  // ---- a waiting job deep inside the wait list taken out of it: a scan up to the job, the one
  // path a plain Redis list cannot bound (docs/reliability.md, Large backlogs); measured only ----
  await phase(
    'remove from the middle of the wait list',
    async () => {
      const removedId = await midWait(2);
      await (await queue.getJob(removedId))!.remove();
      expect(await queue.getJob(removedId)).toBeUndefined();
      const reprioritized = await queue.getJob(await midWait(4));
      await reprioritized!.changePriority({ priority: 5 });
      expect(await reprioritized!.getState()).toBe('prioritized');
    },
    true,
  );

  // ---- clean, with limits, each state ----
  await phase('clean', async () => {
    const completed = await queue.clean(0, 5_000, 'completed');
    expect(completed.length).toBeGreaterThan(0);
    // Every job qualifies (grace 0): each clean removes its limit, or the whole state if smaller.
    const left = await queue.getJobCounts('wait', 'delayed', 'prioritized');
    expect(await queue.clean(0, 2_000, 'wait')).toHaveLength(Math.min(2_000, left.wait!));
    expect(await queue.clean(0, 2_000, 'delayed')).toHaveLength(Math.min(2_000, left.delayed!));
    expect(await queue.clean(0, 1_000, 'prioritized')).toHaveLength(
      Math.min(1_000, left.prioritized!),
    );
    // Nothing this young qualifies: the whole limit is examined and kept.
    expect(await queue.clean(3_600_000, 5_000, 'wait')).toHaveLength(0);
  });

  // ---- promote every delayed job left ----
  await phase('promoteJobs', async () => {
    await queue.promoteJobs();
    expect(await queue.getDelayedCount()).toBe(0);
  });

  const verdicts = phases.map((p) => ({
    phase: p.phase,
    waitedMicros: p.waitedMicros,
    bounded: bounded.has(p.phase),
    ...judgePhase(p),
  }));
  for (const { phase: name, stalls, waitedMicros: waited } of verdicts) {
    for (const { entry, charged } of stalls) {
      console.log(
        `stall in ${name}: ${entry.micros} µs ${entry.script ?? entry.command}, ${charged} µs of it outside stalled commands, Redis waited ${waited} µs for a CPU in the phase`,
      );
    }
  }
  console.log(
    `BACKLOG-RESULT ${JSON.stringify({
      jobs: TOTAL,
      redis: schedulingPolicy,
      loadMs: loaded.ms,
      processed,
      phases: phases.map((p, i) => ({
        phase: p.phase,
        ms: p.ms,
        maxMs: p.maxMicros / 1000,
        stalls: verdicts[i]!.stalls.length,
        waitedMs: p.waitedMicros / 1000,
      })),
    })}`,
  );
  const over = verdicts
    .filter((v) => v.bounded)
    .flatMap((v) =>
      v.over.map((entry) => `${v.phase}: ${entry.micros} µs ${entry.script ?? entry.command}`),
    );
  expect(over).toEqual([]);
}, 900_000);
