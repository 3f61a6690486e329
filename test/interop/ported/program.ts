/**
 * A program written against bullmq 6.7.0's public API only (its types, its documented
 * patterns), run once with the real bullmq and once with OxMQ after changing nothing but the
 * library it is given. It returns a transcript of what it saw, free of ids and times, so the two
 * runs can be compared as a whole: the claim "port by changing the import", as a test.
 */
import type * as Bullmq from 'bullmq';
import type { Job } from 'bullmq';

export type Library = Pick<
  typeof Bullmq,
  'Queue' | 'Worker' | 'QueueEvents' | 'FlowProducer' | 'DelayedError' | 'UnrecoverableError'
>;

type Connection = { host: string; port: number };

/** Resolves once `predicate` holds, polling; rejects after `ms`. */
async function until(predicate: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function runProgram(
  lib: Library,
  connection: Connection,
  name: string,
): Promise<Record<string, unknown>> {
  const transcript: Record<string, unknown> = {};
  const closers: { close(): Promise<unknown> }[] = [];
  const own = <T extends { close(): Promise<unknown> }>(thing: T): T => {
    closers.push(thing);
    return thing;
  };
  try {
    // ---- producing and reading counts ----
    const queue = own(new lib.Queue(name, { connection }));
    await queue.add('plain', { n: 1 });
    await queue.add('urgent', { n: 2 }, { priority: 1 });
    await queue.add('later', { n: 3 }, { delay: 60_000 });
    await queue.addBulk([
      { name: 'bulk', data: { n: 4 } },
      { name: 'bulk', data: { n: 5 }, opts: { priority: 3 } },
    ]);
    transcript.counts = {
      waiting: await queue.getWaitingCount(),
      delayed: await queue.getDelayedCount(),
      prioritized: await queue.getPrioritizedCount(),
      byType: await queue.getJobCounts('wait', 'delayed', 'prioritized', 'completed'),
      perPriority: await queue.getCountsPerPriority([0, 1, 3]),
      total: await queue.count(),
    };
    transcript.waitingNames = (await queue.getWaiting()).map((job) => job.name);

    // ---- processing with progress, events and waitUntilFinished ----
    const events = own(new lib.QueueEvents(name, { connection }));
    await events.waitUntilReady();
    const progressSeen: unknown[] = [];
    events.on('progress', ({ data }) => progressSeen.push(data));
    const worker = own(
      new lib.Worker(
        name,
        async (job: Job) => {
          if (job.name === 'fails') throw new Error(`no good ${job.data.n}`);
          await job.updateProgress(50);
          return { doubled: job.data.n * 2 };
        },
        { connection, concurrency: 2 },
      ),
    );
    const watched = await queue.add('watched', { n: 6 });
    transcript.watchedResult = await watched.waitUntilFinished(events);
    await until(async () => (await queue.getCompletedCount()) === 5);
    transcript.completedNames = (await queue.getCompleted())
      .map((job) => `${job.name}:${JSON.stringify(job.returnvalue)}`)
      .sort();
    transcript.progressSeen = progressSeen.length >= 5 && progressSeen.every((p) => p === 50);

    // ---- retries, then failure ----
    const failing = await queue.add(
      'fails',
      { n: 7 },
      { attempts: 2, backoff: { type: 'fixed', delay: 10 } },
    );
    await until(async () => (await queue.getFailedCount()) === 1);
    const failed = await queue.getJob(failing.id!);
    transcript.failed = {
      reason: failed?.failedReason,
      attemptsMade: failed?.attemptsMade,
      state: await failed?.getState(),
    };
    // Retried with no worker running, so the state read next cannot race a fetch.
    await worker.close();
    await failed?.retry();
    transcript.retriedState = await queue.getJobState(failing.id!);
    transcript.retriedReason = (await queue.getJob(failing.id!))?.failedReason ?? null;

    // ---- flows ----
    const flows = own(new lib.FlowProducer({ connection }));
    const tree = await flows.add({
      name: 'parent',
      queueName: `${name}-flow`,
      data: {},
      children: [
        { name: 'child', queueName: `${name}-flow`, data: { n: 1 } },
        { name: 'child', queueName: `${name}-flow`, data: { n: 2 } },
      ],
    });
    transcript.flowBefore = await tree.job.getDependenciesCount();
    const flowWorker = own(
      new lib.Worker(
        `${name}-flow`,
        async (job: Job) => {
          if (job.name === 'child') return job.data.n * 10;
          const values = Object.values(await job.getChildrenValues()) as number[];
          return values.sort((a, b) => a - b);
        },
        { connection },
      ),
    );
    await until(async () => (await tree.job.getState()) === 'completed');
    const parent = await new lib.Queue(`${name}-flow`, { connection }).getJob(tree.job.id!);
    transcript.flowParent = parent?.returnvalue;
    await flowWorker.close();

    // ---- a job scheduler ----
    const ticks: string[] = [];
    const tickWorker = own(
      new lib.Worker(`${name}-tick`, async (job: Job) => void ticks.push(job.name), {
        connection,
      }),
    );
    const ticking = own(new lib.Queue(`${name}-tick`, { connection }));
    await ticking.upsertJobScheduler('every-50ms', { every: 50 }, { name: 'tick', data: {} });
    await until(async () => ticks.length >= 2);
    transcript.schedulers = (await ticking.getJobSchedulers()).map((s) => s.key);
    await ticking.removeJobScheduler('every-50ms');
    transcript.schedulersAfter = await ticking.getJobSchedulersCount();
    await tickWorker.close();

    // ---- errors that move the job: delay itself once ----
    const delaying = own(
      new lib.Worker(
        `${name}-delay`,
        async (job: Job, token?: string) => {
          if (job.attemptsStarted === 1) {
            await job.moveToDelayed(Date.now() + 30, token);
            throw new lib.DelayedError();
          }
          return 'after delay';
        },
        { connection },
      ),
    );
    const delayQueue = own(new lib.Queue(`${name}-delay`, { connection }));
    const delayed = await delayQueue.add('d', {});
    await until(async () => (await delayQueue.getJobState(delayed.id!)) === 'completed');
    transcript.delayedResult = (await delayQueue.getJob(delayed.id!))?.returnvalue;
    await delaying.close();

    // ---- cancellation ----
    const started = new Set<string>();
    const cancelWorker = own(
      new lib.Worker(
        `${name}-cancel`,
        (job: Job, _token?: string, signal?: AbortSignal) =>
          new Promise((_resolve, reject) => {
            started.add(job.id!);
            signal?.addEventListener('abort', () =>
              reject(new lib.UnrecoverableError(`cancelled: ${String(signal.reason)}`)),
            );
          }),
        { connection },
      ),
    );
    const cancelQueue = own(new lib.Queue(`${name}-cancel`, { connection }));
    const long = await cancelQueue.add('long', {}, { attempts: 3 });
    await until(async () => started.has(long.id!));
    transcript.cancelFound = cancelWorker.cancelJob(long.id!, 'operator said so');
    transcript.cancelUnknown = cancelWorker.cancelJob('no-such-job');
    await until(async () => (await cancelQueue.getJobState(long.id!)) === 'failed');
    transcript.cancelled = (await cancelQueue.getJob(long.id!))?.failedReason;
    await cancelWorker.close();

    // ---- manual processing ----
    const manualQueue = own(new lib.Queue(`${name}-manual`, { connection }));
    await manualQueue.add('m1', { n: 1 });
    await manualQueue.add('m2', { n: 2 });
    const manual = own(new lib.Worker(`${name}-manual`, null, { connection }));
    const token = 'my-token';
    const first = (await manual.getNextJob(token)) as Job;
    await first.extendLock(token, 30_000);
    await first.moveToCompleted({ handled: first.data.n }, token, false);
    const second = (await manual.getNextJob(token)) as Job;
    await second.moveToFailed(new Error('manual failure'), token, false);
    transcript.manual = {
      first: [first.name, await manualQueue.getJobState(first.id!)],
      firstValue: (await manualQueue.getJob(first.id!))?.returnvalue,
      second: [second.name, await manualQueue.getJobState(second.id!)],
      secondReason: (await manualQueue.getJob(second.id!))?.failedReason,
      nothingLeft: (await manual.getNextJob(token, { block: false })) ?? null,
    };
    return transcript;
  } finally {
    for (const closer of closers.reverse()) await closer.close().catch(() => undefined);
  }
}
