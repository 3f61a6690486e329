/**
 * The HTTP contract (lib/http/, the console's own zod schemas) against real answers: `next start`
 * on a real Redis with a real OxMQ Worker, flow, scheduler, groups and bulk operation, each JSON
 * route called and its body parsed with its schema. The schemas are strict, so a field the
 * engine adds, drops or retypes under a route fails here rather than reaching the pages unseen.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { z } from 'zod';
import { FlowProducer, Queue, Worker } from 'oxmq';
import { auditListResponseSchema } from '../../lib/http/audit';
import { bulkOperationSchema, selectionResultSchema } from '../../lib/http/bulk';
import { errorGroupsResponseSchema } from '../../lib/http/error-groups';
import { flowChildrenResponseSchema, flowGraphResponseSchema } from '../../lib/http/flow';
import { groupInfoSchema, groupJobsSchema, groupPageSchema } from '../../lib/http/groups';
import {
  integrityCheckResponseSchema,
  integrityRepairResponseSchema,
} from '../../lib/http/integrity';
import {
  jobActionResponseSchema,
  jobDetailResponseSchema,
  jobLogsResponseSchema,
  jobTimelineResponseSchema,
} from '../../lib/http/job-detail';
import {
  jobFindResponseSchema,
  jobListResponseSchema,
  jobSearchResponseSchema,
} from '../../lib/http/job-row';
import {
  historyAcrossResponseSchema,
  historySparklinesResponseSchema,
  queueHistoryResponseSchema,
} from '../../lib/http/history';
import { liveEventsMessageSchema } from '../../lib/http/live-events';
import { searchStreamLineSchema } from '../../lib/http/search-stream';
import { exportLineSchema } from '../../lib/http/export';
import {
  metricsListResponseSchema,
  queueMetricsResponseSchema,
  totalThroughputResponseSchema,
} from '../../lib/http/metrics';
import {
  queueCleanResponseSchema,
  queueDiagnosisSchema,
  queueLimitsSchema,
  queueOkResponseSchema,
} from '../../lib/http/queue-ops';
import {
  queueActionResponseSchema,
  queueListResponseSchema,
  queueOverviewSchema,
} from '../../lib/http/queue-overview';
import { notificationsStatusSchema, queueNotificationsSchema } from '../../lib/http/notifications';
import { schedulerActionResponseSchema, schedulerPageSchema } from '../../lib/http/schedulers';
import { healthResponseSchema } from '../../lib/http/session';
import {
  jobCancelResponseSchema,
  queueHeartbeatsResponseSchema,
  workerCommandResponseSchema,
  workersResponseSchema,
} from '../../lib/http/workers';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { anonymousClient, signIn, type ConsoleClient } from './console-client';
import { openSse } from './sse';
import { ADMIN } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('contract');
const groupsName = uniqueQueueName('contract-groups');
const base = `/api/queues/bull/${name}`;
const queue = new Queue(name, { connection: redisOptions() });
const groupsQueue = new Queue(groupsName, { connection: redisOptions() });
const flows = new FlowProducer({ connection: redisOptions() });
let worker: Worker;
let client: ConsoleClient;
let failedId: string;
let completedId: string;
let parentId: string;

beforeAll(async () => {
  worker = new Worker(
    name,
    async (job) => {
      await job.log('a log line');
      await job.updateProgress({ step: 1 });
      if (job.name === 'bad') throw new Error('contract failure');
      return { ok: true };
    },
    { connection: redisOptions(), name: 'contract-worker', metrics: { maxDataPoints: 60 } },
  );
  const tree = await flows.add({
    name: 'parent',
    queueName: name,
    data: {},
    children: [{ name: 'bad', queueName: name, data: { n: 1 }, opts: { attempts: 1 } }],
  });
  parentId = tree.job.id!;
  failedId = tree.children![0]!.job.id!;
  completedId = (await queue.add('good', { n: 2 })).id!;
  await queue.add('later', {}, { delay: 3_600_000 });
  await queue.upsertJobScheduler('hourly', { every: 3_600_000 }, { name: 'tick' });
  await groupsQueue.addBulk(
    ['t1', 't2'].map((id) => ({ name: 'j', data: {}, opts: { group: { id } } })),
  );
  await waitFor(
    async () =>
      (await queue.getJobState(failedId)) === 'failed' &&
      (await queue.getJobState(completedId)) === 'completed',
  );
  client = await signIn(baseUrl, ADMIN);
});

afterAll(async () => {
  await worker.close();
  await flows.close();
  await queue.close();
  await groupsQueue.close();
});

/** The body of a 200 answer, parsed with its schema; a failed parse names the route and fields. */
async function answer<S extends z.ZodType>(
  response: Promise<Response>,
  schema: S,
  route: string,
): Promise<z.output<S>> {
  const res = await response;
  const text = await res.text();
  expect(res.status, `${route}: ${text}`).toBe(200);
  const parsed = schema.safeParse(JSON.parse(text));
  expect(parsed.error?.issues ?? [], `${route} answers its contract`).toEqual([]);
  return parsed.data as z.output<S>;
}

/** A 200 NDJSON answer, every line parsed with its schema. */
async function lines<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>[]> {
  const res = await client.get(path);
  const text = await res.text();
  expect(res.status, `GET ${path}: ${text}`).toBe(200);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const parsed = schema.safeParse(JSON.parse(line));
      expect(parsed.error?.issues ?? [], `${path} line ${line}`).toEqual([]);
      return parsed.data as z.output<S>;
    });
}

const get = <S extends z.ZodType>(path: string, schema: S) =>
  answer(client.get(path), schema, `GET ${path}`);
const post = <S extends z.ZodType>(path: string, body: unknown, schema: S) =>
  answer(client.post(path, body), schema, `POST ${path}`);

describe('response contract', () => {
  it('health, queue list and one queue', async () => {
    await answer(anonymousClient(baseUrl).get('/api/health'), healthResponseSchema, 'health');
    const list = await get('/api/queues?pageSize=100', queueListResponseSchema);
    expect(list.queues.length).toBeGreaterThan(0);
    const one = await get(base, queueOverviewSchema);
    expect(one.counts.failed).toBe(1);
    await get(`${base}/diagnose`, queueDiagnosisSchema);
    await get(`${base}/limits`, queueLimitsSchema);
  });

  it('the integrity check and a repair step', async () => {
    const check = await get(`${base}/integrity?budget=2`, integrityCheckResponseSchema);
    expect(check.report.cursor).toBeDefined();
    await post(`${base}/integrity`, { budget: 2 }, integrityRepairResponseSchema);
  });

  it('job lists, search and the quick-jump find', async () => {
    const failed = await get(`${base}/jobs?state=failed`, jobListResponseSchema);
    expect(failed.jobs.map((job) => job.id)).toEqual([failedId]);
    await get(`${base}/jobs?state=delayed`, jobListResponseSchema);
    await get(`${base}/search?mode=id&q=${completedId}`, jobSearchResponseSchema);
    const byName = await get(
      `${base}/search?mode=name&q=bad&state=failed`,
      jobSearchResponseSchema,
    );
    expect(byName.matches).toHaveLength(1);
    const found = await get(`/api/jobs/find?id=${completedId}`, jobFindResponseSchema);
    expect(found.locations.some((location) => location.queue === name)).toBe(true);
  });

  it('the streamed search, line by line', async () => {
    const streamed = await lines(
      `${base}/search/stream?mode=name&q=bad&state=failed`,
      searchStreamLineSchema,
    );
    expect(streamed.map((line) => line.type)).toContain('matches');
    expect(streamed.at(-1)).toMatchObject({ type: 'end', found: 1, stoppedBy: null });
  });

  it('an export, line by line, down to the cut line', async () => {
    // Two delayed jobs at least ('later' and this one), so that a limit of one cuts the export.
    await queue.add('later-too', {}, { delay: 3_600_000 });
    const exported = await lines(
      `${base}/export?state=delayed&format=jsonl&limit=1`,
      exportLineSchema,
    );
    expect(exported[0]).toMatchObject({ state: 'delayed' });
    expect(exported.at(-1)).toEqual({ truncated: 'rows', rows: 1 });
  });

  it('one job: detail, logs, timeline; and its flow', async () => {
    for (const id of [failedId, completedId, parentId]) {
      await get(`${base}/jobs/${id}`, jobDetailResponseSchema);
      await get(`${base}/jobs/${id}/logs`, jobLogsResponseSchema);
      await get(`${base}/jobs/${id}/timeline`, jobTimelineResponseSchema);
    }
    const flow = await get(`/api/flows/bull/${name}/${failedId}`, flowGraphResponseSchema);
    expect(flow.graph.nodes.length).toBe(2);
    const parentKey = encodeURIComponent(`bull:${name}:${parentId}`);
    await get(`/api/flows/children?parentKey=${parentKey}&level=0`, flowChildrenResponseSchema);
  });

  it('error groups, metrics, workers', async () => {
    const groups = await get(`${base}/error-groups`, errorGroupsResponseSchema);
    expect(groups.groups.length).toBe(1);
    await get(`${base}/metrics`, queueMetricsResponseSchema);
    await get('/api/metrics?pageSize=50', metricsListResponseSchema);
    await get('/api/metrics/total', totalThroughputResponseSchema);
    const history = await waitFor(async () => {
      const body = await get(`${base}/history`, queueHistoryResponseSchema);
      return body.total.completed > 0 ? body : undefined;
    });
    expect(history!.names.length).toBeGreaterThan(0);
    await get(`${base}/history?range=7d&name=good`, queueHistoryResponseSchema);
    await get('/api/metrics/history?range=24h', historyAcrossResponseSchema);
    await get(
      `/api/metrics/sparklines?queues=${encodeURIComponent(`bull/${name}`)}`,
      historySparklinesResponseSchema,
    );
    await get('/api/workers?pageSize=200', workersResponseSchema);
    const heartbeats = await waitFor(async () => {
      const body = await get(`${base}/workers`, queueHeartbeatsResponseSchema);
      return body.workers.length > 0 ? body : undefined;
    });
    const workerId = heartbeats!.workers[0]!.id;
    await post(`${base}/workers/${workerId}/quiet`, {}, workerCommandResponseSchema);
    await post(`${base}/workers/${workerId}/resume`, {}, workerCommandResponseSchema);
  });

  it('schedulers and groups', async () => {
    const page = await get(`${base}/schedulers`, schedulerPageSchema);
    expect(page.schedulers.map((row) => row.id)).toEqual(['hourly']);
    await post(`${base}/schedulers/hourly/pause`, {}, schedulerActionResponseSchema);
    await post(`${base}/schedulers/hourly/resume`, {}, schedulerActionResponseSchema);
    const groups = await get(`/api/queues/bull/${groupsName}/groups`, groupPageSchema);
    expect(groups.groups.map((group) => group.id)).toEqual(['t1', 't2']);
    const jobs = await get(`/api/queues/bull/${groupsName}/groups/t1/jobs`, groupJobsSchema);
    expect(jobs.groupId).toBe('t1');
    await post(`/api/queues/bull/${groupsName}/groups/t1/pause`, {}, groupInfoSchema);
  });

  it('job actions, selection, bulk operations', async () => {
    await post(`${base}/jobs/${completedId}/cancel`, {}, jobCancelResponseSchema);
    const copy = await post(`${base}/jobs/${completedId}/duplicate`, {}, jobActionResponseSchema);
    expect(copy.id).toBeTruthy();
    await post(
      `${base}/selection`,
      { action: 'retry', ids: ['no-such-job'] },
      selectionResultSchema,
    );
    const op = await post(
      `${base}/bulk`,
      { action: 'retry', state: 'failed', filter: { mode: 'error', query: 'x' } },
      bulkOperationSchema,
    );
    await get(`${base}/bulk/${op.id}`, bulkOperationSchema);
    await post(`${base}/bulk/${op.id}/step`, {}, bulkOperationSchema);
    await post(`${base}/bulk/${op.id}/cancel`, {}, bulkOperationSchema);
  });

  it('queue operations and the audit log they wrote', async () => {
    await post(`${base}/pause`, {}, queueActionResponseSchema);
    await post(`${base}/resume`, {}, queueActionResponseSchema);
    await post(
      `${base}/clean`,
      { confirm: name, state: 'completed', graceMs: 3_600_000 },
      queueCleanResponseSchema,
    );
    const audit = await get('/api/audit?kind=accepted', auditListResponseSchema);
    expect(audit.entries.some((entry) => entry.target === `bull:${name}`)).toBe(true);
    await get('/api/audit?kind=refused', auditListResponseSchema);
    // Drained last: it empties the queue the other cases read.
    await post(`${base}/drain`, { confirm: name, delayed: true }, queueOkResponseSchema);
  });

  it("notifications: the status, a queue's mute, mute and unmute", async () => {
    const status = await get('/api/notifications', notificationsStatusSchema);
    // The shared console has no webhook: notifications are off, mutes still work.
    expect(status.enabled).toBe(false);
    const muted = await post(`${base}/notifications/mute`, {}, queueNotificationsSchema);
    expect(muted.muted?.by).toBe(ADMIN.username);
    const listed = await get('/api/notifications', notificationsStatusSchema);
    expect(listed.muted.some((mute) => mute.queue === name)).toBe(true);
    await get(`${base}/notifications`, queueNotificationsSchema);
    const unmuted = await post(`${base}/notifications/unmute`, {}, queueNotificationsSchema);
    expect(unmuted.muted).toBeNull();
  });

  it('live events', async () => {
    const stream = await openSse(
      client,
      `/api/events?queues=${encodeURIComponent(`bull/${name}`)}`,
    );
    try {
      await waitFor(async () => stream.messages.some((message) => message.event === 'ready'));
      await queue.add('live', {});
      const message = await stream.next((candidate) => candidate.event === 'events');
      const parsed = liveEventsMessageSchema.safeParse(JSON.parse(message.data));
      expect(parsed.error?.issues ?? []).toEqual([]);
    } finally {
      stream.close();
    }
  });
});
