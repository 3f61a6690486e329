/**
 * The queue page's API over HTTP against `next start` and a real Redis, with
 * jobs failed by a real OxMQ Worker: page-size cap, bounded search with its cursor, bulk
 * operations with progress and cancel, roles on destructive actions, and 422 on bad input.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { ADMIN, OPERATOR, VIEWER } from './users';
import type {
  ApiError,
  BulkOperationResponse,
  JobListResponse,
  JobSearchResponse,
  QueueDiagnosis,
  QueueLimits,
  SelectionResult,
} from '../../lib/api-types';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const name = uniqueQueueName('qpage');
const base = `/api/queues/bull/${name}`;
const FAILED = 130;
let queue: Queue;
let admin: ConsoleClient;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.addBulk(
    Array.from({ length: FAILED }, (_, i) => ({
      name: i === 77 ? 'special' : 'charge',
      data: { n: i, customer: { email: `user${i}@example.com` } },
    })),
  );
  const worker = new Worker(
    name,
    async () => {
      throw new Error('card declined');
    },
    { connection: redisOptions(), concurrency: 20 },
  );
  await waitFor(async () => (await queue.getJobCounts('failed')).failed === FAILED, 30_000);
  // No worker from here on: retried jobs stay waiting, so the counts below are exact.
  await worker.close();
  [admin, operator, viewer] = await Promise.all([
    signIn(baseUrl, ADMIN),
    signIn(baseUrl, OPERATOR),
    signIn(baseUrl, VIEWER),
  ]);
});

afterAll(async () => {
  await queue?.close();
  await redis.quit();
});

async function json<T>(response: Response, status = 200): Promise<T> {
  const body = (await response.json()) as T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

describe('job listing', () => {
  it('lists one state, clamping the page size to 100', async () => {
    const page = await json<JobListResponse>(
      await viewer.get(`${base}/jobs?state=failed&pageSize=1000`),
    );
    expect(page.pageSize).toBe(100);
    expect(page.jobs).toHaveLength(100);
    expect(page.total).toBe(FAILED);
    expect(page.jobs[0]).toMatchObject({ attemptsMade: 1, name: expect.any(String) });
    const second = await json<JobListResponse>(
      await viewer.get(`${base}/jobs?state=failed&page=2&pageSize=100`),
    );
    expect(second.jobs).toHaveLength(FAILED - 100);
  });

  it('answers 422 for an unknown state or a page size of 0, 404 for an unknown queue', async () => {
    for (const path of [`${base}/jobs?state=bogus`, `${base}/jobs?pageSize=0`]) {
      const error = await json<ApiError>(await viewer.get(path), 422);
      expect(error.code).toBe('INVALID_INPUT');
    }
    await json<ApiError>(await viewer.get(`/api/queues/bull/no-such-queue-x/jobs`), 404);
  });
});

describe('search', () => {
  it('finds a job by id with a direct lookup', async () => {
    const [job] = await queue.getJobs(['failed'], 0, 0);
    const result = await json<JobSearchResponse>(
      await viewer.get(`${base}/search?mode=id&q=${job!.id}`),
    );
    expect(result.matches.map((m) => m.id)).toEqual([job!.id]);
    expect(result.scanned).toBe(0);
  });

  it('scans at most `budget` jobs, says how far it looked, and continues from the cursor', async () => {
    const first = await json<JobSearchResponse>(
      await viewer.get(`${base}/search?mode=text&q=user77%40&state=failed&budget=40`),
    );
    expect(first).toMatchObject({ scanned: 40, from: 0, to: 40, total: FAILED, next: 40 });
    let cursor = first.next;
    const found = [...first.matches];
    while (cursor !== null) {
      const next = await json<JobSearchResponse>(
        await viewer.get(
          `${base}/search?mode=text&q=user77%40&state=failed&budget=40&cursor=${cursor}`,
        ),
      );
      expect(next.from).toBe(cursor);
      expect(next.scanned).toBeLessThanOrEqual(40);
      found.push(...next.matches);
      cursor = next.next;
    }
    expect(found.map((m) => m.name)).toEqual(['special']);
  });

  it('matches a JSON path inside data, and by job name', async () => {
    const byPath = await json<JobSearchResponse>(
      await viewer.get(
        `${base}/search?mode=path&path=customer.email&q=user5%40example.com&state=failed`,
      ),
    );
    expect(byPath.matches).toHaveLength(1);
    expect(byPath.next).toBeNull();
    expect(byPath.to).toBe(FAILED);
    const byName = await json<JobSearchResponse>(
      await viewer.get(`${base}/search?mode=name&q=SPEC&state=failed`),
    );
    expect(byName.matches.map((m) => m.name)).toEqual(['special']);
  });

  it('answers 422 for bad search input', async () => {
    for (const query of [
      'mode=path&q=x', // no path
      'mode=text&q=', // nothing to search for
      'mode=text&q=a&budget=100000', // over the scan cap
      'mode=path&path=a;b&q=x', // not a dotted path
      'mode=regex&q=x',
    ]) {
      const error = await json<ApiError>(await viewer.get(`${base}/search?${query}`), 422);
      expect(error.code).toBe('INVALID_INPUT');
    }
  });
});

describe('bulk operations', () => {
  it('runs in chunks with progress, and a cancel stops it', async () => {
    const op = await json<BulkOperationResponse>(
      await operator.post(`${base}/bulk`, { action: 'retry', state: 'failed' }),
    );
    expect(op).toMatchObject({ status: 'running', total: FAILED, done: 0 });
    expect(await redis.hget(`oxmq:bulk:${op.id}`, 'status')).toBe('running');

    const step = await json<BulkOperationResponse>(
      await operator.post(`${base}/bulk/${op.id}/step`, { chunk: 50 }),
    );
    expect(step).toMatchObject({ status: 'running', done: 50 });
    expect((await queue.getJobCounts('failed')).failed).toBe(FAILED - 50);

    const cancelled = await json<BulkOperationResponse>(
      await operator.post(`${base}/bulk/${op.id}/cancel`, {}),
    );
    expect(cancelled.status).toBe('cancelled');
    const after = await json<BulkOperationResponse>(
      await operator.post(`${base}/bulk/${op.id}/step`, { chunk: 50 }),
    );
    expect(after).toMatchObject({ status: 'cancelled', done: 50 });
    expect((await queue.getJobCounts('failed')).failed).toBe(FAILED - 50);
    const read = await json<BulkOperationResponse>(await viewer.get(`${base}/bulk/${op.id}`));
    expect(read.status).toBe('cancelled');
  });

  it('a second operation finishes the rest and reaches 100%', async () => {
    let op = await json<BulkOperationResponse>(
      await operator.post(`${base}/bulk`, { action: 'retry', state: 'failed' }),
    );
    expect(op.total).toBe(FAILED - 50);
    let steps = 0;
    while (op.status === 'running') {
      op = await json<BulkOperationResponse>(await operator.post(`${base}/bulk/${op.id}/step`, {}));
      steps += 1;
    }
    expect(op).toMatchObject({ status: 'done', done: FAILED - 50, skipped: 0 });
    expect(steps).toBe(1); // 80 jobs, chunks of 100
    expect(await queue.getJobCounts('failed', 'waiting')).toEqual({ failed: 0, waiting: FAILED });
  });

  it('answers 422 for bad bulk input and 404 for an unknown operation', async () => {
    for (const body of [
      { action: 'explode', state: 'failed' },
      { action: 'retry', state: 'waiting' }, // retry does not apply to waiting jobs
      { action: 'retry' },
      { action: 'retry', state: 'failed', extra: 1 },
    ]) {
      const error = await json<ApiError>(await operator.post(`${base}/bulk`, body), 422);
      expect(error.code).toBe('INVALID_INPUT');
    }
    await json<ApiError>(await operator.post(`${base}/bulk/nothex/step`, {}), 422);
    await json<ApiError>(await operator.post(`${base}/bulk/${'0'.repeat(24)}/step`, {}), 404);
  });
});

describe('roles', () => {
  it('a viewer reads but cannot retry, pause or tune', async () => {
    await json<QueueLimits>(await viewer.get(`${base}/limits`));
    await json<QueueDiagnosis>(await viewer.get(`${base}/diagnose`));
    for (const [path, body] of [
      [`${base}/bulk`, { action: 'retry', state: 'failed' }],
      [`${base}/selection`, { action: 'retry', ids: ['1'] }],
      [`${base}/limits`, { globalConcurrency: 2 }],
      [`${base}/pause`, {}],
    ] as const) {
      const error = await json<ApiError>(await viewer.post(path, body), 403);
      expect(error.code).toBe('FORBIDDEN');
    }
  });

  it('an operator cannot remove, drain, clean or obliterate', async () => {
    for (const [path, body] of [
      [`${base}/bulk`, { action: 'remove', state: 'waiting' }],
      [`${base}/selection`, { action: 'remove', ids: ['1'] }],
      [`${base}/drain`, { confirm: name }],
      [`${base}/clean`, { confirm: name, state: 'completed', graceMs: 0 }],
      [`${base}/obliterate`, { confirm: name }],
    ] as const) {
      const error = await json<ApiError>(await operator.post(path, body), 403);
      expect(error.code).toBe('FORBIDDEN');
    }
    expect((await queue.getJobCounts('waiting')).waiting).toBe(FAILED);
  });

  it('an operator tunes limits; the answer carries the current values', async () => {
    const limits = await json<QueueLimits>(
      await operator.post(`${base}/limits`, {
        rateLimit: { max: 10, duration: 1000 },
        globalConcurrency: 3,
      }),
    );
    expect(limits).toMatchObject({
      rateLimit: { max: 10, duration: 1000 },
      globalConcurrency: 3,
      rateLimitTtlMs: 0,
    });
    const bad = await json<ApiError>(
      await operator.post(`${base}/limits`, { globalConcurrency: 0 }),
      422,
    );
    expect(bad.code).toBe('INVALID_INPUT');
    await json<ApiError>(await operator.post(`${base}/limits`, {}), 422);
    const removed = await json<QueueLimits>(
      await operator.post(`${base}/limits`, { rateLimit: null, globalConcurrency: null }),
    );
    expect(removed).toMatchObject({ rateLimit: null, globalConcurrency: null });
  });

  it('the diagnosis names the reasons a queue does not move', async () => {
    await operator.post(`${base}/pause`, {});
    const paused = await json<QueueDiagnosis>(await viewer.get(`${base}/diagnose`));
    expect(paused.healthy).toBe(false);
    expect(paused.reasons.map((r) => r.code)).toEqual(['paused', 'no-workers']);
    await operator.post(`${base}/resume`, {});
  });

  it('an operator retries and promotes a selection; an admin removes one', async () => {
    const delayed = await queue.add('later', { x: 1 }, { delay: 600_000 });
    const promoted = await json<SelectionResult>(
      await operator.post(`${base}/selection`, { action: 'promote', ids: [delayed.id, 'nope'] }),
    );
    expect(promoted).toEqual({ action: 'promote', done: [delayed.id], skipped: ['nope'] });
    const removed = await json<SelectionResult>(
      await admin.post(`${base}/selection`, { action: 'remove', ids: [delayed.id] }),
    );
    expect(removed.done).toEqual([delayed.id]);
    await json<ApiError>(
      await operator.post(`${base}/selection`, { action: 'retry', ids: [] }),
      422,
    );
  });

  it('refuses ids with ":", which would name another key of a job, and deletes nothing', async () => {
    const parent = await queue.add('parent', {});
    const record = `bull:${name}:${parent.id}:processed`;
    await redis.hset(record, `bull:${name}:child`, '"value"');
    for (const id of [`${parent.id}:processed`, `${parent.id}:lock`]) {
      const refused = await json<ApiError>(
        await admin.post(`${base}/selection`, { action: 'remove', ids: [id] }),
        422,
      );
      expect(refused.code).toBe('INVALID_INPUT');
    }
    const search = await viewer.get(
      `${base}/search?mode=id&q=${encodeURIComponent(`${parent.id}:processed`)}`,
    );
    expect(((await json<ApiError>(search, 422)) as ApiError).code).toBe('INVALID_INPUT');
    expect(await redis.exists(record)).toBe(1);
    await redis.del(record);
    await parent.remove();
  });

  it('an admin drains, cleans and obliterates only with the typed queue name', async () => {
    const refused = await json<ApiError>(
      await admin.post(`${base}/drain`, { confirm: 'wrong' }),
      422,
    );
    expect(refused.code).toBe('INVALID_INPUT');
    expect((await queue.getJobCounts('waiting')).waiting).toBe(FAILED);
    await json(await admin.post(`${base}/drain`, { confirm: name }));
    expect((await queue.getJobCounts('waiting')).waiting).toBe(0);
    await json<ApiError>(
      await admin.post(`${base}/clean`, { confirm: name, state: 'everything', graceMs: 0 }),
      422,
    );
    await json(
      await admin.post(`${base}/clean`, { confirm: name, state: 'completed', graceMs: 0 }),
    );
    await json(await admin.post(`${base}/obliterate`, { confirm: name, force: true }));
    expect(await redis.exists(`bull:${name}:meta`)).toBe(0);
    await json<ApiError>(await admin.get(`${base}/jobs`), 404);
  });
});

describe('bulk operations over the jobs matching a search', () => {
  const tenantQueueName = uniqueQueueName('qpage-tenant');
  const tenantBase = `/api/queues/bull/${tenantQueueName}`;
  const acme = { mode: 'path', path: 'tenant', query: 'acme' } as const;
  let tenants: Queue;

  beforeAll(async () => {
    tenants = new Queue(tenantQueueName, { connection: redisOptions() });
    // 30 failed jobs, every third one (10) for tenant acme, interleaved across the list.
    await tenants.addBulk(
      Array.from({ length: 30 }, (_, i) => ({
        name: 'sync',
        data: { n: i, tenant: i % 3 === 0 ? 'acme' : 'globex' },
      })),
    );
    const worker = new Worker(
      tenantQueueName,
      async () => {
        throw new Error('upstream down');
      },
      { connection: redisOptions(), concurrency: 10 },
    );
    await waitFor(async () => (await tenants.getJobCounts('failed')).failed === 30, 30_000);
    await worker.close();
  });

  afterAll(async () => {
    await tenants?.close();
  });

  it('retries exactly the 10 matching jobs across several small chunks, with progress', async () => {
    let op = await json<BulkOperationResponse>(
      await operator.post(`${tenantBase}/bulk`, { action: 'retry', state: 'failed', filter: acme }),
    );
    expect(op).toMatchObject({ status: 'running', total: 30, examined: 0, done: 0, filter: acme });
    const seen: number[] = [];
    while (op.status === 'running') {
      op = await json<BulkOperationResponse>(
        await operator.post(`${tenantBase}/bulk/${op.id}/step`, { chunk: 7 }),
      );
      seen.push(op.examined);
      // The cursor lives in the bulk hash, past the jobs that stayed in the state.
      expect(Number(await redis.hget(`oxmq:bulk:${op.id}`, 'cursor'))).toBe(op.examined - op.done);
    }
    expect(seen).toEqual([7, 14, 21, 28, 30]);
    expect(op).toMatchObject({ status: 'done', examined: 30, done: 10, skipped: 0 });
    const waiting = await tenants.getJobs(['waiting'], 0, -1);
    expect(waiting).toHaveLength(10);
    expect(waiting.every((job) => (job.data as { tenant: string }).tenant === 'acme')).toBe(true);
    const failed = await tenants.getJobs(['failed'], 0, -1);
    expect(failed).toHaveLength(20);
    expect(failed.every((job) => (job.data as { tenant: string }).tenant === 'globex')).toBe(true);
  });

  it('a cancel between chunks stops a filtered run', async () => {
    const byName = { mode: 'name', query: 'sync' } as const;
    let op = await json<BulkOperationResponse>(
      await operator.post(`${tenantBase}/bulk`, {
        action: 'retry',
        state: 'failed',
        filter: byName,
      }),
    );
    op = await json<BulkOperationResponse>(
      await operator.post(`${tenantBase}/bulk/${op.id}/step`, { chunk: 5 }),
    );
    expect(op).toMatchObject({ status: 'running', examined: 5, done: 5 });
    await json(await operator.post(`${tenantBase}/bulk/${op.id}/cancel`, {}));
    op = await json<BulkOperationResponse>(
      await operator.post(`${tenantBase}/bulk/${op.id}/step`, { chunk: 5 }),
    );
    expect(op).toMatchObject({ status: 'cancelled', examined: 5, done: 5 });
    expect((await tenants.getJobCounts('failed')).failed).toBe(15);
  });

  it('answers 422 for a malformed filter', async () => {
    for (const filter of [
      { mode: 'path', query: 'acme' }, // no path
      { mode: 'path', path: 'a..b', query: 'x' },
      { mode: 'name', query: ' ' },
      { mode: 'id', query: '1' },
      { mode: 'name', query: 'sync', extra: true },
    ]) {
      const error = await json<ApiError>(
        await operator.post(`${tenantBase}/bulk`, { action: 'retry', state: 'failed', filter }),
        422,
      );
      expect(error.code).toBe('INVALID_INPUT');
    }
  });

  it('remove-all needs the typed queue name (422 without it), then removes only matches', async () => {
    for (const confirm of [undefined, 'wrong']) {
      const error = await json<ApiError>(
        await admin.post(`${tenantBase}/bulk`, { action: 'remove', state: 'waiting', confirm }),
        422,
      );
      expect(error.code).toBe('INVALID_INPUT');
      expect(JSON.stringify(error)).toContain('confirm');
    }
    expect((await tenants.getJobCounts('waiting')).waiting).toBe(15);
    let op = await json<BulkOperationResponse>(
      await admin.post(`${tenantBase}/bulk`, {
        action: 'remove',
        state: 'waiting',
        filter: acme,
        confirm: tenantQueueName,
      }),
    );
    while (op.status === 'running') {
      op = await json<BulkOperationResponse>(
        await admin.post(`${tenantBase}/bulk/${op.id}/step`, { chunk: 4 }),
      );
    }
    expect(op).toMatchObject({ status: 'done', total: 15, examined: 15, done: 10 });
    const left = await tenants.getJobs(['waiting'], 0, -1);
    expect(left).toHaveLength(5);
    expect(left.every((job) => (job.data as { tenant: string }).tenant === 'globex')).toBe(true);
  });
});
