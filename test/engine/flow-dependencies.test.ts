/**
 * The Job's children API on OxMQ flows (docs/redis-keys.md, flows): reading what a parent recorded about its children (values, ignored failures,
 * dependencies whole or paged, counts), parking a running job until its dynamic children finish
 * (moveToWaitingChildren), detaching a child (removeChildDependency), removal with children, and
 * retried children becoming pending in their parent again.
 * Comparisons with bullmq's own Job methods live in test/interop/flow-dependencies.test.ts.
 */
import { once } from 'node:events';
import net from 'node:net';
import type { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import {
  FailedChildrenError,
  FlowProducer,
  Job,
  JobNotFoundError,
  JobNotInStateError,
  LockMismatchError,
  LockNotFoundError,
  ParentJobNotFoundError,
  Queue,
  ValidationError,
  WaitingChildrenError,
  Worker,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const TS = 1_700_000_000_000;

interface Ctx {
  redis: Redis;
  pq: string;
  cq: string;
  cq2: string;
  flows: FlowProducer;
  queue(name: string): Queue;
}

function context(): Ctx {
  const queues = new Map<string, Queue>();
  return {
    redis: track(rawClient()),
    pq: uniqueQueueName('fdp'),
    cq: uniqueQueueName('fdc'),
    cq2: uniqueQueueName('fdd'),
    flows: track(new FlowProducer({ connection: redisOptions() })),
    queue(name) {
      let queue = queues.get(name);
      if (!queue) {
        queue = track(new Queue(name, { connection: redisOptions() }));
        queues.set(name, queue);
      }
      return queue;
    },
  };
}

const key = (queue: string, id: string) => `bull:${queue}:${id}`;

/**
 * The commands Redis runs that name one of `keys`, from a MONITOR on a plain socket (ioredis'
 * monitor mode trips over replies of other clients' QUIT). MONITOR lines look like
 * `+<time> [<db> <addr>] "cmd" "arg" ...`.
 */
async function watchCommands(keys: Set<string>) {
  const socket = net.connect(inject('redisPort'), '127.0.0.1');
  await once(socket, 'connect');
  const seen: string[][] = [];
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\r\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      const args = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
      if (args.some((arg) => keys.has(arg))) seen.push(args);
    }
  });
  socket.write('MONITOR\r\n');
  return track({ seen, close: async () => void socket.destroy() });
}

/** Child processor by job name: `ok*` return their data.value, `fail*` throw `<name> boom`. */
function childWorker(name: string, concurrency = 10): Worker {
  return track(
    new Worker(
      name,
      async (job: Job<{ value?: unknown }>) => {
        if (job.name.startsWith('fail')) throw new Error(`${job.name} boom`);
        return job.data.value ?? null;
      },
      { connection: redisOptions(), concurrency },
    ),
  );
}

async function finishedCount(redis: Redis, queue: string): Promise<number> {
  return (
    (await redis.zcard(`bull:${queue}:completed`)) + (await redis.zcard(`bull:${queue}:failed`))
  );
}

async function events(redis: Redis, queue: string): Promise<Record<string, string>[]> {
  return (await redis.xrange(`bull:${queue}:events`, '-', '+')).map(([, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return fields;
  });
}

/**
 * Parent `parent` in pq with children in cq: ok1 → {n: 1}, ok2 → "two", fail-ign (ignored),
 * fail-fp (fails the parent), and `pend` in cq2, which has no worker. Once cq is done the parent
 * holds one record of each kind (and is in wait with a deferred failure, from fail-fp).
 */
async function mixedFlow(ctx: Ctx) {
  const tree = await ctx.flows.add({
    name: 'parent',
    queueName: ctx.pq,
    opts: { jobId: 'parent', timestamp: TS },
    children: [
      { name: 'ok1', queueName: ctx.cq, data: { value: { n: 1 } }, opts: { jobId: 'ok1' } },
      { name: 'ok2', queueName: ctx.cq, data: { value: 'two' }, opts: { jobId: 'ok2' } },
      {
        name: 'fail-ign',
        queueName: ctx.cq,
        opts: { jobId: 'ign', ignoreDependencyOnFailure: true },
      },
      { name: 'fail-fp', queueName: ctx.cq, opts: { jobId: 'fp', failParentOnFailure: true } },
      { name: 'pend', queueName: ctx.cq2, opts: { jobId: 'pend' } },
    ],
  });
  childWorker(ctx.cq);
  await waitFor(async () => (await finishedCount(ctx.redis, ctx.cq)) === 4, 15_000);
  return tree;
}

describe('reading a parent’s children', () => {
  it('returns values, ignored failures, dependencies and counts of a mixed flow', async () => {
    const ctx = context();
    const tree = await mixedFlow(ctx);
    const fromProducer = tree.job;
    const fromQueue = (await ctx.queue(ctx.pq).getJob('parent'))!;
    const values = { [key(ctx.cq, 'ok1')]: { n: 1 }, [key(ctx.cq, 'ok2')]: 'two' };
    const ignored = { [key(ctx.cq, 'ign')]: 'fail-ign boom' };

    for (const parent of [fromProducer, fromQueue]) {
      expect(await parent.getChildrenValues()).toEqual(values);
      expect(await parent.getIgnoredChildrenFailures()).toEqual(ignored);
      expect(await parent.getFailedChildrenValues()).toEqual(ignored);
      expect(await parent.getDependencies()).toEqual({
        processed: values,
        unprocessed: [key(ctx.cq2, 'pend')],
        ignored,
        failed: [key(ctx.cq, 'fp')],
      });
      expect(await parent.getDependenciesCount()).toEqual({
        processed: 2,
        unprocessed: 1,
        ignored: 1,
        failed: 1,
      });
      expect(await parent.getDependenciesCount({ processed: true, failed: true })).toEqual({
        processed: 2,
        failed: 1,
      });
      expect(await parent.getDependenciesCount({ unprocessed: true, ignored: false })).toEqual({
        unprocessed: 1,
      });
      expect(
        await parent.getDependencies({
          processed: {},
          unprocessed: { count: 5 },
          ignored: { cursor: 0 },
          failed: { count: 10 },
        }),
      ).toEqual({
        processed: values,
        nextProcessedCursor: 0,
        unprocessed: [key(ctx.cq2, 'pend')],
        nextUnprocessedCursor: 0,
        ignored,
        nextIgnoredCursor: 0,
        failed: [key(ctx.cq, 'fp')],
        nextFailedCursor: 0,
      });
      expect(await parent.getDependencies({ ignored: {} })).toEqual({
        ignored,
        nextIgnoredCursor: 0,
      });
    }
  });

  it('gives a job that never had children empty results', async () => {
    const ctx = context();
    const leaf = await ctx.queue(ctx.cq).add('leaf', {});
    expect(await leaf.getChildrenValues()).toEqual({});
    expect(await leaf.getIgnoredChildrenFailures()).toEqual({});
    expect(await leaf.getDependencies()).toEqual({
      processed: {},
      unprocessed: [],
      ignored: {},
      failed: [],
    });
    expect(await leaf.getDependencies({ unprocessed: {}, failed: {} })).toEqual({
      unprocessed: [],
      nextUnprocessedCursor: 0,
      failed: [],
      nextFailedCursor: 0,
    });
    expect(await leaf.getDependenciesCount()).toEqual({
      processed: 0,
      unprocessed: 0,
      ignored: 0,
      failed: 0,
    });
  });

  it('refuses bad paging options before reading', async () => {
    const ctx = context();
    const job = await ctx.queue(ctx.cq).add('leaf', {});
    await expect(job.getDependencies({ processed: { count: 0 } })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(job.getDependencies({ unprocessed: { cursor: -1 } })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(job.getDependencies({ failed: { count: 1.5 } })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      job.getDependencies({ pending: {} } as unknown as Parameters<Job['getDependencies']>[0]),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      job.getDependenciesCount({ all: true } as unknown as { processed: boolean }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('makes no Redis call for children until asked, then one per method', async () => {
    const ctx = context();
    await mixedFlow(ctx);
    const parentKey = key(ctx.pq, 'parent');
    const records = new Set(
      ['processed', 'dependencies', 'failed', 'unsuccessful'].map((s) => `${parentKey}:${s}`),
    );
    const monitor = await watchCommands(records);
    const seen = monitor.seen;
    // MONITOR reports from when it is set up: prove it sees our commands, then start clean.
    const probe = track(rawClient());
    await waitFor(async () => {
      await probe.exists(`${parentKey}:processed`);
      return seen.length > 0;
    });
    await sleep(100);
    seen.length = 0;

    const parent = (await ctx.queue(ctx.pq).getJob('parent'))!;
    const copy = Job.fromHash(ctx.queue(ctx.pq), 'parent', (await probe.hgetall(parentKey))!);
    expect(copy.id).toBe(parent.id);
    await sleep(300);
    expect(seen).toEqual([]);

    await parent.getChildrenValues();
    await waitFor(() => seen.length >= 1);
    await sleep(200);
    expect(seen.map((args) => args[0]!.toLowerCase())).toEqual(['hgetall']);

    seen.length = 0;
    await parent.getDependenciesCount();
    await waitFor(() => seen.length >= 4);
    await sleep(200);
    expect(seen.map((args) => args[0]!.toLowerCase())).toEqual(['hlen', 'scard', 'hlen', 'zcard']);
    await monitor.close();
  });

  it('pages through 1,000 children, 100 at a time, returning each exactly once', async () => {
    const ctx = context();
    const children = Array.from({ length: 1000 }, (_, i) => {
      const kind = ['ok', 'ok', 'ok', 'fail-ign', 'fail-fp'][i % 5]!;
      return {
        name: kind,
        queueName: ctx.cq,
        data: { value: i },
        opts: {
          jobId: `c${i}`,
          ...(kind === 'fail-ign' ? { ignoreDependencyOnFailure: true } : {}),
          ...(kind === 'fail-fp' ? { failParentOnFailure: true } : {}),
        },
      };
    });
    const { job: parent } = await ctx.flows.add({
      name: 'parent',
      queueName: ctx.pq,
      opts: { jobId: 'parent' },
      children,
    });
    const all = children.map((child) => key(ctx.cq, child.opts.jobId));

    const pageSizes: number[] = [];
    const collect = async (kind: 'processed' | 'unprocessed' | 'ignored' | 'failed') => {
      const got: string[] = [];
      const values: Record<string, unknown> = {};
      let cursor = 0;
      pageSizes.length = 0;
      do {
        const page = await parent.getDependencies({ [kind]: { cursor, count: 100 } });
        expect(Object.keys(page).sort()).toEqual(
          [kind, `next${kind[0]!.toUpperCase()}${kind.slice(1)}Cursor`].sort(),
        );
        let keys: string[];
        if (kind === 'processed') {
          keys = Object.keys(page.processed!);
          Object.assign(values, page.processed);
        } else if (kind === 'ignored') {
          keys = Object.keys(page.ignored!);
          Object.assign(values, page.ignored);
        } else {
          keys = kind === 'failed' ? page.failed! : page.unprocessed!;
        }
        got.push(...keys);
        pageSizes.push(keys.length);
        cursor = {
          processed: page.nextProcessedCursor,
          unprocessed: page.nextUnprocessedCursor,
          ignored: page.nextIgnoredCursor,
          failed: page.nextFailedCursor,
        }[kind]!;
      } while (cursor !== 0);
      expect(new Set(got).size).toBe(got.length);
      return { got, values };
    };

    const pending = await collect('unprocessed');
    expect(pending.got.sort()).toEqual([...all].sort());
    expect(pageSizes.length).toBeGreaterThanOrEqual(5);
    // COUNT bounds the work per call: a page never holds many more than asked for.
    expect(Math.max(...pageSizes)).toBeLessThanOrEqual(150);

    childWorker(ctx.cq, 50);
    await waitFor(async () => (await finishedCount(ctx.redis, ctx.cq)) === 1000, 60_000);

    const processed = await collect('processed');
    expect(processed.got.sort()).toEqual(all.filter((_, i) => i % 5 < 3).sort());
    expect(processed.values[key(ctx.cq, 'c2')]).toBe(2);
    expect(processed.values[key(ctx.cq, 'c6')]).toBe(6);
    // 600 entries: more than a compact hash holds, so HSCAN pages it.
    expect(pageSizes.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...pageSizes)).toBeLessThanOrEqual(150);

    // 200 short entries fit a compact (listpack) hash, which Redis scans whole whatever COUNT.
    const ignored = await collect('ignored');
    expect(ignored.got.sort()).toEqual(all.filter((_, i) => i % 5 === 3).sort());
    expect(ignored.values[key(ctx.cq, 'c3')]).toBe('fail-ign boom');

    const failed = await collect('failed');
    expect(failed.got.sort()).toEqual(all.filter((_, i) => i % 5 === 4).sort());
    // The failed zset is read by offset: exactly `count` per page, 0 once the end is reached.
    expect(pageSizes).toEqual([100, 100]);

    expect(await parent.getDependenciesCount()).toEqual({
      processed: 600,
      unprocessed: 0,
      ignored: 200,
      failed: 200,
    });
    // Several kinds in one call: each comes with its own cursor.
    const mixed = await parent.getDependencies({
      failed: { count: 100 },
      processed: { count: 100 },
    });
    expect(mixed.failed).toHaveLength(100);
    expect(mixed.nextFailedCursor).toBe(100);
    expect(mixed.nextProcessedCursor).toBeGreaterThan(0);
    expect(mixed.unprocessed).toBeUndefined();
  });
});

describe('moveToWaitingChildren', () => {
  it('parks a processor that added children until they finish, then runs it again', async () => {
    const ctx = context();
    const children = ctx.queue(ctx.cq);
    const runs: { step: string; moved: boolean }[] = [];
    const errors: unknown[] = [];
    const parentWorker = track(
      new Worker(
        ctx.pq,
        async (job: Job<{ step?: string }>, token?: string) => {
          if (job.data.step === undefined) {
            for (const n of [1, 2, 3]) {
              await children.add(
                `ok${n}`,
                { value: n * 10 },
                { jobId: `dyn${n}`, parent: { id: job.id, queue: job.queueQualifiedName } },
              );
            }
            await job.updateData({ step: 'waiting' });
            const moved = await job.moveToWaitingChildren(token!);
            runs.push({ step: 'first', moved });
            if (moved) throw new WaitingChildrenError();
            return 'not parked';
          }
          const moved = await job.moveToWaitingChildren(token!);
          runs.push({ step: job.data.step, moved });
          return job.getChildrenValues();
        },
        { connection: redisOptions() },
      ),
    );
    parentWorker.on('error', (error) => errors.push(error));
    const outcomes: string[] = [];
    parentWorker.on('completed', () => outcomes.push('completed'));
    parentWorker.on('failed', (_job, error) => outcomes.push(`failed: ${error.message}`));

    const parent = await ctx.queue(ctx.pq).add('parent', {}, { jobId: 'dynparent' });
    await waitFor(
      async () => (await ctx.redis.zscore(`bull:${ctx.pq}:waiting-children`, 'dynparent')) !== null,
    );

    // Parked: out of active, lock gone, announced, and the worker did nothing more.
    expect(runs).toEqual([{ step: 'first', moved: true }]);
    expect(await parent.getState()).toBe('waiting-children');
    expect(await ctx.redis.lrange(`bull:${ctx.pq}:active`, 0, -1)).toEqual([]);
    expect(await ctx.redis.exists(`${key(ctx.pq, 'dynparent')}:lock`)).toBe(0);
    expect(await ctx.redis.sismember(`bull:${ctx.pq}:stalled`, 'dynparent')).toBe(0);
    const parked = (await events(ctx.redis, ctx.pq)).filter((e) => e.event === 'waiting-children');
    expect(parked).toEqual([{ event: 'waiting-children', jobId: 'dynparent', prev: 'active' }]);
    const score = Number(await ctx.redis.zscore(`bull:${ctx.pq}:waiting-children`, 'dynparent'));
    expect(Math.abs(score - Date.now())).toBeLessThan(10_000);
    await sleep(200);
    expect(outcomes).toEqual([]);
    expect((await parent.getDependencies()).unprocessed!.sort()).toEqual(
      ['dyn1', 'dyn2', 'dyn3'].map((id) => key(ctx.cq, id)),
    );

    childWorker(ctx.cq);
    await waitFor(() => outcomes.length > 0, 15_000);
    expect(outcomes).toEqual(['completed']);
    expect(runs).toEqual([
      { step: 'first', moved: true },
      { step: 'waiting', moved: false },
    ]);
    const done = (await ctx.queue(ctx.pq).getJob('dynparent'))!;
    expect(done.returnvalue).toEqual({
      [key(ctx.cq, 'dyn1')]: 10,
      [key(ctx.cq, 'dyn2')]: 20,
      [key(ctx.cq, 'dyn3')]: 30,
    });
    expect(errors).toEqual([]);
  });

  it('with `child`: moves only while that child is pending', async () => {
    const ctx = context();
    const children = ctx.queue(ctx.cq);
    const seen: unknown[] = [];
    track(
      new Worker(
        ctx.pq,
        async (job: Job, token?: string) => {
          const queue = `bull:${ctx.cq}`;
          const first = await children.add(
            'ok',
            {},
            { parent: { id: job.id, queue: job.queueQualifiedName } },
          );
          seen.push(await job.moveToWaitingChildren(token!, { child: { id: 'nobody', queue } }));
          seen.push(await job.getState());
          seen.push(await job.moveToWaitingChildren(token!, { child: { id: first.id, queue } }));
          throw new WaitingChildrenError();
        },
        { connection: redisOptions() },
      ),
    );
    await ctx.queue(ctx.pq).add('parent', {}, { jobId: 'p' });
    await waitFor(() => seen.length === 3);
    expect(seen).toEqual([false, 'active', true]);
    expect(await (await ctx.queue(ctx.pq).getJob('p'))!.getState()).toBe('waiting-children');
  });

  it('throws FailedChildrenError when a child failed the parent meanwhile, and typed lock errors', async () => {
    const ctx = context();
    const children = ctx.queue(ctx.cq);
    childWorker(ctx.cq);
    const thrown: unknown[] = [];
    const failures: string[] = [];
    const worker = track(
      new Worker(
        ctx.pq,
        async (job: Job, token?: string) => {
          const parent = { id: job.id, queue: job.queueQualifiedName };
          await ctx.queue(ctx.cq2).add('pend', {}, { parent });
          // A wrong token: refused, and the job keeps running with its lock.
          thrown.push(await job.moveToWaitingChildren('not-my-token').catch((e: unknown) => e));
          thrown.push(await job.getState());
          const child = await children.add('fail-fp', {}, { failParentOnFailure: true, parent });
          await waitFor(async () => (await child.getState()) === 'failed');
          thrown.push(await job.moveToWaitingChildren(token!).catch((e: unknown) => e));
          thrown.push(await job.getState());
          throw thrown[2];
        },
        { connection: redisOptions() },
      ),
    );
    worker.on('failed', (_job, error) => failures.push(error.message));
    await ctx.queue(ctx.pq).add('parent', {}, { jobId: 'p' });
    await waitFor(() => failures.length > 0, 15_000);
    expect(thrown[0]).toBeInstanceOf(LockMismatchError);
    expect(thrown[1]).toBe('active');
    expect(thrown[2]).toBeInstanceOf(FailedChildrenError);
    expect(thrown[3]).toBe('active');
    expect(await ctx.redis.zrange(`${key(ctx.pq, 'p')}:unsuccessful`, 0, -1)).toHaveLength(1);
  });

  it('refuses jobs that are not running under the caller’s lock', async () => {
    const ctx = context();
    const { job: parent } = await ctx.flows.add({
      name: 'parent',
      queueName: ctx.pq,
      opts: { jobId: 'p' },
      children: [{ name: 'c', queueName: ctx.cq, opts: { jobId: 'c' } }],
    });
    const before = await ctx.redis.zrange(`bull:${ctx.pq}:waiting-children`, 0, -1);
    // In waiting-children with a pending child, nobody holds its lock.
    await expect(parent.moveToWaitingChildren('some-token')).rejects.toBeInstanceOf(
      LockNotFoundError,
    );
    await expect(parent.moveToWaitingChildren('0')).rejects.toBeInstanceOf(JobNotInStateError);
    // A job read from the queue has no token of its own.
    const read = (await ctx.queue(ctx.pq).getJob('p'))!;
    await expect(read.moveToWaitingChildren()).rejects.toBeInstanceOf(ValidationError);
    await expect(
      parent.moveToWaitingChildren('0', { child: { id: 'c', queue: 'no-colon' } }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await ctx.redis.zrange(`bull:${ctx.pq}:waiting-children`, 0, -1)).toEqual(before);

    const gone = new Job(ctx.queue(ctx.pq), 'x', {}, {}, 'missing', Date.now());
    await expect(gone.moveToWaitingChildren('t')).rejects.toBeInstanceOf(JobNotFoundError);
  });
});

describe('removeChildDependency', () => {
  it('detaches pending children one by one and releases the parent after the last', async () => {
    const ctx = context();
    const tree = await ctx.flows.add({
      name: 'parent',
      queueName: ctx.pq,
      opts: { jobId: 'p', priority: 5 },
      children: [
        { name: 'a', queueName: ctx.cq, opts: { jobId: 'a' } },
        { name: 'b', queueName: ctx.cq2, opts: { jobId: 'b' } },
      ],
    });
    const [a, b] = tree.children!.map((node) => node.job);
    await ctx.queue(ctx.pq).add('other', {}, { jobId: 'other' });

    expect(await a!.removeChildDependency()).toBe(true);
    expect(a!.parentKey).toBeUndefined();
    expect(a!.parent).toBeUndefined();
    const aHash = await ctx.redis.hgetall(key(ctx.cq, 'a'));
    expect(aHash.parentKey).toBeUndefined();
    expect(aHash.parent).toBeUndefined();
    expect(await ctx.redis.smembers(`${key(ctx.pq, 'p')}:dependencies`)).toEqual([
      key(ctx.cq2, 'b'),
    ]);
    expect(await ctx.redis.zrange(`bull:${ctx.pq}:waiting-children`, 0, -1)).toEqual(['p']);
    // Already detached: nothing to do, also from a fresh read.
    expect(await (await ctx.queue(ctx.cq).getJob('a'))!.removeChildDependency()).toBe(false);

    const fresh = (await ctx.queue(ctx.cq2).getJob('b'))!;
    expect(fresh.parentKey).toBe(key(ctx.pq, 'p'));
    expect(await fresh.removeChildDependency()).toBe(true);
    expect(b!.parentKey).toBe(key(ctx.pq, 'p'));
    // Released like a removed last child: to the front of wait (priority ignored), announced.
    expect(await ctx.redis.zrange(`bull:${ctx.pq}:waiting-children`, 0, -1)).toEqual([]);
    expect(await ctx.redis.lrange(`bull:${ctx.pq}:wait`, 0, -1)).toEqual(['other', 'p']);
    expect(await ctx.redis.zscore(`bull:${ctx.pq}:marker`, '0')).toBe('0');
    expect((await events(ctx.redis, ctx.pq)).at(-1)).toMatchObject({
      event: 'waiting',
      jobId: 'p',
      prev: 'waiting-children',
    });
    expect(await ctx.redis.exists(`${key(ctx.pq, 'p')}:dependencies`)).toBe(0);
  });

  it('works for a child added by Queue.add with opts.parent, and is false without a parent', async () => {
    const ctx = context();
    const parent = await ctx.queue(ctx.pq).add('parent', {}, { jobId: 'p' });
    const child = await ctx
      .queue(ctx.cq)
      .add('child', {}, { jobId: 'c', parent: { id: 'p', queue: `bull:${ctx.pq}` } });
    expect(child.parentKey).toBe(key(ctx.pq, 'p'));
    expect(child.parent).toEqual({ id: 'p', queueKey: `bull:${ctx.pq}` });
    expect(await ctx.redis.smembers(`${key(ctx.pq, 'p')}:dependencies`)).toEqual([
      key(ctx.cq, 'c'),
    ]);
    expect(await child.removeChildDependency()).toBe(true);
    expect(await ctx.redis.exists(`${key(ctx.pq, 'p')}:dependencies`)).toBe(0);
    // p never waited for children: nothing to release.
    expect(await ctx.redis.lrange(`bull:${ctx.pq}:wait`, 0, -1)).toEqual(['p']);
    expect(await parent.removeChildDependency()).toBe(false);
  });

  it('throws JobNotFoundError for a missing child and ParentJobNotFoundError for a missing parent', async () => {
    const ctx = context();
    const tree = await ctx.flows.add({
      name: 'parent',
      queueName: ctx.pq,
      opts: { jobId: 'p' },
      children: [
        { name: 'a', queueName: ctx.cq, opts: { jobId: 'a' } },
        { name: 'b', queueName: ctx.cq, opts: { jobId: 'b' } },
      ],
    });
    const [a, b] = tree.children!.map((node) => node.job);
    await a!.remove();
    await expect(a!.removeChildDependency()).rejects.toBeInstanceOf(JobNotFoundError);
    await tree.job.remove({ removeChildren: false });
    await expect(b!.removeChildDependency()).rejects.toBeInstanceOf(ParentJobNotFoundError);
    expect(b!.parentKey).toBe(key(ctx.pq, 'p'));
  });
});

describe('job.remove on flows', () => {
  async function nested(ctx: Ctx) {
    return ctx.flows.add({
      name: 'root',
      queueName: ctx.pq,
      opts: { jobId: 'root' },
      children: [
        { name: 'a', queueName: ctx.cq, opts: { jobId: 'a' } },
        {
          name: 'mid',
          queueName: ctx.cq2,
          opts: { jobId: 'mid' },
          children: [{ name: 'leaf', queueName: ctx.cq, opts: { jobId: 'leaf' } }],
        },
      ],
    });
  }

  it('removes the whole subtree across queues by default', async () => {
    const ctx = context();
    const tree = await nested(ctx);
    await tree.job.remove();
    expect(await ctx.redis.keys(`bull:${ctx.pq}:root*`)).toEqual([]);
    for (const [queue, id] of [
      [ctx.cq, 'a'],
      [ctx.cq2, 'mid'],
      [ctx.cq, 'leaf'],
    ] as const) {
      expect(await ctx.redis.exists(key(queue, id))).toBe(0);
    }
    expect(await ctx.redis.lrange(`bull:${ctx.cq}:wait`, 0, -1)).toEqual([]);
    expect(await ctx.redis.zcard(`bull:${ctx.cq2}:waiting-children`)).toBe(0);
  });

  it('keeps the children with removeChildren: false; removing a child detaches it', async () => {
    const ctx = context();
    const tree = await nested(ctx);
    const [a, mid] = tree.children!.map((node) => node.job);
    await a!.remove();
    expect(await ctx.redis.smembers(`${key(ctx.pq, 'root')}:dependencies`)).toEqual([
      key(ctx.cq2, 'mid'),
    ]);
    await mid!.remove({ removeChildren: false });
    // root lost its last pending child: released.
    expect(await ctx.redis.lrange(`bull:${ctx.pq}:wait`, 0, -1)).toEqual(['root']);
    expect(await ctx.redis.hget(key(ctx.cq, 'leaf'), 'parentKey')).toBe(key(ctx.cq2, 'mid'));
    expect(await ctx.redis.lrange(`bull:${ctx.cq}:wait`, 0, -1)).toEqual(['leaf']);
    await tree.job.remove({ removeChildren: false });
    expect(await ctx.redis.exists(key(ctx.pq, 'root'))).toBe(0);
    expect(await ctx.redis.exists(key(ctx.cq, 'leaf'))).toBe(1);
  });
});

describe('retrying a child makes it pending in its parent again', () => {
  /** Children fail on their first attempt and succeed afterwards. */
  function flakyWorker(name: string): Worker {
    return track(
      new Worker(
        name,
        async (job: Job<{ value?: unknown }>) => {
          if (job.attemptsMade === 0 && job.name.startsWith('flaky')) throw new Error('first try');
          return job.data.value ?? 'ok';
        },
        { connection: redisOptions() },
      ),
    );
  }

  it('job.retry of an ignored failure while the parent waits: the parent runs once it succeeds', async () => {
    const ctx = context();
    const { job: parent } = await ctx.flows.add({
      name: 'parent',
      queueName: ctx.pq,
      opts: { jobId: 'p' },
      children: [
        {
          name: 'flaky',
          queueName: ctx.cq,
          data: { value: 7 },
          opts: { jobId: 'f', ignoreDependencyOnFailure: true },
        },
        { name: 'slow', queueName: ctx.cq2, opts: { jobId: 's' } },
      ],
    });
    flakyWorker(ctx.cq);
    await waitFor(async () => (await ctx.redis.zscore(`bull:${ctx.cq}:failed`, 'f')) !== null);
    expect(await parent.getIgnoredChildrenFailures()).toEqual({ [key(ctx.cq, 'f')]: 'first try' });

    const child = (await ctx.queue(ctx.cq).getJob('f'))!;
    await child.retry();
    await waitFor(async () => (await ctx.redis.zscore(`bull:${ctx.cq}:completed`, 'f')) !== null);
    expect(await parent.getIgnoredChildrenFailures()).toEqual({});
    expect(await parent.getChildrenValues()).toEqual({ [key(ctx.cq, 'f')]: 7 });
    expect(await parent.getState()).toBe('waiting-children');

    flakyWorker(ctx.cq2);
    await waitFor(async () => (await parent.getState()) === 'waiting');
    expect(await parent.getDependenciesCount()).toEqual({
      processed: 2,
      unprocessed: 0,
      ignored: 0,
      failed: 0,
    });
  });

  it('job.retry of a child that failed its parent, and of a completed child: the released parent stays put', async () => {
    const ctx = context();
    const { job: parent } = await ctx.flows.add({
      name: 'parent',
      queueName: ctx.pq,
      opts: { jobId: 'p' },
      children: [
        { name: 'flaky-fp', queueName: ctx.cq, opts: { jobId: 'fp', failParentOnFailure: true } },
        { name: 'ok', queueName: ctx.cq, data: { value: 1 }, opts: { jobId: 'ok' } },
      ],
    });
    const worker = flakyWorker(ctx.cq);
    await waitFor(async () => (await finishedCount(ctx.redis, ctx.cq)) === 2);
    await worker.close();
    expect(await parent.getState()).toBe('waiting');
    expect(await parent.getDependencies()).toEqual({
      processed: { [key(ctx.cq, 'ok')]: 1 },
      unprocessed: [],
      ignored: {},
      failed: [key(ctx.cq, 'fp')],
    });

    await (await ctx.queue(ctx.cq).getJob('fp'))!.retry('failed');
    await (await ctx.queue(ctx.cq).getJob('ok'))!.retry('completed');
    const after = await parent.getDependencies();
    expect(after.unprocessed!.sort()).toEqual([key(ctx.cq, 'fp'), key(ctx.cq, 'ok')]);
    expect(after).toEqual({
      processed: {},
      unprocessed: after.unprocessed,
      ignored: {},
      failed: [],
    });
    // Not moved back into waiting-children.
    expect(await parent.getState()).toBe('waiting');
    expect(await ctx.redis.zcard(`bull:${ctx.pq}:waiting-children`)).toBe(0);
    expect(await ctx.redis.lrange(`bull:${ctx.pq}:wait`, 0, -1)).toEqual(['p']);
  });

  it('queue.retryJobs re-pends failed (continued, ignored) and completed children; other records stay', async () => {
    const ctx = context();
    const { job: parent } = await ctx.flows.add({
      name: 'parent',
      queueName: ctx.pq,
      opts: { jobId: 'p' },
      children: [
        { name: 'fail-c', queueName: ctx.cq, opts: { jobId: 'c', continueParentOnFailure: true } },
        {
          name: 'fail-i',
          queueName: ctx.cq,
          opts: { jobId: 'i', ignoreDependencyOnFailure: true },
        },
        {
          name: 'fail-r',
          queueName: ctx.cq,
          opts: { jobId: 'r', removeDependencyOnFailure: true },
        },
        { name: 'fail-n', queueName: ctx.cq, opts: { jobId: 'n' } },
        { name: 'ok', queueName: ctx.cq, opts: { jobId: 'ok' } },
      ],
    });
    const worker = childWorker(ctx.cq);
    await waitFor(async () => (await finishedCount(ctx.redis, ctx.cq)) === 5);
    await worker.close();
    expect(await parent.getDependencies()).toEqual({
      processed: { [key(ctx.cq, 'ok')]: null },
      unprocessed: [key(ctx.cq, 'n')],
      ignored: { [key(ctx.cq, 'c')]: 'fail-c boom', [key(ctx.cq, 'i')]: 'fail-i boom' },
      failed: [],
    });

    await ctx.queue(ctx.cq).retryJobs({ state: 'failed' });
    const retried = await parent.getDependencies();
    // r left no record, so it does not come back; n never left.
    expect(retried.unprocessed!.sort()).toEqual(['c', 'i', 'n'].map((id) => key(ctx.cq, id)));
    expect(retried).toEqual({
      processed: { [key(ctx.cq, 'ok')]: null },
      unprocessed: retried.unprocessed,
      ignored: {},
      failed: [],
    });
    await ctx.queue(ctx.cq).retryJobs({ state: 'completed' });
    expect((await parent.getDependencies()).unprocessed!.sort()).toEqual(
      ['c', 'i', 'n', 'ok'].map((id) => key(ctx.cq, id)),
    );
    expect((await parent.getDependencies()).processed).toEqual({});
    expect(await ctx.redis.lrange(`bull:${ctx.cq}:wait`, 0, -1)).toHaveLength(5);
  });

  it('a retried child of a parent that no longer exists writes nothing for it', async () => {
    const ctx = context();
    const tree = await ctx.flows.add({
      name: 'parent',
      queueName: ctx.pq,
      opts: { jobId: 'p' },
      children: [{ name: 'ok', queueName: ctx.cq, opts: { jobId: 'ok' } }],
    });
    const worker = childWorker(ctx.cq);
    await waitFor(async () => (await finishedCount(ctx.redis, ctx.cq)) === 1);
    await worker.close();
    await tree.job.remove({ removeChildren: false });
    await tree.children![0]!.job.retry('completed');
    expect(await ctx.redis.keys(`${key(ctx.pq, 'p')}*`)).toEqual([]);
    expect(await ctx.redis.lrange(`bull:${ctx.cq}:wait`, 0, -1)).toEqual(['ok']);
  });
});
