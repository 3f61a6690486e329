/**
 * Tenant groups: the
 * `group: { id }` job option, round-robin between groups, per-group concurrency, rate limit and
 * pause, queue-wide group defaults, every move of a grouped job keeping its group, the cleanup
 * scripts, the console reads, and bad input.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, ValidationError, WaitingChildrenError, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { queueKey } from '../helpers/redis-state';

const track = useCleanup();

const groupKey = (name: string, gid: string, suffix: string) =>
  queueKey(name, `group:${gid}:${suffix}`);

function setUp(label: string) {
  const name = uniqueQueueName(label);
  const redis = track(rawClient());
  const queue = track(new Queue(name, { connection: redisOptions() }));
  return { name, redis, queue };
}

type Processor = (job: Job, token?: string) => Promise<unknown>;

function startWorker(name: string, processor: Processor, opts: Record<string, unknown> = {}) {
  return track(new Worker(name, processor, { connection: redisOptions(), ...opts }));
}

/** Every key of the queue (SCAN), sorted. */
async function queueKeys(redis: Redis, name: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `bull:${name}:*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}

const groupKeysOf = async (redis: Redis, name: string) =>
  (await queueKeys(redis, name)).filter((key) =>
    /^bull:[^:]+:(group:|groups|group-delayed)/.test(key),
  );

async function completedCount(redis: Redis, name: string): Promise<number> {
  return redis.zcard(queueKey(name, 'completed'));
}

/** The most jobs of each group that ran at once, counted by the processors themselves. */
class RunningCounter {
  readonly running = new Map<string, number>();
  readonly peak = new Map<string, number>();
  enter(gid: string): void {
    const now = (this.running.get(gid) ?? 0) + 1;
    this.running.set(gid, now);
    this.peak.set(gid, Math.max(this.peak.get(gid) ?? 0, now));
  }
  leave(gid: string): void {
    this.running.set(gid, (this.running.get(gid) ?? 1) - 1);
  }
  total(): number {
    return [...this.running.values()].reduce((sum, n) => sum + n, 0);
  }
}

/** The most values any half-open interval [t, t + length) contains. */
function busiestWindow(values: number[], length: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  let best = 0;
  let tail = 0;
  for (let head = 0; head < sorted.length; head++) {
    while (sorted[head]! - sorted[tail]! >= length) tail++;
    best = Math.max(best, head - tail + 1);
  }
  return best;
}

describe('the group option', () => {
  it('stores gid, keeps group in opts, and puts the job in its group line, never in wait', async () => {
    const { name, redis, queue } = setUp('gopt');
    const job = await queue.add('a', { n: 1 }, { group: { id: 'acme' } });
    const hash = await redis.hgetall(queueKey(name, job.id!));
    expect(hash.gid).toBe('acme');
    expect(JSON.parse(hash.opts!)).toMatchObject({ group: { id: 'acme' } });
    expect(await redis.lrange(groupKey(name, 'acme', 'wait'), 0, -1)).toEqual([job.id]);
    expect(await redis.lrange(queueKey(name, 'groups'), 0, -1)).toEqual(['acme']);
    expect(await redis.zrange(queueKey(name, 'groups:known'), 0, -1)).toEqual(['acme']);
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
    expect(await redis.zcard(queueKey(name, 'prioritized'))).toBe(0);
    expect(await job.getState()).toBe('waiting');
    expect(await redis.zscore(queueKey(name, 'marker'), '0')).toBe('0');

    // A second job of the group: same line (FIFO: LPUSH), the group is in the ring once.
    const second = await queue.add('a', { n: 2 }, { group: { id: 'acme' } });
    const lifo = await queue.add('a', { n: 3 }, { group: { id: 'acme' }, lifo: true });
    expect(await redis.lrange(groupKey(name, 'acme', 'wait'), 0, -1)).toEqual([
      second.id,
      job.id,
      lifo.id,
    ]);
    expect(await redis.lrange(queueKey(name, 'groups'), 0, -1)).toEqual(['acme']);
    // Run order, next first.
    expect((await queue.getGroupJobs('acme')).map((j) => j.id)).toEqual([
      lifo.id,
      job.id,
      second.id,
    ]);
    expect((await queue.getGroupJobs('acme', 1, 1)).map((j) => j.id)).toEqual([job.id]);
  });

  it('a delayed grouped job waits in group-delayed (not delayed), is never early, and runs in its group', async () => {
    const { name, redis, queue } = setUp('gdel');
    const job = await queue.add('d', {}, { group: { id: 'g1' }, delay: 600 });
    expect(await redis.zscore(queueKey(name, 'delayed'), job.id!)).toBeNull();
    const score = Number(await redis.zscore(queueKey(name, 'group-delayed'), job.id!));
    expect(Math.floor(score / 4096)).toBe(job.timestamp + 600);
    expect(await job.getState()).toBe('delayed');
    // The wake-up marker carries the grouped due time too.
    expect(Number(await redis.zscore(queueKey(name, 'marker'), '1'))).toBe(job.timestamp + 600);

    const started: Job[] = [];
    startWorker(name, async (j) => {
      started.push(j);
    });
    await waitFor(async () => (await completedCount(redis, name)) === 1);
    const processedOn = Number(await redis.hget(queueKey(name, job.id!), 'processedOn'));
    expect(processedOn).toBeGreaterThanOrEqual(job.timestamp + 600);
    expect(started.map((j) => j.id)).toEqual([job.id]);
    expect(await redis.exists(queueKey(name, 'group-delayed'))).toBe(0);
  });

  it('a due delayed job of a paused group is promoted into its group line and waits there', async () => {
    const { name, redis, queue } = setUp('gdelp');
    await queue.pauseGroup('held');
    const job = await queue.add('d', {}, { group: { id: 'held' }, delay: 200 });
    const other = await queue.add('o', {}, { group: { id: 'free' }, delay: 250 });
    startWorker(name, async () => undefined);
    await waitFor(async () => (await other.getState()) === 'completed');
    await waitFor(async () => (await redis.llen(groupKey(name, 'held', 'wait'))) === 1);
    expect(await job.getState()).toBe('waiting');
    expect(await redis.zcard(queueKey(name, 'group-delayed'))).toBe(0);
    expect(await redis.hget(queueKey(name, job.id!), 'delay')).toBe('0');
    await queue.resumeGroup('held');
    await waitFor(async () => (await job.getState()) === 'completed');
  });

  it('promote, changeDelay and remove act on grouped jobs in their group structures', async () => {
    const { name, redis, queue } = setUp('gmoves');
    const a = await queue.add('a', {}, { group: { id: 'g' }, delay: 60_000 });
    const b = await queue.add('b', {}, { group: { id: 'g' }, delay: 60_000 });
    await b.changeDelay(120_000);
    const bScore = Number(await redis.zscore(queueKey(name, 'group-delayed'), b.id!));
    expect(Math.floor(bScore / 4096)).toBeGreaterThanOrEqual(Date.now() + 100_000);
    await a.promote();
    expect(await a.getState()).toBe('waiting');
    expect(await redis.lrange(groupKey(name, 'g', 'wait'), 0, -1)).toEqual([a.id]);
    expect(await redis.hget(queueKey(name, a.id!), 'delay')).toBe('0');

    await a.remove();
    expect(await redis.exists(groupKey(name, 'g', 'wait'))).toBe(0);
    expect(await redis.llen(queueKey(name, 'groups'))).toBe(0);
    await queue.remove(b.id!);
    expect(await redis.exists(queueKey(name, 'group-delayed'))).toBe(0);
    expect(await queue.getJob(b.id!)).toBeUndefined();
  });

  it('changePriority refuses a priority for a grouped job; 0 with lifo moves it to the front', async () => {
    const { name, redis, queue } = setUp('gprio');
    const a = await queue.add('a', {}, { group: { id: 'g' } });
    const b = await queue.add('b', {}, { group: { id: 'g' } });
    await expect(b.changePriority({ priority: 3 })).rejects.toThrow(
      /priority is not supported for grouped jobs/,
    );
    expect(await redis.hget(queueKey(name, b.id!), 'priority')).toBe('0');
    await b.changePriority({ priority: 0, lifo: true });
    expect((await queue.getGroupJobs('g')).map((j) => j.id)).toEqual([b.id, a.id]);
    expect(await redis.lrange(queueKey(name, 'groups'), 0, -1)).toEqual(['g']);
  });

  it('deduplication works for grouped jobs; a grouped job can be a flow child and a flow parent', async () => {
    const { name, redis, queue } = setUp('gflow');
    const first = await queue.add('x', {}, { group: { id: 'g' }, deduplication: { id: 'd1' } });
    const dup = await queue.add('x', {}, { group: { id: 'g' }, deduplication: { id: 'd1' } });
    expect(dup.id).toBe(first.id);
    expect(await redis.llen(groupKey(name, 'g', 'wait'))).toBe(1);

    const flows = track(new FlowProducer({ connection: redisOptions() }));
    const tree = await flows.add({
      name: 'parent',
      queueName: name,
      opts: { group: { id: 'parents' } },
      children: [
        { name: 'child', queueName: name, opts: { group: { id: 'kids' } } },
        { name: 'plain-child', queueName: name },
      ],
    });
    const parentId = tree.job.id!;
    expect(await redis.zscore(queueKey(name, 'waiting-children'), parentId)).not.toBeNull();
    expect(await redis.hget(queueKey(name, parentId), 'gid')).toBe('parents');
    const order: string[] = [];
    startWorker(name, async (job) => {
      order.push(job.name);
      return job.name;
    });
    await waitFor(async () => (await tree.job.getState()) === 'completed');
    expect(order.slice(-1)).toEqual(['parent']);
    expect(new Set(order)).toEqual(new Set(['x', 'child', 'plain-child', 'parent']));
    const parent = await queue.getJob(parentId);
    expect(Object.values(await parent!.getChildrenValues()).sort()).toEqual([
      'child',
      'plain-child',
    ]);
    // Nothing grouped is left waiting; the active sets are empty again (groups:turn is the
    // counter that alternates grouped and ungrouped fetches).
    expect(await groupKeysOf(redis, name)).toEqual([
      queueKey(name, 'groups:known'),
      queueKey(name, 'groups:turn'),
    ]);
  });

  it('a job scheduler with a group template creates grouped iterations', async () => {
    const { name, redis, queue } = setUp('gsched');
    const first = await queue.upsertJobScheduler(
      'every-minute',
      { every: 60_000 },
      { name: 'tick', opts: { group: { id: 'sched' } } },
    );
    expect(await redis.hget(queueKey(name, first.id!), 'gid')).toBe('sched');
    expect(await redis.lrange(groupKey(name, 'sched', 'wait'), 0, -1)).toEqual([first.id]);
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
    const worker = startWorker(name, async () => undefined);
    await waitFor(async () => (await first.getState()) === 'completed');
    await worker.close();
    const next = (await queue.getJobSchedulers())[0]!;
    const nextId = `repeat:every-minute:${next.next}`;
    expect(await redis.zscore(queueKey(name, 'group-delayed'), nextId)).not.toBeNull();
    expect(await redis.zscore(queueKey(name, 'delayed'), nextId)).toBeNull();
    expect(await queue.removeJobScheduler('every-minute')).toBe(true);
    expect(await redis.exists(queueKey(name, nextId))).toBe(0);
    expect(await redis.exists(queueKey(name, 'group-delayed'))).toBe(0);
  });
});

describe('fairness', () => {
  it('a 5,000-job backlog of one tenant does not starve another tenant’s 10 jobs', async () => {
    const { name, redis, queue } = setUp('gfair');
    for (let chunk = 0; chunk < 5; chunk++) {
      await queue.addBulk(
        Array.from({ length: 1000 }, (_, i) => ({
          name: 'big',
          data: { i: chunk * 1000 + i },
          opts: { group: { id: 'big-tenant' } },
        })),
      );
    }
    await queue.addBulk(
      Array.from({ length: 10 }, (_, i) => ({
        name: 'small',
        data: { i },
        opts: { group: { id: 'small-tenant' } },
      })),
    );
    const starts: string[] = [];
    const worker = startWorker(
      name,
      async (job) => {
        starts.push(job.name);
      },
      { concurrency: 1 },
    );
    await waitFor(() => starts.filter((n) => n === 'small').length === 10, 20_000);
    await worker.close();
    const lastSmall = starts.lastIndexOf('small');
    // Round robin: small, big, small, big ... the tenth small job is start 19 or 20.
    expect(lastSmall).toBeLessThan(25);
    expect(starts.slice(0, 20).filter((n) => n === 'small')).toHaveLength(10);
    expect(await redis.llen(groupKey(name, 'big-tenant', 'wait'))).toBe(
      5000 - (starts.length - 10),
    );
  });

  it('grouped and ungrouped work take turns; neither starves the other', async () => {
    const { name, queue } = setUp('gmix');
    await queue.addBulk(Array.from({ length: 200 }, (_, i) => ({ name: 'plain', data: { i } })));
    await queue.addBulk(
      Array.from({ length: 200 }, (_, i) => ({
        name: 'grouped',
        data: { i },
        opts: { group: { id: `t${i % 3}` } },
      })),
    );
    const starts: string[] = [];
    const worker = startWorker(name, async (job) => {
      starts.push(job.name);
    });
    await waitFor(() => starts.length >= 40);
    await worker.close();
    const first40 = starts.slice(0, 40);
    expect(first40.filter((n) => n === 'grouped').length).toBeGreaterThanOrEqual(18);
    expect(first40.filter((n) => n === 'plain').length).toBeGreaterThanOrEqual(18);
  });
});

describe('per-group concurrency', () => {
  it('3 workers × concurrency 5: no group ever runs more jobs than its cap, in the processors or in Redis', async () => {
    const { name, redis, queue } = setUp('gconc');
    const caps: Record<string, number> = { g1: 2, g2: 3, g3: 1 };
    for (const [gid, cap] of Object.entries(caps)) await queue.setGroupConcurrency(gid, cap);
    const counter = new RunningCounter();
    const processor: Processor = async (job) => {
      const gid = (job.opts.group as { id: string }).id;
      counter.enter(gid);
      await sleep(20 + (Number((job.data as { i: number }).i) % 4) * 10);
      counter.leave(gid);
    };
    for (let w = 0; w < 3; w++) startWorker(name, processor, { concurrency: 5 });
    const total = 90;
    await queue.addBulk(
      Array.from({ length: total }, (_, i) => ({
        name: 'work',
        data: { i },
        opts: { group: { id: `g${(i % 3) + 1}` } },
      })),
    );
    let sampled = 0;
    const peakInRedis: Record<string, number> = { g1: 0, g2: 0, g3: 0 };
    while ((await completedCount(redis, name)) < total) {
      for (const gid of Object.keys(caps)) {
        const size = await redis.scard(groupKey(name, gid, 'active'));
        peakInRedis[gid] = Math.max(peakInRedis[gid]!, size);
      }
      sampled++;
      await sleep(5);
    }
    expect(sampled).toBeGreaterThan(5);
    for (const [gid, cap] of Object.entries(caps)) {
      expect(counter.peak.get(gid), gid).toBe(cap);
      expect(peakInRedis[gid], gid).toBeLessThanOrEqual(cap);
    }
    // Every slot freed: the active sets are gone.
    for (const gid of Object.keys(caps)) {
      expect(await redis.exists(groupKey(name, gid, 'active'))).toBe(0);
    }
    expect(await queue.getGroup('g2')).toMatchObject({ waiting: 0, active: 0, concurrency: 3 });
  });

  it('a job waiting out its backoff holds no group slot', async () => {
    const { name, redis, queue } = setUp('gslot');
    await queue.setGroupConcurrency('g', 1);
    const order: string[] = [];
    startWorker(
      name,
      async (job) => {
        order.push(`${job.name}#${job.attemptsMade}`);
        if (job.name === 'flaky' && job.attemptsMade === 0) throw new Error('first try fails');
      },
      { concurrency: 3 },
    );
    const flaky = await queue.add(
      'flaky',
      {},
      { group: { id: 'g' }, attempts: 2, backoff: { type: 'fixed', delay: 500 } },
    );
    const steady = await queue.add('steady', {}, { group: { id: 'g' } });
    await waitFor(async () => (await flaky.getState()) === 'delayed');
    // While it waits out its backoff (in group-delayed), the group's slot is free.
    expect(await redis.zscore(queueKey(name, 'group-delayed'), flaky.id!)).not.toBeNull();
    expect(await redis.zscore(queueKey(name, 'delayed'), flaky.id!)).toBeNull();
    await waitFor(async () => (await steady.getState()) === 'completed');
    await waitFor(async () => (await flaky.getState()) === 'completed');
    expect(order).toEqual(['flaky#0', 'steady#0', 'flaky#1']);
  });
});

describe('per-group concurrency: parked parents', () => {
  it('a grouped job parked in waiting-children frees its slot; released, it goes to the front of its group', async () => {
    const { name, redis, queue } = setUp('gwc');
    await queue.setGroupConcurrency('g', 1);
    await queue.pauseGroup('kids');
    const order: string[] = [];
    startWorker(
      name,
      async (job, token) => {
        order.push(`${job.name}#${(job.data as { step?: number }).step ?? 0}`);
        if (job.name === 'parent' && !(job.data as { step?: number }).step) {
          await queue.add(
            'child',
            {},
            { group: { id: 'kids' }, parent: { id: job.id!, queue: job.queueQualifiedName } },
          );
          await job.updateData({ step: 1 });
          if (await job.moveToWaitingChildren(token)) throw new WaitingChildrenError();
        }
      },
      { concurrency: 3 },
    );
    const parent = await queue.add('parent', {}, { group: { id: 'g' } });
    const other = await queue.add('other', {}, { group: { id: 'g' } });
    await waitFor(async () => (await other.getState()) === 'completed');
    expect(await parent.getState()).toBe('waiting-children');
    expect(await redis.exists(groupKey(name, 'g', 'active'))).toBe(0);
    await queue.pauseGroup('g');
    const late = await queue.add('late', {}, { group: { id: 'g' } });
    await queue.resumeGroup('kids');
    await waitFor(async () => (await redis.llen(groupKey(name, 'g', 'wait'))) === 2);
    // Released parents go to the front of their line (RPUSH), ahead of `late`.
    expect((await queue.getGroupJobs('g')).map((j) => j.id)).toEqual([parent.id, late.id]);
    await queue.resumeGroup('g');
    await waitFor(async () => (await late.getState()) === 'completed');
    expect(order).toEqual(['parent#0', 'other#0', 'child#0', 'parent#1', 'late#0']);
  });
});

describe('per-group rate limit', () => {
  it('no duration-long window of a limited group holds more than max starts; other groups are not held back', async () => {
    const { name, redis, queue } = setUp('grate');
    const MAX = 3;
    const DURATION = 800;
    await queue.setGroupRateLimit('limited', MAX, DURATION);
    const limited = await queue.addBulk(
      Array.from({ length: 12 }, (_, i) => ({
        name: 'limited',
        data: { i },
        opts: { group: { id: 'limited' } },
      })),
    );
    const free = await queue.addBulk(
      Array.from({ length: 12 }, (_, i) => ({
        name: 'free',
        data: { i },
        opts: { group: { id: 'free' } },
      })),
    );
    for (let w = 0; w < 2; w++) startWorker(name, async () => sleep(5), { concurrency: 4 });
    await waitFor(async () => (await completedCount(redis, name)) === 24, 20_000);
    const startsOf = async (jobs: Job[]) =>
      Promise.all(
        jobs.map(async (job) => Number(await redis.hget(queueKey(name, job.id!), 'processedOn'))),
      );
    const limitedStarts = await startsOf(limited);
    const freeStarts = await startsOf(free);
    // Both workers stamp processedOn with the time they sent the fetch: a little slack.
    expect(busiestWindow(limitedStarts, DURATION - 50)).toBeLessThanOrEqual(MAX);
    const sorted = [...limitedStarts].sort((a, b) => a - b);
    expect(sorted[11]! - sorted[0]!).toBeGreaterThanOrEqual(3 * DURATION - 50);
    expect(Math.max(...freeStarts)).toBeLessThan(sorted[11]!);
    const info = await queue.getGroup('limited');
    expect(info.rateLimit).toEqual({ max: MAX, duration: DURATION });
    expect(await redis.pttl(groupKey(name, 'limited', 'limiter'))).not.toBe(-1);
  });

  it('a worker blocked on a rate-limited group wakes when the window reopens (drainDelay is long)', async () => {
    const { name, redis, queue } = setUp('gwake');
    await queue.setGroupRateLimit('g', 1, 700);
    const jobs = await queue.addBulk(
      Array.from({ length: 3 }, (_, i) => ({
        name: 'j',
        data: { i },
        opts: { group: { id: 'g' } },
      })),
    );
    startWorker(name, async () => undefined, { drainDelay: 60 });
    await waitFor(async () => (await completedCount(redis, name)) === 3, 8_000);
    const starts = await Promise.all(
      jobs.map(async (job) => Number(await redis.hget(queueKey(name, job.id!), 'processedOn'))),
    );
    starts.sort((a, b) => a - b);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(700 - 50);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(700 - 50);
  });
});

describe('queue-wide group defaults', () => {
  it('apply to every group without its own settings; a group’s own value wins', async () => {
    const { name, redis, queue } = setUp('gdefs');
    await queue.setGroupDefaults({ concurrency: 1, rateLimit: { max: 100, duration: 1000 } });
    await queue.setGroupConcurrency('wide', 3);
    expect(await queue.getGroupDefaults()).toEqual({
      concurrency: 1,
      rateLimit: { max: 100, duration: 1000 },
    });
    const counter = new RunningCounter();
    let peakTotal = 0;
    startWorker(
      name,
      async (job) => {
        const gid = (job.opts.group as { id: string }).id;
        counter.enter(gid);
        peakTotal = Math.max(peakTotal, counter.total());
        await sleep(30);
        counter.leave(gid);
      },
      { concurrency: 8 },
    );
    await queue.addBulk(
      ['a', 'b', 'wide'].flatMap((gid) =>
        Array.from({ length: 8 }, (_, i) => ({
          name: gid,
          data: { i },
          opts: { group: { id: gid } },
        })),
      ),
    );
    await waitFor(async () => (await completedCount(redis, name)) === 24);
    expect(counter.peak.get('a')).toBe(1);
    expect(counter.peak.get('b')).toBe(1);
    expect(counter.peak.get('wide')).toBe(3);
    expect(peakTotal).toBeGreaterThanOrEqual(3);
    expect(await queue.getGroup('a')).toMatchObject({
      concurrency: 1,
      rateLimit: { max: 100, duration: 1000 },
    });
    // Clearing a default: omitted fields stay, null removes.
    await queue.setGroupDefaults({ rateLimit: null });
    expect(await queue.getGroupDefaults()).toEqual({ concurrency: 1, rateLimit: null });
    await queue.removeGroupConcurrency('wide');
    expect((await queue.getGroup('wide')).concurrency).toBe(1);
  });
});

describe('pause and resume one group', () => {
  it('a paused group’s jobs wait while other groups run; resume wakes an idle worker at once', async () => {
    const { name, redis, queue } = setUp('gpause');
    await queue.pauseGroup('p');
    const held = await queue.addBulk(
      Array.from({ length: 5 }, (_, i) => ({
        name: 'p',
        data: { i },
        opts: { group: { id: 'p' } },
      })),
    );
    await queue.addBulk(
      Array.from({ length: 5 }, (_, i) => ({
        name: 'q',
        data: { i },
        opts: { group: { id: 'q' } },
      })),
    );
    await queue.add('plain', {});
    const seen: string[] = [];
    // A drain delay far beyond waitFor's timeout: only a marker can wake this worker.
    startWorker(name, async (job) => void seen.push(job.name), { drainDelay: 60, concurrency: 2 });
    await waitFor(async () => (await completedCount(redis, name)) === 6);
    await sleep(200);
    expect(seen).not.toContain('p');
    expect(await queue.getGroup('p')).toMatchObject({ paused: true, waiting: 5, active: 0 });
    expect(await held[0]!.getState()).toBe('waiting');
    await queue.resumeGroup('p');
    await waitFor(async () => (await completedCount(redis, name)) === 11, 5_000);
    expect(seen.filter((n) => n === 'p')).toHaveLength(5);
    expect((await queue.getGroup('p')).paused).toBe(false);
  });
});

describe('ungrouped features on a queue with groups', () => {
  it('priorities, delays and retries of ungrouped jobs keep working', async () => {
    const { name, redis, queue } = setUp('gplain');
    await queue.addBulk(
      Array.from({ length: 6 }, (_, i) => ({
        name: 'grouped',
        data: { i },
        opts: { group: { id: 'g' } },
      })),
    );
    const low = await queue.add('prio-5', {}, { priority: 5 });
    const high = await queue.add('prio-1', {}, { priority: 1 });
    const delayed = await queue.add('delayed', {}, { delay: 500 });
    const retried = await queue.add(
      'retried',
      {},
      { attempts: 2, backoff: { type: 'fixed', delay: 300 } },
    );
    const order: string[] = [];
    startWorker(name, async (job) => {
      order.push(job.name);
      if (job.name === 'retried' && job.attemptsMade === 0) throw new Error('once');
    });
    await waitFor(async () => (await completedCount(redis, name)) === 10);
    const plain = order.filter((n) => n !== 'grouped');
    expect(plain.indexOf('prio-1')).toBeLessThan(plain.indexOf('prio-5'));
    expect((await queue.getJob(retried.id!))!.attemptsMade).toBe(2);
    const delayedOn = Number(await redis.hget(queueKey(name, delayed.id!), 'processedOn'));
    expect(delayedOn).toBeGreaterThanOrEqual(delayed.timestamp + 500);
    expect(await low.getState()).toBe('completed');
    expect(await high.getState()).toBe('completed');
    // The retried ungrouped job went through plain `delayed`, never group-delayed.
    expect(await redis.exists(queueKey(name, 'group-delayed'))).toBe(0);
  });
});

describe('queue-wide limits count grouped jobs', () => {
  it('global concurrency caps grouped and ungrouped jobs together', async () => {
    const { name, redis, queue } = setUp('gglobal');
    await queue.setGlobalConcurrency(2);
    await queue.setGroupDefaults({ concurrency: 5 });
    const counter = new RunningCounter();
    let peak = 0;
    const processor: Processor = async (job) => {
      const gid = (job.opts.group as { id: string } | undefined)?.id ?? 'plain';
      counter.enter(gid);
      peak = Math.max(peak, counter.total());
      await sleep(15);
      counter.leave(gid);
    };
    for (let w = 0; w < 2; w++) startWorker(name, processor, { concurrency: 4 });
    await queue.addBulk([
      ...Array.from({ length: 20 }, (_, i) => ({
        name: 'g',
        data: { i },
        opts: { group: { id: `t${i % 2}` } },
      })),
      ...Array.from({ length: 10 }, (_, i) => ({ name: 'plain', data: { i } })),
    ]);
    await waitFor(async () => (await completedCount(redis, name)) === 30);
    expect(peak).toBe(2);
  });
});

describe('moves keep the group', () => {
  it('a retry without backoff goes back to its group line (held there by a paused group)', async () => {
    const { name, redis, queue } = setUp('gretry');
    const job = await queue.add('r', {}, { group: { id: 'g' }, attempts: 2 });
    const worker = startWorker(name, async (j) => {
      if (j.attemptsMade === 0) {
        await queue.pauseGroup('g');
        throw new Error('retry me');
      }
    });
    await waitFor(async () => (await redis.hget(queueKey(name, job.id!), 'atm')) === '1');
    expect(await redis.lrange(groupKey(name, 'g', 'wait'), 0, -1)).toEqual([job.id]);
    expect(await job.getState()).toBe('waiting');
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
    expect(await redis.scard(groupKey(name, 'g', 'active'))).toBe(0);
    await queue.resumeGroup('g');
    await waitFor(async () => (await job.getState()) === 'completed');
    await worker.close();
    expect((await queue.getJob(job.id!))!.attemptsMade).toBe(2);
  });

  it('retries with backoff wait in group-delayed and come back into their group', async () => {
    const { name, redis, queue } = setUp('gbackoff');
    const job = await queue.add(
      'b',
      {},
      { group: { id: 'g' }, attempts: 3, backoff: { type: 'fixed', delay: 300 } },
    );
    const seenDelayedIn: string[] = [];
    const worker = startWorker(name, async (j) => {
      if (j.attemptsMade < 2) throw new Error(`fail ${j.attemptsMade}`);
    });
    worker.on('failed', () => {
      void (async () => {
        if (await redis.zscore(queueKey(name, 'group-delayed'), job.id!))
          seenDelayedIn.push('group');
        if (await redis.zscore(queueKey(name, 'delayed'), job.id!)) seenDelayedIn.push('plain');
      })();
    });
    await waitFor(async () => (await job.getState()) === 'completed', 10_000);
    expect(seenDelayedIn).toEqual(['group', 'group']);
    const done = (await queue.getJob(job.id!))!;
    expect(done.attemptsMade).toBe(3);
    expect(done.processedOn! - done.timestamp).toBeGreaterThanOrEqual(600);
  });

  it('job.moveToWait (RateLimitError path) puts a grouped job at the front of its group line', async () => {
    const { name, redis, queue } = setUp('gmtw');
    const first = await queue.add('first', {}, { group: { id: 'g' } });
    const second = await queue.add('second', {}, { group: { id: 'g' } });
    const token = 'tok-1';
    const fetched = await queue.backend.fetchNextJob({ token, lockDuration: 30_000 });
    expect(fetched).toMatchObject({ kind: 'job', jobId: first.id });
    expect(await redis.smembers(groupKey(name, 'g', 'active'))).toEqual([first.id]);
    expect(await redis.lrange(queueKey(name, 'active'), 0, -1)).toEqual([first.id]);
    await queue.backend.moveActiveJobToWait(first.id!, token);
    expect((await queue.getGroupJobs('g')).map((j) => j.id)).toEqual([first.id, second.id]);
    expect(await redis.exists(groupKey(name, 'g', 'active'))).toBe(0);
    expect(await redis.llen(queueKey(name, 'active'))).toBe(0);
  });

  it('a stalled grouped job (its worker killed) goes back to the front of its group and keeps its slot until then', async () => {
    const { name, redis, queue } = setUp('gstall');
    await queue.setGroupConcurrency('g', 1);
    const victim = await queue.add('victim', {}, { group: { id: 'g' } });
    const next = await queue.add('next', {}, { group: { id: 'g' } });
    let startedVictim = false;
    const dying = new Worker(
      name,
      async () => {
        startedVictim = true;
        await new Promise(() => undefined);
      },
      { connection: redisOptions(), lockDuration: 800, skipStalledCheck: true },
    );
    await waitFor(() => startedVictim);
    await dying.close(true);
    expect(await redis.smembers(groupKey(name, 'g', 'active'))).toEqual([victim.id]);

    const order: string[] = [];
    const stalled: string[] = [];
    const survivor = startWorker(name, async (job) => void order.push(job.name), {
      lockDuration: 800,
      stalledInterval: 300,
    });
    survivor.on('stalled', (jobId: string) => stalled.push(jobId));
    await waitFor(async () => (await next.getState()) === 'completed', 10_000);
    expect(stalled).toEqual([victim.id]);
    // The group's slot stayed taken by the stalled job, so `next` could not start before it.
    expect(order).toEqual(['victim', 'next']);
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
    expect(await redis.hget(queueKey(name, victim.id!), 'stc')).toBe('1');
  });

  it('retryJobs and job.retry send finished grouped jobs back to their groups', async () => {
    const { name, redis, queue } = setUp('gretryjobs');
    const jobs = await queue.addBulk(
      Array.from({ length: 4 }, (_, i) => ({
        name: 'f',
        data: { i },
        opts: { group: { id: `g${i % 2}` } },
      })),
    );
    const worker = startWorker(name, async () => {
      throw new Error('no');
    });
    await waitFor(async () => (await redis.zcard(queueKey(name, 'failed'))) === 4);
    await worker.close();
    await queue.retryJobs({ state: 'failed' });
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
    expect(await redis.llen(groupKey(name, 'g0', 'wait'))).toBe(2);
    expect(await redis.llen(groupKey(name, 'g1', 'wait'))).toBe(2);
    expect((await redis.lrange(queueKey(name, 'groups'), 0, -1)).sort()).toEqual(['g0', 'g1']);
    expect(await jobs[0]!.getState()).toBe('waiting');

    await queue.pauseGroup('g0');
    await queue.pauseGroup('g1');
    const done = await queue.add('c', {}, { group: { id: 'g2' } });
    const w2 = startWorker(name, async () => undefined);
    await waitFor(async () => (await done.getState()) === 'completed');
    await w2.close();
    await (await queue.getJob(done.id!))!.retry('completed');
    expect(await redis.lrange(groupKey(name, 'g2', 'wait'), 0, -1)).toEqual([done.id]);
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
  });

  it('promoteJobs promotes grouped delayed jobs into their groups too', async () => {
    const { name, redis, queue } = setUp('gpromo');
    await queue.add('plain', {}, { delay: 60_000 });
    const grouped = await queue.add('grouped', {}, { group: { id: 'g' }, delay: 60_000 });
    await queue.promoteJobs({ count: 1 });
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(1);
    expect(await redis.lrange(groupKey(name, 'g', 'wait'), 0, -1)).toEqual([grouped.id]);
    expect(await redis.exists(queueKey(name, 'group-delayed'))).toBe(0);
  });
});

describe('drain, clean and obliterate', () => {
  async function fill(queue: Queue, groups: number, perGroup: number, extra: object = {}) {
    const jobs: Job[] = [];
    for (let g = 0; g < groups; g++) {
      jobs.push(
        ...(await queue.addBulk(
          Array.from({ length: perGroup }, (_, i) => ({
            name: 'j',
            data: { g, i },
            opts: { group: { id: `tenant-${g}` }, ...extra },
          })),
        )),
      );
    }
    return jobs;
  }

  it('drain(true) removes every grouped waiting and delayed job; only settings and the registry stay', async () => {
    const { name, redis, queue } = setUp('gdrain');
    await queue.setGroupConcurrency('tenant-0', 2);
    const waiting = await fill(queue, 12, 100); // 1,200: more than one chunk
    await fill(queue, 3, 5, { delay: 60_000 });
    await queue.add('plain', {});
    await queue.drain(true);
    expect(await redis.exists(queueKey(name, waiting[0]!.id!))).toBe(0);
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 0 });
    expect(await groupKeysOf(redis, name)).toEqual([
      groupKey(name, 'tenant-0', 'meta'),
      queueKey(name, 'groups:known'),
    ]);
    const keys = await queueKeys(redis, name);
    expect(keys.filter((key) => /:\d+$/.test(key))).toEqual([]);
  });

  it('drain() leaves grouped delayed jobs alone', async () => {
    const { name, redis, queue } = setUp('gdrain2');
    await fill(queue, 2, 3);
    const later = await fill(queue, 2, 2, { delay: 60_000 });
    await queue.drain();
    expect(await redis.zcard(queueKey(name, 'group-delayed'))).toBe(4);
    expect(await later[0]!.getState()).toBe('delayed');
    expect(await redis.exists(queueKey(name, 'groups'))).toBe(0);
  });

  it('clean(grace, 0, "wait" | "delayed") removes old grouped jobs in every group, over many chunks, keeping newer ones', async () => {
    const { name, redis, queue } = setUp('gclean');
    const old = Date.now() - 60_000;
    const oldWaiting = await fill(queue, 25, 50, { timestamp: old }); // 1,250 old
    const fresh = await fill(queue, 5, 4); // 20 fresh, in groups tenant-0..4
    const oldDelayed = await fill(queue, 3, 10, { timestamp: old, delay: 120_000 });
    const cleaned = await queue.clean(10_000, 0, 'wait');
    expect(new Set(cleaned)).toEqual(new Set(oldWaiting.map((j) => j.id)));
    for (const job of fresh) expect(await job.getState()).toBe('waiting');
    expect((await redis.lrange(queueKey(name, 'groups'), 0, -1)).sort()).toEqual([
      'tenant-0',
      'tenant-1',
      'tenant-2',
      'tenant-3',
      'tenant-4',
    ]);
    const cleanedDelayed = await queue.clean(10_000, 0, 'delayed');
    expect(new Set(cleanedDelayed)).toEqual(new Set(oldDelayed.map((j) => j.id)));
    expect(await redis.exists(queueKey(name, 'group-delayed'))).toBe(0);

    expect(await queue.clean(0, 0, 'wait')).toHaveLength(20);
    expect(await groupKeysOf(redis, name)).toEqual([queueKey(name, 'groups:known')]);
  });

  it('clean with a limit examines at most that many grouped entries', async () => {
    const { queue } = setUp('gcleanlim');
    await fill(queue, 4, 10, { timestamp: Date.now() - 60_000 });
    expect(await queue.clean(1_000, 15, 'wait')).toHaveLength(15);
    expect(await queue.clean(1_000, 0, 'wait')).toHaveLength(25);
  });

  it('obliterate in small chunks leaves no key of the queue behind, group keys included', async () => {
    const { name, redis, queue } = setUp('gobl');
    await queue.setGroupRateLimit('tenant-1', 5, 1000);
    await queue.setGroupDefaults({ concurrency: 4 });
    await queue.pauseGroup('only-settings');
    await fill(queue, 6, 8);
    await fill(queue, 2, 3, { delay: 60_000 });
    // Limiter keys and an active set: run a few jobs.
    const worker = startWorker(name, async () => undefined);
    await waitFor(async () => (await completedCount(redis, name)) >= 4);
    await worker.close();
    expect((await groupKeysOf(redis, name)).length).toBeGreaterThan(5);
    await queue.obliterate({ count: 7 });
    expect(await queueKeys(redis, name)).toEqual([]);
  });
});

describe('console reads', () => {
  it('getGroups pages every known group in id order; getGroup counts waiting and active', async () => {
    const { queue } = setUp('gpage');
    const ids = Array.from({ length: 23 }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
    for (const id of ids.slice(0, 20)) await queue.add('j', {}, { group: { id } });
    await queue.add('j', {}, { group: { id: 'tenant-00' } });
    await queue.setGroupConcurrency('tenant-20', 2);
    await queue.pauseGroup('tenant-21');
    await queue.setGroupRateLimit('tenant-22', 1, 5000);
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const page = await queue.getGroups({ cursor, count: 10 });
      seen.push(...page.groups.map((g) => g.id));
      cursor = page.cursor;
      pages++;
    } while (cursor !== '' && pages < 10);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
    expect(await queue.getGroup('tenant-00')).toEqual({
      id: 'tenant-00',
      waiting: 2,
      active: 0,
      paused: false,
      concurrency: null,
      rateLimit: null,
      rateLimitTtl: 0,
    });
    expect(await queue.getGroup('tenant-20')).toMatchObject({ concurrency: 2, waiting: 0 });
    expect(await queue.getGroup('tenant-21')).toMatchObject({ paused: true });
    expect(await queue.getGroup('tenant-22')).toMatchObject({
      rateLimit: { max: 1, duration: 5000 },
      rateLimitTtl: 0,
    });
    // One start of tenant-22 fills its window: the TTL is what is left of the 5 s.
    await queue.add('j', {}, { group: { id: 'tenant-22' } });
    await queue.pauseGroup('tenant-00');
    for (const id of ids.slice(1, 20)) await queue.pauseGroup(id);
    const fetched = await queue.backend.fetchNextJob({ token: 't', lockDuration: 30_000 });
    expect(fetched.kind).toBe('job');
    const limited = await queue.getGroup('tenant-22');
    expect(limited).toMatchObject({ active: 1, waiting: 0 });
    expect(limited.rateLimitTtl).toBeGreaterThan(0);
    expect(limited.rateLimitTtl).toBeLessThanOrEqual(5001);
    expect(await queue.getGroup('never-used')).toMatchObject({ waiting: 0, active: 0 });
  });
});

describe('bad input (nothing written)', () => {
  it('bad group ids, group with priority, bad limits and reserved job ids throw ValidationError', async () => {
    const { name, redis, queue } = setUp('gbad');
    await queue.waitUntilReady();
    const before = await queueKeys(redis, name);
    const metaBefore = await redis.hgetall(queueKey(name, 'meta'));
    const badIds: unknown[] = [
      '',
      'a:b',
      'a b',
      'x'.repeat(129),
      'ü',
      'a/b',
      '{tag}',
      7,
      null,
      undefined,
    ];
    for (const id of badIds) {
      await expect(
        queue.add('j', {}, { group: { id } as unknown as { id: string } }),
        String(id),
      ).rejects.toThrow(ValidationError);
    }
    const badGroups: unknown[] = [null, 'acme', ['acme'], { id: 'acme', limit: { max: 1 } }];
    for (const group of badGroups) {
      await expect(
        queue.add('j', {}, { group } as unknown as { group: { id: string } }),
      ).rejects.toThrow(ValidationError);
    }
    await expect(queue.add('j', {}, { group: { id: 'acme' }, priority: 2 })).rejects.toThrow(
      'priority is not supported for grouped jobs',
    );
    await expect(
      queue.addBulk([
        { name: 'ok', data: {}, opts: { group: { id: 'fine' } } },
        { name: 'bad', data: {}, opts: { group: { id: 'not ok' } } },
      ]),
    ).rejects.toThrow(ValidationError);
    for (const jobId of ['groups', 'group-delayed', 'group:acme:wait']) {
      await expect(queue.add('j', {}, { jobId })).rejects.toThrow(ValidationError);
    }
    const ok = 'x'.repeat(128);
    const attempts: [string, () => Promise<unknown>][] = [
      ['concurrency 0', () => queue.setGroupConcurrency('acme', 0)],
      ['concurrency 1.5', () => queue.setGroupConcurrency('acme', 1.5)],
      ['concurrency bad id', () => queue.setGroupConcurrency('a:b', 1)],
      ['rate max 0', () => queue.setGroupRateLimit('acme', 0, 1000)],
      ['rate negative duration', () => queue.setGroupRateLimit('acme', 1, -5)],
      ['rate NaN', () => queue.setGroupRateLimit('acme', 1, Number.NaN)],
      ['rate bad id', () => queue.setGroupRateLimit('', 1, 1000)],
      ['pause bad id', () => queue.pauseGroup('bad id')],
      ['resume bad id', () => queue.resumeGroup(`${ok}x`)],
      ['remove bad id', () => queue.removeGroupConcurrency('a:b')],
      ['defaults concurrency 0', () => queue.setGroupDefaults({ concurrency: 0 })],
      ['defaults duration 0', () => queue.setGroupDefaults({ rateLimit: { max: 1, duration: 0 } })],
      [
        'defaults half bad',
        () => queue.setGroupDefaults({ concurrency: 2, rateLimit: { max: -1, duration: 10 } }),
      ],
      [
        'defaults unknown key',
        () => queue.setGroupDefaults({ max: 1 } as unknown as { concurrency: number }),
      ],
      ['getGroup bad id', () => queue.getGroup('a:b')],
      ['getGroups count 0', () => queue.getGroups({ count: 0 })],
      ['getGroups bad cursor', () => queue.getGroups({ cursor: 'a b' })],
      ['getGroupJobs bad id', () => queue.getGroupJobs('a:b')],
      ['getGroupJobs bad range', () => queue.getGroupJobs('acme', -1, 3)],
    ];
    for (const [label, attempt] of attempts) {
      await expect(attempt(), label).rejects.toThrow(ValidationError);
    }
    expect(await queueKeys(redis, name)).toEqual(before);
    expect(await redis.hgetall(queueKey(name, 'meta'))).toEqual(metaBefore);
    // The longest allowed id works.
    const job = await queue.add('j', {}, { group: { id: ok } });
    expect(await redis.hget(queueKey(name, job.id!), 'gid')).toBe(ok);
  });
});
