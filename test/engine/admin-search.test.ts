/**
 * engine/admin/job-search.ts on a real Redis: search and bulk filters match the redacted view
 * of job data (so they are no oracle for a redacted value), and one call reads a bounded number
 * of bytes of job hashes, however large the jobs, saying when that budget stopped it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { createBulkOp, redactionRules, runBulkChunk, type JobSearchOptions } from 'oxmq/admin';
import { searchJobs } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();
const client = rawClient();
afterAll(() => client.quit());

describe('matching the redacted view', () => {
  const name = uniqueQueueName('search-redacted');
  let queue: Queue;
  const search = (opts: Omit<JobSearchOptions, 'state'>) =>
    searchJobs(client, 'bull', name, { state: 'waiting', ...opts });
  const ids = async (opts: Omit<JobSearchOptions, 'state'>) =>
    (await search(opts)).matches.map((row) => row.id);

  beforeAll(async () => {
    queue = new Queue(name, { connection: redisOptions() });
    await queue.add('signup', {
      user: { email: 'ada@example.com', password: 'hunter2' },
      credentials: { login: 'ada', code: '4711' },
      dsn: 'redis://:pw-in-url@cache:6379',
      customerNumber: 'C-991',
    });
    await queue.add('other', { user: { email: 'bob@example.com' } });
  });
  afterAll(() => queue.close());

  it('finds no job by any piece of a redacted value, one character at a time or whole', async () => {
    for (const q of ['"password":"h', '"password":"hu', 'hunter2', 'hunter', '4711', 'pw-in-url']) {
      expect(await ids({ mode: 'text', query: q }), q).toEqual([]);
    }
  });

  it('finds jobs by what the view shows, redacted marks included', async () => {
    expect(await ids({ mode: 'text', query: 'ada@example' })).toHaveLength(1);
    expect(await ids({ mode: 'text', query: '"password":"[redacted]"' })).toHaveLength(1);
    expect(await ids({ mode: 'text', query: 'redis://:[redacted]@cache' })).toHaveLength(1);
  });

  it('compares a path with the redacted value: through or at a sensitive key, nothing else', async () => {
    expect(await ids({ mode: 'path', path: 'user.password', query: 'hunter2' })).toEqual([]);
    expect(await ids({ mode: 'path', path: 'credentials.code', query: '4711' })).toEqual([]);
    expect(await ids({ mode: 'path', path: 'credentials.code', query: '' })).toEqual([]);
    expect(await ids({ mode: 'path', path: 'user.password', query: '[redacted]' })).toHaveLength(1);
    expect(await ids({ mode: 'path', path: 'user.email', query: 'bob@example.com' })).toHaveLength(
      1,
    );
    // A path's value is redacted itself: an object holding a secret compares as its view.
    expect(
      await ids({
        mode: 'path',
        path: 'user',
        query: JSON.stringify({ email: 'ada@example.com', password: '[redacted]' }),
      }),
    ).toHaveLength(1);
  });

  it('uses the rules it is given: configured names hide their values too', async () => {
    const redaction = redactionRules(['customerNumber']);
    expect(await ids({ mode: 'text', query: 'C-991' })).toHaveLength(1);
    expect(await ids({ mode: 'text', query: 'C-991', redaction })).toEqual([]);
    expect(await ids({ mode: 'path', path: 'customerNumber', query: 'C-991', redaction })).toEqual(
      [],
    );
  });

  it('bulk filters act only on what the view matches', async () => {
    const probe = await createBulkOp(client, {
      prefix: 'bull',
      name,
      action: 'remove',
      state: 'waiting',
      filter: { mode: 'text', query: 'hunter2' },
      actor: 'test',
    });
    const after = await runBulkChunk(client, probe.id, 100);
    expect(after).toMatchObject({ status: 'done', done: 0, examined: 2 });
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 2 });

    const pathProbe = await createBulkOp(client, {
      prefix: 'bull',
      name,
      action: 'remove',
      state: 'waiting',
      filter: { mode: 'path', path: 'user.password', query: 'hunter2' },
      actor: 'test',
    });
    expect(await runBulkChunk(client, pathProbe.id, 100)).toMatchObject({ done: 0 });
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 2 });
  });
});

describe('the byte budget', () => {
  const name = uniqueQueueName('search-bytes');
  const BIG = 'x'.repeat(200_000);
  let queue: Queue;
  let order: string[];

  beforeAll(async () => {
    queue = new Queue(name, { connection: redisOptions() });
    const jobs = await queue.addBulk(
      Array.from({ length: 10 }, (_, i) => ({ name: `big-${i}`, data: { i, blob: BIG } })),
    );
    order = jobs.map((job) => job.id);
  });
  afterAll(() => queue.close());

  const search = (opts: Partial<JobSearchOptions>) =>
    searchJobs(client, 'bull', name, {
      state: 'waiting',
      mode: 'text',
      query: 'blob',
      order: 'oldest',
      ...opts,
    });

  it('stops before the bytes it would read pass the budget, and continues from there', async () => {
    const maxBytes = 700_000;
    const first = await search({ maxBytes });
    expect(first).toMatchObject({ stoppedBy: 'bytes', scanned: 3, to: 3, next: 3, tooLarge: 0 });
    expect(first.bytesRead).toBeGreaterThan(600_000);
    expect(first.bytesRead).toBeLessThanOrEqual(maxBytes);
    expect(first.matches.map((row) => row.id)).toEqual(order.slice(0, 3));

    const seen = [...first.matches];
    let cursor = first.next;
    while (cursor !== null) {
      const next = await search({ maxBytes, cursor });
      expect(next.bytesRead).toBeLessThanOrEqual(maxBytes);
      seen.push(...next.matches);
      cursor = next.next;
      if (cursor === null) expect(next.stoppedBy).toBeNull();
    }
    expect(seen.map((row) => row.id)).toEqual(order);
  });

  it('passes over a job larger than a whole call may read, and says so', async () => {
    const result = await search({ maxBytes: 150_000 });
    expect(result).toMatchObject({ tooLarge: 10, matches: [], next: null, stoppedBy: null });
    expect(result.bytesRead).toBe(0);
  });

  it('reads no data for a name search', async () => {
    const result = await search({ mode: 'name', query: 'big-', maxBytes: 10_000 });
    expect(result.matches).toHaveLength(10);
    expect(result.bytesRead).toBeLessThan(10_000);
    expect(result).toMatchObject({ stoppedBy: null, next: null, tooLarge: 0 });
  });
});

describe('order and cursors', () => {
  it('walks newest first by default, oldest first when asked, in lists and sorted sets', async () => {
    const name = uniqueQueueName('search-order');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const jobs = await queue.addBulk(
      Array.from({ length: 7 }, (_, i) => ({ name: `n${i}`, data: { i } })),
    );
    const ids = jobs.map((job) => job.id);
    const oldest = await searchJobs(client, 'bull', name, {
      state: 'waiting',
      mode: 'name',
      query: 'n',
      order: 'oldest',
      budget: 4,
    });
    expect(oldest.matches.map((row) => row.id)).toEqual(
      (await queue.getJobs(['waiting'], 0, 3, true)).map((job) => job.id),
    );
    expect(oldest).toMatchObject({ stoppedBy: 'jobs', next: 4, total: 7, order: 'oldest' });
    expect(oldest.matches.map((row) => row.id)).toEqual(ids.slice(0, 4));
    const rest = await searchJobs(client, 'bull', name, {
      state: 'waiting',
      mode: 'name',
      query: 'n',
      order: 'oldest',
      cursor: oldest.next ?? 0,
    });
    expect(rest.matches.map((row) => row.id)).toEqual(ids.slice(4));

    const newest = await searchJobs(client, 'bull', name, {
      state: 'waiting',
      mode: 'name',
      query: 'n',
      budget: 3,
    });
    expect(newest).toMatchObject({ order: 'newest', next: 3, stoppedBy: 'jobs' });
    expect(newest.matches.map((row) => row.id)).toEqual([...ids].reverse().slice(0, 3));

    // Failed: a sorted set, newest first.
    const stamp = Date.now();
    for (const [i, job] of jobs.entries()) {
      await client.lrem(`bull:${name}:wait`, 0, job.id);
      await client.zadd(`bull:${name}:failed`, stamp + i, job.id);
    }
    const failed = await searchJobs(client, 'bull', name, {
      state: 'failed',
      mode: 'name',
      query: 'n',
    });
    expect(failed.matches.map((row) => row.id)).toEqual([...ids].reverse());
    expect(failed).toMatchObject({ next: null, stoppedBy: null, scanned: 7 });
    const failedOldest = await searchJobs(client, 'bull', name, {
      state: 'failed',
      mode: 'name',
      query: 'n',
      order: 'oldest',
    });
    expect(failedOldest.matches.map((row) => row.id)).toEqual(ids);
  });
});
