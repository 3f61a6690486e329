/**
 * Error groups through the console against `next start` and a real Redis, with jobs failed by a
 * real OxMQ Worker: GET error-groups answers one group per error to a viewer, bounded calls
 * continue at their cursor, a viewer cannot retry a group, and an operator's "Retry group" (a
 * bulk operation filtered by the group's signature) moves only that group's jobs and is audited;
 * removing a group needs an admin and the queue's name typed.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type {
  ApiError,
  AuditListResponse,
  BulkOperationResponse,
  ErrorGroupsResponse,
} from '../../lib/api-types';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { ADMIN, OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('error-groups');
const base = `/api/queues/bull/${name}`;
const PER_ERROR = 100;
const ERRORS = {
  user: (n: number) => `User ${5000 + n} not found`,
  timeout: (n: number) => `Timeout after ${200 + n}ms calling 10.1.${n}.9:8080`,
  card: (n: number) => `Card ending ${1000 + n} declined by "bank-${n}"`,
} as const;
type Kind = keyof typeof ERRORS;
const TIMEOUT_SIGNATURE = 'Timeout after <n>ms calling <ip>:<port>';
const USER = 'User <n> not found';
let queue: Queue;
let admin: ConsoleClient;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.addBulk(
    (Object.keys(ERRORS) as Kind[]).flatMap((kind) =>
      Array.from({ length: PER_ERROR }, (_, n) => ({ name: kind, data: { kind, n } })),
    ),
  );
  const worker = new Worker(
    name,
    async (job) => {
      const { kind, n } = job.data as { kind: Kind; n: number };
      throw new Error(ERRORS[kind](n));
    },
    { connection: redisOptions(), concurrency: 25 },
  );
  await waitFor(async () => (await queue.getJobCounts('failed')).failed === 3 * PER_ERROR, 30_000);
  // No worker from here on: retried jobs stay waiting.
  await worker.close();
  [admin, operator, viewer] = await Promise.all([
    signIn(baseUrl, ADMIN),
    signIn(baseUrl, OPERATOR),
    signIn(baseUrl, VIEWER),
  ]);
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
});

async function json<T>(response: Response, status = 200): Promise<T> {
  const body = (await response.json()) as T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

describe('error groups', () => {
  it('answers a viewer one group of 100 per error, with a sample job', async () => {
    const scan = await json<ErrorGroupsResponse>(await viewer.get(`${base}/error-groups`));
    expect(scan).toMatchObject({ total: 300, to: 300, next: null, other: 0 });
    expect(scan.groups.map((group) => [group.signature, group.count]).sort()).toEqual([
      ['Card ending <n> declined by "<str>"', PER_ERROR],
      [TIMEOUT_SIGNATURE, PER_ERROR],
      ['User <n> not found', PER_ERROR],
    ]);
    const timeout = scan.groups.find((group) => group.signature === TIMEOUT_SIGNATURE)!;
    expect(timeout.firstSeen).toBeLessThanOrEqual(timeout.lastSeen);
    expect((await queue.getJob(timeout.sample.id))?.failedReason).toBe(timeout.sample.reason);
  });

  it('continues a bounded scan at its cursor, and refuses a bad cursor or budget', async () => {
    const first = await json<ErrorGroupsResponse>(
      await viewer.get(`${base}/error-groups?budget=120`),
    );
    expect(first).toMatchObject({ from: 0, to: 120, total: 300 });
    expect(first.next).not.toBeNull();
    const rest = await json<ErrorGroupsResponse>(
      await viewer.get(`${base}/error-groups?cursor=${encodeURIComponent(first.next!)}`),
    );
    expect(rest).toMatchObject({ from: 120, to: 300, next: null });
    const counted = [...first.groups, ...rest.groups].reduce((sum, group) => sum + group.count, 0);
    expect(counted).toBe(300);
    for (const bad of ['cursor=nope', 'budget=0', 'budget=5001']) {
      const error = await json<ApiError>(await viewer.get(`${base}/error-groups?${bad}`), 422);
      expect(error.code).toBe('INVALID_INPUT');
    }
  });

  it('lets a viewer not retry a group', async () => {
    const error = await json<ApiError>(
      await viewer.post(`${base}/bulk`, {
        action: 'retry',
        state: 'failed',
        filter: { mode: 'error', query: TIMEOUT_SIGNATURE },
      }),
      403,
    );
    expect(error.code).toBe('FORBIDDEN');
    expect((await queue.getJobCounts('waiting')).waiting).toBe(0);
  });

  it('retries exactly one group for an operator, audited', async () => {
    let op = await json<BulkOperationResponse>(
      await operator.post(`${base}/bulk`, {
        action: 'retry',
        state: 'failed',
        filter: { mode: 'error', query: TIMEOUT_SIGNATURE },
      }),
    );
    expect(op.filter).toEqual({ mode: 'error', query: TIMEOUT_SIGNATURE });
    while (op.status === 'running') {
      op = await json<BulkOperationResponse>(
        await operator.post(`${base}/bulk/${op.id}/step`, { chunk: 80 }),
      );
    }
    expect(op).toMatchObject({ status: 'done', done: PER_ERROR, examined: 300 });
    const waiting = await queue.getJobs(['waiting'], 0, -1);
    expect(waiting).toHaveLength(PER_ERROR);
    expect(waiting.every((job) => job.name === 'timeout')).toBe(true);
    expect(await queue.getJobCounts('failed')).toEqual({ failed: 2 * PER_ERROR });

    const scan = await json<ErrorGroupsResponse>(await viewer.get(`${base}/error-groups`));
    expect(scan.groups.map((group) => group.signature)).not.toContain(TIMEOUT_SIGNATURE);

    const audit = await json<AuditListResponse>(
      await operator.get('/api/audit?kind=accepted&pageSize=200'),
    );
    const created = audit.entries.find(
      (entry) => entry.action === 'jobs.bulk.create' && entry.target === `bull:${name}`,
    );
    expect(created).toMatchObject({
      actor: OPERATOR.username,
      outcome: 'ok',
      params: { body: { filter: { mode: 'error', query: TIMEOUT_SIGNATURE } } },
    });
  });

  it('refuses a malformed group filter', async () => {
    for (const filter of [
      { mode: 'error', query: '' },
      { mode: 'error', query: 'x'.repeat(241) },
      { mode: 'error', query: 'x', path: 'a' },
    ]) {
      const error = await json<ApiError>(
        await operator.post(`${base}/bulk`, { action: 'retry', state: 'failed', filter }),
        422,
      );
      expect(error.code).toBe('INVALID_INPUT');
    }
  });

  it('removes one group only for an admin who typed the queue name', async () => {
    const remove = { action: 'remove', state: 'failed', filter: { mode: 'error', query: USER } };
    const refused = await json<ApiError>(
      await operator.post(`${base}/bulk`, { ...remove, confirm: name }),
      403,
    );
    expect(refused.code).toBe('FORBIDDEN');
    await json<ApiError>(await admin.post(`${base}/bulk`, remove), 422);
    let op = await json<BulkOperationResponse>(
      await admin.post(`${base}/bulk`, { ...remove, confirm: name }),
    );
    while (op.status === 'running') {
      op = await json<BulkOperationResponse>(await admin.post(`${base}/bulk/${op.id}/step`, {}));
    }
    expect(op).toMatchObject({ status: 'done', done: PER_ERROR });
    const failed = await queue.getJobs(['failed'], 0, -1);
    expect(failed).toHaveLength(PER_ERROR);
    expect(failed.every((job) => job.name === 'card')).toBe(true);
  });
});
