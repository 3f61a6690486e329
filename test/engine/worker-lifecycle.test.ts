import { afterEach, describe, expect, it } from 'vitest';
import { Queue, Worker, workerConnectionName, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { startTcpProxy } from '../helpers/engine-tcp-proxy';
import { startChildWorker, type ChildWorker } from '../helpers/child-worker';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

/** Parses CLIENT LIST into one record per connection. */
async function clientList(): Promise<Record<string, string>[]> {
  const redis = track(rawClient());
  const text = (await redis.client('LIST')) as string;
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) =>
      Object.fromEntries(
        line
          .trim()
          .split(' ')
          .map((pair) => {
            const eq = pair.indexOf('=');
            return [pair.slice(0, eq), pair.slice(eq + 1)];
          }),
      ),
    );
}

/**
 * Starts a worker named `rescuer` whose stalled checker (every 300 ms) must find the abandoned
 * job and run it again; resolves once the job completed, with its hash and the ids the rescuer
 * reported as stalled.
 */
async function rescue(
  name: string,
  jobId: string,
  processor: (job: Job) => Promise<unknown>,
): Promise<{ hash: Record<string, string>; stalled: string[] }> {
  const redis = track(rawClient());
  const stalled: string[] = [];
  const rescuer = track(
    new Worker(name, processor, {
      connection: redisOptions(),
      stalledInterval: 300,
      name: 'rescuer',
    }),
  );
  rescuer.on('stalled', (id: string) => stalled.push(id));
  await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, jobId)) !== null, 15_000);
  return { hash: await redis.hgetall(`bull:${name}:${jobId}`), stalled };
}

describe('concurrency', () => {
  it('never runs more than `concurrency` jobs at once, and does use all of them', async () => {
    const name = uniqueQueueName('conc');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const sampler = track(rawClient());
    for (let i = 0; i < 50; i++) await queue.add('c', { i });
    let inFlight = 0;
    let maxInFlight = 0;
    let maxActive = 0;
    const done: number[] = [];
    track(
      new Worker(
        name,
        async (job: Job<{ i: number }>) => {
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          maxActive = Math.max(maxActive, await sampler.llen(`bull:${name}:active`));
          await sleep(40 + (job.data.i % 4) * 10);
          maxActive = Math.max(maxActive, await sampler.llen(`bull:${name}:active`));
          inFlight -= 1;
          done.push(job.data.i);
        },
        { connection: redisOptions(), concurrency: 5 },
      ),
    );
    await waitFor(() => done.length === 50, 20_000);
    expect(maxInFlight).toBe(5);
    expect(maxActive).toBeLessThanOrEqual(5);
    expect(maxActive).toBeGreaterThanOrEqual(2);
    expect(new Set(done).size).toBe(50);
    // A processor returns before its completion is written: wait for the last writes too.
    await waitFor(async () => (await sampler.zcard(`bull:${name}:completed`)) === 50);
    expect(await sampler.llen(`bull:${name}:active`)).toBe(0);
  });
});

describe('close', () => {
  it('close() waits for running jobs, which complete, and takes no new ones', async () => {
    const name = uniqueQueueName('close');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const first = await queue.add('slow', {});
    const started = deferred();
    let finished = false;
    const worker = new Worker(
      name,
      async () => {
        started.resolve();
        await sleep(700);
        finished = true;
        return 'done';
      },
      { connection: redisOptions() },
    );
    track(worker);
    const closedEvent = deferred();
    worker.on('closed', () => closedEvent.resolve());
    await started.promise;
    const second = await queue.add('next', {});

    await worker.close();
    expect(finished).toBe(true);
    await closedEvent.promise;
    expect(worker.isRunning()).toBe(false);
    expect(await redis.zscore(`bull:${name}:completed`, first.id)).not.toBeNull();
    expect(await redis.hget(`bull:${name}:${first.id}`, 'returnvalue')).toBe('"done"');
    // The completion did not fetch the next job while closing.
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([second.id]);
    expect(await redis.hget(`bull:${name}:${second.id}`, 'processedOn')).toBeNull();
  });

  it('close(true) returns without waiting; the job stays active until another worker recovers it', async () => {
    const name = uniqueQueueName('force');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('stuck', {});
    const started = deferred<AbortSignal | undefined>();
    const release = deferred();
    const worker = new Worker(
      name,
      async (_job, _token, signal) => {
        started.resolve(signal);
        await release.promise;
        return 'too late';
      },
      // A short stalledInterval: its own first check sets the queue-wide stalled-check throttle.
      { connection: redisOptions(), lockDuration: 800, stalledInterval: 300, name: 'doomed' },
    );
    worker.on('error', () => undefined);
    const signal = await started.promise;

    await worker.close(true);
    // Closed while the processor is still running.
    expect(signal?.aborted).toBe(true);
    expect(await redis.lrange(`bull:${name}:active`, 0, -1)).toEqual([job.id]);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'pb')).toBe('doomed');

    const { hash, stalled } = await rescue(name, job.id, async () => 'rescued');
    expect(hash.stc).toBe('1');
    expect(hash.returnvalue).toBe('"rescued"');
    expect(hash.pb).toBe('rescuer');
    expect(hash.ats).toBe('2');
    expect(stalled).toEqual([job.id]);
    // The abandoned processor finishing late changes nothing.
    release.resolve();
    await sleep(100);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'returnvalue')).toBe('"rescued"');
  });
});

describe('locks and stalled jobs', () => {
  it('lock renewal keeps a job running 3× lockDuration from being declared stalled', async () => {
    const name = uniqueQueueName('renew');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const stalled: string[] = [];
    const errors: unknown[] = [];
    const runner = track(
      new Worker(
        name,
        async () => {
          await sleep(1800);
          return 'long';
        },
        { connection: redisOptions(), lockDuration: 600, stalledInterval: 300 },
      ),
    );
    await runner.waitUntilReady();
    const job = await queue.add('long', {});
    await waitFor(async () => (await redis.llen(`bull:${name}:active`)) === 1);
    // A second worker (idle, on the same queue) runs the stalled checker meanwhile.
    const checker = track(
      new Worker(name, async () => 'should not run', {
        connection: redisOptions(),
        lockDuration: 600,
        stalledInterval: 300,
      }),
    );
    for (const worker of [runner, checker]) {
      worker.on('stalled', (id: string) => stalled.push(id));
      worker.on('error', (error) => errors.push(error));
    }
    // The lock's TTL is renewed while the job runs.
    await sleep(900);
    const pttl = await redis.pttl(`bull:${name}:${job.id}:lock`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(600);

    await waitFor(
      async () => (await redis.zscore(`bull:${name}:completed`, job.id)) !== null,
      10_000,
    );
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.returnvalue).toBe('"long"');
    expect(hash.stc).toBeUndefined();
    expect(hash.ats).toBe('1');
    expect(hash.atm).toBe('1');
    expect(stalled).toEqual([]);
    expect(errors).toEqual([]);
    const events = await redis.xrange(`bull:${name}:events`, '-', '+');
    expect(events.some(([, f]) => f[1] === 'stalled')).toBe(false);
  });

  it('a job that stalls more than maxStalledCount is failed without running again', async () => {
    const name = uniqueQueueName('maxstalled');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('fragile', {}, { attempts: 5 });
    const started = deferred();
    const doomed = new Worker(
      name,
      async () => {
        started.resolve();
        return new Promise<never>(() => undefined);
      },
      { connection: redisOptions(), lockDuration: 500, stalledInterval: 200 },
    );
    doomed.on('error', () => undefined);
    await started.promise;
    await doomed.close(true);

    let reran = 0;
    const judge = track(
      new Worker(name, async () => void (reran += 1), {
        connection: redisOptions(),
        stalledInterval: 200,
        maxStalledCount: 0,
      }),
    );
    judge.on('error', () => undefined);
    await waitFor(async () => (await redis.zscore(`bull:${name}:failed`, job.id)) !== null, 15_000);
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.failedReason).toBe('job stalled more than allowable limit');
    expect(hash.stc).toBe('1');
    expect(hash.defa).toBeUndefined();
    // Unrecoverable: no retry despite attempts left, and the processor never ran again.
    expect(reran).toBe(0);
    await sleep(300);
    expect(reran).toBe(0);
  });

  it('a job whose lock was lost is not completed by its worker (LockNotFoundError)', async () => {
    const name = uniqueQueueName('lostlock');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('l', {});
    const errors: Error[] = [];
    const completed: string[] = [];
    const worker = track(
      new Worker(
        name,
        async (running: Job) => {
          await redis.del(`bull:${name}:${running.id}:lock`);
          return 'should not stick';
        },
        { connection: redisOptions() },
      ),
    );
    worker.on('error', (error: Error) => errors.push(error));
    worker.on('completed', (done: Job) => completed.push(done.id));
    await waitFor(() => errors.length > 0);
    expect(errors[0]!.name).toBe('LockNotFoundError');
    expect(completed).toEqual([]);
    expect(await redis.lrange(`bull:${name}:active`, 0, -1)).toEqual([job.id]);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'returnvalue')).toBeNull();
  });

  it('a job whose lock another worker owns is not completed (LockMismatchError)', async () => {
    const name = uniqueQueueName('stolenlock');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('s', {});
    const errors: Error[] = [];
    const worker = track(
      new Worker(
        name,
        async (running: Job) => {
          await redis.set(`bull:${name}:${running.id}:lock`, 'someone-else:0', 'PX', 30_000);
          return 'should not stick';
        },
        { connection: redisOptions() },
      ),
    );
    worker.on('error', (error: Error) => errors.push(error));
    await waitFor(() => errors.length > 0);
    expect(errors[0]!.name).toBe('LockMismatchError');
    expect(await redis.get(`bull:${name}:${job.id}:lock`)).toBe('someone-else:0');
    expect(await redis.zscore(`bull:${name}:completed`, job.id)).toBeNull();
  });

  describe('a worker process killed with SIGKILL', () => {
    let child: ChildWorker | undefined;
    afterEach(async () => {
      await child?.kill();
      child = undefined;
    });

    it('leaves its job to be recovered by another worker (stc=1, stalled event, completed)', async () => {
      const name = uniqueQueueName('sigkill');
      const redis = track(rawClient());
      const queue = track(new Queue(name, { connection: redisOptions() }));
      const job = await queue.add('crash', { n: 1 });
      child = await startChildWorker({
        side: 'oxmq',
        queueName: name,
        port: redisOptions().port,
        workerName: 'child',
        lockDuration: 1000,
        stalledInterval: 300,
      });
      const took = await child.waitForMessage((m) => m.event === 'active');
      expect(took.jobId).toBe(job.id);
      expect(await redis.lrange(`bull:${name}:active`, 0, -1)).toEqual([job.id]);
      expect(await redis.exists(`bull:${name}:${job.id}:lock`)).toBe(1);
      await child.kill();

      const { hash, stalled } = await rescue(name, job.id, async (rescued: Job<{ n: number }>) => ({
        rescued: rescued.data.n,
      }));
      expect(hash.stc).toBe('1');
      expect(hash.ats).toBe('2');
      expect(hash.atm).toBe('1');
      expect(hash.pb).toBe('rescuer');
      expect(hash.returnvalue).toBe('{"rescued":1}');
      expect(stalled).toEqual([job.id]);
      const events = (await redis.xrange(`bull:${name}:events`, '-', '+')).map(([, f]) =>
        f.join(' '),
      );
      const waitingAgain = events.indexOf(`event waiting jobId ${job.id} prev active`);
      expect(waitingAgain).toBeGreaterThan(-1);
      expect(events[waitingAgain + 1]).toBe(`event stalled jobId ${job.id}`);
    });
  });
});

describe('worker events and controls', () => {
  it('emits drained once when the queue empties, and again after new work', async () => {
    const name = uniqueQueueName('drained');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    for (let i = 0; i < 5; i++) await queue.add('d', { i });
    const log: string[] = [];
    const worker = track(
      new Worker(name, async (job: Job<{ i: number }>) => void log.push(`job ${job.data.i}`), {
        connection: redisOptions(),
        drainDelay: 0.2,
      }),
    );
    worker.on('drained', () => log.push('drained'));
    await waitFor(() => log.includes('drained'));
    // Several empty polls (drainDelay 0.2 s) later, still one drained.
    await sleep(1000);
    expect(log).toEqual(['job 0', 'job 1', 'job 2', 'job 3', 'job 4', 'drained']);

    // The finishing script announced it on the stream too (no fields).
    const redis = track(rawClient());
    const stream = (await redis.xrange(`bull:${name}:events`, '-', '+')).map(([, f]) =>
      f.join(' '),
    );
    expect(stream.at(-1)).toBe('event drained');

    await queue.add('d', { i: 5 });
    await waitFor(() => log.filter((entry) => entry === 'drained').length === 2);
    await sleep(600);
    expect(log.slice(6)).toEqual(['job 5', 'drained']);
  });

  it('pause() stops taking jobs (after the running one finishes); resume() goes on', async () => {
    const name = uniqueQueueName('wpause');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const processed: string[] = [];
    const started = deferred();
    const worker = track(
      new Worker(
        name,
        async (job: Job) => {
          if (job.name === 'slow') {
            started.resolve();
            await sleep(500);
          }
          processed.push(job.name);
        },
        { connection: redisOptions() },
      ),
    );
    await queue.add('slow', {});
    await started.promise;
    await worker.pause();
    expect(worker.isPaused()).toBe(true);
    // pause() waited for the running job.
    expect(processed).toEqual(['slow']);

    await queue.add('a', {});
    await queue.add('b', {});
    await sleep(700);
    expect(processed).toEqual(['slow']);
    expect(await redis.llen(`bull:${name}:wait`)).toBe(2);

    worker.resume();
    expect(worker.isPaused()).toBe(false);
    await waitFor(() => processed.length === 3);
    expect(processed).toEqual(['slow', 'a', 'b']);
  });

  it('resume() of an idle worker picks up jobs without first waiting out drainDelay', async () => {
    const name = uniqueQueueName('resume-idle');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const processed: string[] = [];
    const worker = track(
      new Worker(name, async (job: Job) => void processed.push(job.id), {
        connection: redisOptions(),
        // Long enough that the watchdog (drainDelay + 1 s) cannot be what wakes the worker.
        drainDelay: 25,
      }),
    );
    worker.on('error', () => undefined);
    const drained = deferred();
    worker.once('drained', () => drained.resolve());
    await drained.promise;
    await sleep(200); // blocked on the marker now
    await worker.pause();
    // Let the interrupted blocking connection finish reconnecting.
    await sleep(500);
    worker.resume();
    const job = await queue.add('after-resume', {});
    // pause() interrupted the blocking wait; after resume() the worker must be listening again.
    await waitFor(() => processed.includes(job.id), 10_000);
  });

  it('autorun: false does nothing until run()', async () => {
    const name = uniqueQueueName('autorun');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('later', {});
    const processed: string[] = [];
    const worker = track(
      new Worker(name, async (j: Job) => void processed.push(j.id), {
        connection: redisOptions(),
        autorun: false,
        stalledInterval: 100,
      }),
    );
    await sleep(600);
    expect(processed).toEqual([]);
    expect(worker.isRunning()).toBe(false);
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([job.id]);
    // Not even the stalled checker ran.
    expect(await redis.exists(`bull:${name}:stalled-check`)).toBe(0);

    const running = worker.run();
    running.catch(() => undefined);
    await waitFor(() => processed.length === 1);
    expect(processed).toEqual([job.id]);
    expect(worker.isRunning()).toBe(true);
    await expect(worker.run()).rejects.toThrow();
  });

  it('the name option is written to pb and to the blocking connection name', async () => {
    const name = uniqueQueueName('named');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const workerName = `w-${name}`;
    const worker = track(
      new Worker(name, async () => 'ok', { connection: redisOptions(), name: workerName }),
    );
    await worker.waitUntilReady();
    const job = await queue.add('n', {});
    await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, job.id)) !== null);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'pb')).toBe(workerName);

    const expected = `bull:${Buffer.from(name).toString('base64')}:w:${workerName}`;
    expect(workerConnectionName('bull', name, workerName)).toBe(expected);
    const named = (await clientList()).filter((c) => c.name === expected);
    expect(named).toHaveLength(1);
    const workers = await queue.getWorkers();
    expect(workers.map((w) => w.rawname)).toEqual([expected]);
    // As bullmq reports it: `name` is the queue's name, the worker's own name is in rawname.
    expect(workers[0]!.name).toBe(name);
  });

  it('an unnamed worker names its blocking connection bull:<base64(queue)> and writes no pb', async () => {
    const name = uniqueQueueName('unnamed');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const worker = track(new Worker(name, async () => 'ok', { connection: redisOptions() }));
    await worker.waitUntilReady();
    const job = await queue.add('n', {});
    await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, job.id)) !== null);
    expect(await redis.hexists(`bull:${name}:${job.id}`, 'pb')).toBe(0);
    const expected = `bull:${Buffer.from(name).toString('base64')}`;
    expect((await clientList()).filter((c) => c.name === expected)).toHaveLength(1);
  });
});

describe('the blocking connection', () => {
  it('is re-established after CLIENT KILL, and the worker still picks up new jobs', async () => {
    const name = uniqueQueueName('killconn');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const workerName = `wk-${name}`;
    const processed: string[] = [];
    const worker = track(
      new Worker(name, async (job: Job) => void processed.push(job.id), {
        connection: redisOptions(),
        name: workerName,
      }),
    );
    worker.on('error', () => undefined);
    const drained = deferred();
    worker.once('drained', () => drained.resolve());
    await drained.promise;
    const connectionName = workerConnectionName('bull', name, workerName);
    const [before] = (await clientList()).filter((c) => c.name === connectionName);
    expect(before).toBeDefined();
    // The worker is blocked on the marker on that connection.
    await waitFor(async () => {
      const [conn] = (await clientList()).filter((c) => c.name === connectionName);
      return conn?.cmd === 'bzpopmin';
    });

    await redis.client('KILL', 'ID', before!.id!);
    await waitFor(async () => {
      const named = (await clientList()).filter((c) => c.name === connectionName);
      return named.length === 1 && named[0]!.id !== before!.id;
    }, 10_000);

    const job = await queue.add('after-kill', {});
    await waitFor(() => processed.includes(job.id), 15_000);
    // The processor returns before its completion is written: wait for that too.
    await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, job.id)) !== null);
  });

  it('a connection that stops answering is dropped by the watchdog, not waited on forever', async () => {
    const name = uniqueQueueName('watchdog');
    const redis = track(rawClient());
    const proxy = await startTcpProxy(redisOptions().port);
    track(proxy);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const workerName = `wd-${name}`;
    const processed: string[] = [];
    const worker = track(
      new Worker(name, async (job: Job) => void processed.push(job.id), {
        connection: { ...redisOptions(), port: proxy.port },
        name: workerName,
        drainDelay: 1,
      }),
    );
    worker.on('error', () => undefined);
    const drained = deferred();
    worker.once('drained', () => drained.resolve());
    await drained.promise;
    const connectionName = workerConnectionName('bull', name, workerName);

    // Black-hole the blocking connection: its socket stays open but nothing gets through, so
    // the BZPOPMIN reply (or timeout) never arrives. Only the watchdog can notice.
    const frozen = proxy.freezeWhere(connectionName);
    expect(frozen).toHaveLength(1);
    await sleep(300);
    const job = await queue.add('after-freeze', {});

    await waitFor(() => processed.includes(job.id), 15_000);
    // The blocking connection was replaced by a fresh one (named again on connect)...
    await waitFor(
      () =>
        proxy.connections.some((c) => c.sent.includes(connectionName) && !c.frozen && !c.closed),
      10_000,
    );
    expect(frozen[0]!.closed).toBe(true);
    // ...which serves the next wait: a job added later is still picked up.
    const later = await queue.add('after-reconnect', {});
    await waitFor(() => processed.includes(later.id), 15_000);
    expect(await redis.zscore(`bull:${name}:completed`, job.id)).not.toBeNull();
  });
});
