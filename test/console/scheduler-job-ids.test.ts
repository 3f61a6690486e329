/**
 * Jobs made by job schedulers (`repeat:<scheduler id>:<millis>`, bullmq's ids) through every job
 * route of the real console: read, timeline, logs, an action, a selection, search by id and the
 * quick-jump box. Ids that name a key of the queue which is no job (`meta`, `events`, a
 * scheduler's record, `1:lock`) are refused with a clear 422 and the key is left alone.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, type Job } from 'oxmq';
import type {
  ApiError,
  JobActionResponse,
  JobDetailResponse,
  JobFindResponse,
  JobLogsResponse,
  JobSearchResponse,
  JobTimelineResponse,
  SelectionResult,
} from '../../lib/api-types';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { ADMIN, OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const name = uniqueQueueName('sched-ids');
const base = `/api/queues/bull/${name}`;
const jobPath = (id: string) => `${base}/jobs/${encodeURIComponent(id)}`;
let queue: Queue;
let admin: ConsoleClient;
let operator: ConsoleClient;
let viewer: ConsoleClient;

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

/** The pending job of a new scheduler on a yearly pattern: delayed, so it can be promoted. */
async function schedulerJob(schedulerId: string): Promise<Job> {
  await queue.upsertJobScheduler(schedulerId, { pattern: '0 0 1 1 *' }, { name: 'report' });
  const job = (await queue.getJobs(['delayed'])).find((candidate) =>
    candidate.id.startsWith(`repeat:${schedulerId}:`),
  );
  expect(job?.id).toMatch(new RegExp(`^repeat:${schedulerId}:\\d+$`));
  return job!;
}

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.add('plain', {});
  [admin, operator, viewer] = await Promise.all([
    signIn(baseUrl, ADMIN),
    signIn(baseUrl, OPERATOR),
    signIn(baseUrl, VIEWER),
  ]);
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
});

describe("a job scheduler's jobs in the console", () => {
  it('opens one: its detail, timeline and logs', async () => {
    const job = await schedulerJob('nightly');
    const detail = await json<JobDetailResponse>(await viewer.get(jobPath(job.id)));
    expect(detail).toMatchObject({ id: job.id, name: 'report', state: 'delayed' });
    const timeline = await json<JobTimelineResponse>(
      await viewer.get(`${jobPath(job.id)}/timeline`),
    );
    expect(timeline.entries.map((entry) => entry.event)).toContain('added');
    await json<JobLogsResponse>(await viewer.get(`${jobPath(job.id)}/logs`));
  });

  it('acts on one: promote, duplicate', async () => {
    const job = await schedulerJob('promoted');
    await json<JobActionResponse>(await operator.post(`${jobPath(job.id)}/promote`, {}));
    expect(await queue.getJobState(job.id)).toBe('waiting');
    const copy = await json<JobActionResponse>(
      await operator.post(`${jobPath(job.id)}/duplicate`, {}),
    );
    expect(copy.id).toBeTruthy();
    expect((await queue.getJob(copy.id!))?.name).toBe('report');
  });

  it('finds one by id and acts on it in a selection', async () => {
    const job = await schedulerJob('selected');
    const search = await json<JobSearchResponse>(
      await viewer.get(`${base}/search?mode=id&q=${encodeURIComponent(job.id)}`),
    );
    expect(search.matches.map((match) => match.id)).toEqual([job.id]);
    const found = await json<JobFindResponse>(
      await viewer.get(`/api/jobs/find?id=${encodeURIComponent(job.id)}`),
    );
    expect(found.locations).toContainEqual(expect.objectContaining({ queue: name, id: job.id }));
    const selection = await json<SelectionResult>(
      await operator.post(`${base}/selection`, { action: 'promote', ids: [job.id] }),
    );
    expect(selection).toEqual({ action: 'promote', done: [job.id], skipped: [] });
  });
});

describe('ids that name a key of the queue which is no job', () => {
  it('are refused with 422 by every job route, and the key stays as it was', async () => {
    const plain = await queue.add('plain', {});
    await schedulerJob('kept');
    await redis.set(`bull:${name}:${plain.id}:lock`, 'token');
    const keys = ['meta', 'events', 'repeat:kept', `${plain.id}:lock`];
    const before = await Promise.all(keys.map((key) => redis.type(`bull:${name}:${key}`)));
    expect(before).toEqual(['hash', 'stream', 'hash', 'string']);

    for (const id of ['meta', 'events', 'repeat:kept', `${plain.id}:lock`]) {
      for (const response of [
        await viewer.get(jobPath(id)),
        await viewer.get(`${jobPath(id)}/timeline`),
        await viewer.get(`${jobPath(id)}/logs`),
        await admin.post(`${jobPath(id)}/remove`, {}),
        await operator.post(`${jobPath(id)}/duplicate`, {}),
      ]) {
        const refused = await json<ApiError>(response, 422);
        expect(refused.code, `${id} ${response.url}`).toBe('INVALID_INPUT');
        expect(refused.message + JSON.stringify(refused.issues ?? [])).toMatch(
          /not a job of queue|a job id contains no ":" or exactly two/,
        );
      }
    }
    const metaRefusal = await json<ApiError>(await viewer.get(jobPath('meta')), 422);
    expect(metaRefusal.message).toBe(
      `meta is not a job of queue ${name}: its key holds other data (a job's lock, logs or children, a key of the queue, a scheduler)`,
    );
    const selection = await json<SelectionResult>(
      await admin.post(`${base}/selection`, { action: 'remove', ids: ['meta', 'events'] }),
    );
    expect(selection.skipped).toEqual(['meta', 'events']);
    const after = await Promise.all(keys.map((key) => redis.type(`bull:${name}:${key}`)));
    expect(after).toEqual(before);
  });

  it('still answers 404 for an id of a job that does not exist', async () => {
    const missing = await json<ApiError>(await viewer.get(jobPath('repeat:gone:1')), 404);
    expect(missing.code).toBe('NOT_FOUND');
  });
});
