/**
 * Job schedulers through the console's API (…/schedulers): a viewer lists them with their next
 * run, an operator runs one now (an ordinary job), pauses and resumes it, edits its schedule
 * (a bad cron pattern is the engine's message as INVALID_INPUT); only an admin removes it; a viewer's
 * action is 403; actions are audited; a read-only console refuses them.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import type {
  ApiError,
  AuditListResponse,
  SchedulerActionResponse,
  SchedulerPage,
} from '../../lib/api-types';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { ADMIN, consoleEnv, OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('sched-api');
const base = `/api/queues/bull/${name}`;
const NEW_YEAR = '0 0 1 1 *';
let queue: Queue;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.upsertJobScheduler(
    'nightly',
    { pattern: NEW_YEAR, limit: 10 },
    { name: 'report', data: { team: 'ops' } },
  );
  await queue.upsertJobScheduler('hourly', { every: 3_600_000 }, { name: 'tick' });
  [operator, viewer] = await Promise.all([signIn(baseUrl, OPERATOR), signIn(baseUrl, VIEWER)]);
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
});

async function list(client: ConsoleClient = viewer, query = ''): Promise<SchedulerPage> {
  const response = await client.get(`${base}/schedulers${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as SchedulerPage;
}

async function row(id: string) {
  return (await list()).schedulers.find((scheduler) => scheduler.id === id)!;
}

async function auditedBy(actor: string, action: string) {
  const response = await operator.get('/api/audit?kind=accepted&pageSize=100');
  const page = (await response.json()) as AuditListResponse;
  return page.entries.find((entry) => entry.actor === actor && entry.action === action);
}

describe('schedulers list', () => {
  it('shows a viewer each scheduler with its schedule, next run and pending iteration', async () => {
    const page = await list();
    expect(page.total).toBe(2);
    const nightly = page.schedulers.find((scheduler) => scheduler.id === 'nightly')!;
    const stored = (await queue.getJobScheduler('nightly'))!;
    expect(nightly).toMatchObject({
      name: 'report',
      pattern: NEW_YEAR,
      every: null,
      limit: 10,
      paused: false,
      next: stored.next,
      pending: { jobId: `repeat:nightly:${stored.next}`, state: 'delayed' },
    });
    expect((await row('hourly')).every).toBe(3_600_000);
  });

  it('pages: one scheduler per page', async () => {
    const first = await list(viewer, '?page=1&pageSize=1');
    const second = await list(viewer, '?page=2&pageSize=1');
    expect(first.schedulers).toHaveLength(1);
    expect(second.schedulers).toHaveLength(1);
    expect(first.schedulers[0]!.id).not.toBe(second.schedulers[0]!.id);
  });
});

describe('scheduler actions', () => {
  it('refuses a viewer with 403 and changes nothing', async () => {
    // The every scheduler's first iteration is waiting already; nothing may join it.
    const waitingBefore = await queue.getWaitingCount();
    for (const verb of ['run', 'pause', 'remove']) {
      const response = await viewer.post(`${base}/schedulers/nightly/${verb}`, {});
      expect(response.status).toBe(403);
      expect(((await response.json()) as ApiError).code).toBe('FORBIDDEN');
    }
    expect(await queue.getWaitingCount()).toBe(waitingBefore);
    expect(await queue.getJobSchedulersCount()).toBe(2);
    expect(await queue.isJobSchedulerPaused('nightly')).toBe(false);
  });

  it('runs one now: an ordinary waiting job from the template, audited', async () => {
    const response = await operator.post(`${base}/schedulers/nightly/run`, {});
    expect(response.status).toBe(200);
    const { jobId } = (await response.json()) as SchedulerActionResponse;
    const job = (await queue.getJob(jobId!))!;
    expect(job).toMatchObject({ name: 'report', data: { team: 'ops' } });
    expect(job.repeatJobKey).toBeUndefined();
    expect(await queue.getJobState(jobId!)).toBe('waiting');
    expect(await auditedBy(OPERATOR.username, 'scheduler.run')).toMatchObject({
      target: `bull:${name}:scheduler:nightly`,
      outcome: 'ok',
    });
  });

  it('pauses and resumes, the pending iteration going and coming back', async () => {
    const pendingId = (await row('nightly')).pending!.jobId;
    expect((await operator.post(`${base}/schedulers/nightly/pause`, {})).status).toBe(200);
    expect(await row('nightly')).toMatchObject({ paused: true, next: null, pending: null });
    expect(await queue.getJobState(pendingId)).toBe('unknown');

    // Resuming twice: the second finds it running.
    const resumed = await operator.post(`${base}/schedulers/nightly/resume`, {});
    expect(resumed.status).toBe(200);
    const { next } = (await resumed.json()) as SchedulerActionResponse;
    expect(`repeat:nightly:${next}`).toBe(pendingId);
    expect(await queue.getJobState(pendingId)).toBe('delayed');
    const again = await operator.post(`${base}/schedulers/nightly/resume`, {});
    expect(again.status).toBe(409);
    expect(await auditedBy(OPERATOR.username, 'scheduler.pause')).toBeDefined();
  });

  it('edits the schedule; a bad cron pattern is refused with the engine’s message', async () => {
    const bad = await operator.post(`${base}/schedulers/nightly/repeat`, { pattern: 'nope nope' });
    expect(bad.status).toBe(422);
    const error = (await bad.json()) as ApiError;
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('cron pattern "nope nope" does not parse');
    expect((await queue.getJobScheduler('nightly'))!.pattern).toBe(NEW_YEAR);

    const zero = await operator.post(`${base}/schedulers/nightly/repeat`, { every: 0 });
    expect(zero.status).toBe(422);

    const edited = await operator.post(`${base}/schedulers/nightly/repeat`, {
      pattern: '*/10 * * * *',
    });
    expect(edited.status).toBe(200);
    expect(await queue.getJobScheduler('nightly')).toMatchObject({
      pattern: '*/10 * * * *',
      name: 'report',
      limit: 10,
    });
  });

  it('lets only an admin remove a scheduler; 404 for one that does not exist', async () => {
    // Removing stops every future run: operators remove nothing (docs/security.md, Roles).
    const refused = await operator.post(`${base}/schedulers/hourly/remove`, {});
    expect(refused.status).toBe(403);
    expect(await queue.getJobScheduler('hourly')).toBeDefined();
    const admin = await signIn(baseUrl, ADMIN);
    expect((await admin.post(`${base}/schedulers/hourly/remove`, {})).status).toBe(200);
    expect(await queue.getJobScheduler('hourly')).toBeUndefined();
    expect((await admin.post(`${base}/schedulers/hourly/remove`, {})).status).toBe(404);
    expect((await operator.post(`${base}/schedulers/hourly/run`, {})).status).toBe(404);
  });
});

describe('a read-only console', () => {
  let server: ConsoleServer;

  beforeAll(async () => {
    server = await startConsole(consoleEnv(inject('redisPort'), { OXMQ_READ_ONLY: 'true' }));
  });

  afterAll(async () => {
    await server.stop();
  });

  it('lists schedulers but refuses their actions with READ_ONLY', async () => {
    const admin = await signIn(server.url, ADMIN);
    const page = await admin.get(`${base}/schedulers`);
    expect(page.status).toBe(200);
    const waitingBefore = await queue.getWaitingCount();
    const run = await admin.post(`${base}/schedulers/nightly/run`, {});
    expect(run.status).toBe(403);
    expect(((await run.json()) as ApiError).code).toBe('READ_ONLY');
    const pause = await admin.post(`${base}/schedulers/nightly/pause`, {});
    expect(pause.status).toBe(403);
    expect(await queue.getWaitingCount()).toBe(waitingBefore);
    expect(await queue.isJobSchedulerPaused('nightly')).toBe(false);
  });
});
