/**
 * The job page's and flows page's API against `next start`, a real Redis and a real OxMQ
 * Worker: redaction on the server, the bounded timeline, log tails,
 * actions by role, input validation, and the bounded flow graph with "load more".
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FlowProducer, Queue, Worker } from 'oxmq';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { startConsole, type ConsoleServer } from './console-server';
import { signIn, type ConsoleClient } from './console-client';
import { ADMIN, consoleEnv, OPERATOR, VIEWER } from './users';
import type {
  ApiError,
  FlowChildrenResponse,
  FlowGraphResponse,
  JobActionResponse,
  JobDetailResponse,
  JobLogsResponse,
  JobTimelineResponse,
} from '../../lib/api-types';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const name = uniqueQueueName('jobpage');
const queue = new Queue(name, { connection: redisOptions() });
const flows = new FlowProducer({ connection: redisOptions() });
const failedOnce = new Set<string>();
let worker: Worker;
let admin: ConsoleClient;
let operator: ConsoleClient;
let viewer: ConsoleClient;

const SECRETS = [
  'hunter2',
  'key-one',
  'key-two',
  'Bearer xyz',
  'tok-123',
  'cookie-c',
  'pw-in-reason',
];
const secretData = {
  user: 'ursula',
  password: 'hunter2',
  nested: {
    apiKey: 'key-one',
    list: [{ Authorization: 'Bearer xyz', ok: 1 }],
    deeper: { api_key: 'key-two' },
  },
  headers: { Cookie: 'cookie-c' },
};

const jobPath = (id: string) => `/api/queues/bull/${name}/jobs/${id}`;

async function errorOf(response: Response): Promise<ApiError> {
  return (await response.json()) as ApiError;
}

async function json<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  worker = new Worker(
    name,
    async (job) => {
      if (job.name === 'logger') {
        for (let i = 0; i < 60; i++) await job.log(`line ${i}`);
        return 'logged';
      }
      if (job.name === 'flaky' && !failedOnce.has(job.id)) {
        failedOnce.add(job.id);
        throw new Error('login failed: password=pw-in-reason');
      }
      return { accessToken: 'tok-123', fine: 'yes' };
    },
    { connection: redisOptions(), autorun: false },
  );
  [admin, operator, viewer] = await Promise.all([
    signIn(baseUrl, ADMIN),
    signIn(baseUrl, OPERATOR),
    signIn(baseUrl, VIEWER),
  ]);
});

afterAll(async () => {
  await worker.close();
  await flows.close();
  await queue.close();
  await redis.quit();
});

describe('job detail', () => {
  let id: string;
  beforeAll(async () => {
    id = (await queue.add('secretive', secretData, { attempts: 1 })).id;
    void worker.run();
    await waitFor(async () => (await queue.getJobState(id)) === 'completed');
  });

  it('redacts nested sensitive keys on the server: no secret is in the response body', async () => {
    const response = await viewer.get(jobPath(id));
    const text = await response.clone().text();
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const job = (await response.json()) as JobDetailResponse;
    expect(job).toMatchObject({ id, name: 'secretive', state: 'completed', queueName: name });
    expect(job.data).toEqual({
      user: 'ursula',
      password: '[redacted]',
      nested: {
        apiKey: '[redacted]',
        list: [{ Authorization: '[redacted]', ok: 1 }],
        deeper: { api_key: '[redacted]' },
      },
      headers: { Cookie: '[redacted]' },
    });
    expect(job.returnvalue).toEqual({ accessToken: '[redacted]', fine: 'yes' });
    expect(job.redactedKeys).toEqual(expect.arrayContaining(['password', 'apikey', 'cookie']));
    // Redis still holds the real values.
    expect(JSON.parse((await redis.hget(`bull:${name}:${id}`, 'data'))!)).toEqual(secretData);
  });

  it('answers 404 for a missing job and 422 for an id with ":"', async () => {
    const missing = await viewer.get(jobPath('no-such-job'));
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe('NOT_FOUND');
    const bad = await viewer.get(jobPath('a%3Ab'));
    expect(bad.status).toBe(422);
  });

  it('builds an ordered timeline from the events stream that reaches back to creation', async () => {
    const timeline = await json<JobTimelineResponse>(await viewer.get(`${jobPath(id)}/timeline`));
    expect(timeline.reachesCreation).toBe(true);
    expect(timeline.capped).toBe(false);
    expect(timeline.entries.map((entry) => entry.event)).toEqual([
      'added',
      'waiting',
      'active',
      'completed',
    ]);
    expect(timeline.entries.every((entry) => entry.source === 'stream')).toBe(true);
    const ats = timeline.entries.map((entry) => entry.at);
    expect([...ats].sort((a, b) => a - b)).toEqual(ats);
    expect(timeline.entries.at(-1)).toMatchObject({ attempt: 1, prev: 'active' });
    // The return value (with its token) never rides along on a timeline entry.
    expect(JSON.stringify(timeline)).not.toContain('tok-123');
  });

  it('stops at maxScan and says the timeline does not reach back', async () => {
    const timeline = await json<JobTimelineResponse>(
      await viewer.get(`${jobPath(id)}/timeline?maxScan=1`),
    );
    expect(timeline.scanned).toBe(1);
    expect(timeline.capped).toBe(true);
    expect(timeline.reachesCreation).toBe(false);
    // The step the stream did not reach comes from the hash.
    expect(timeline.entries[0]).toMatchObject({ event: 'added', source: 'hash' });
  });
});

describe('actions', () => {
  it('retries a failed job (operator), which then completes; the timeline spans both runs', async () => {
    const { id } = await queue.add('flaky', { n: 1 }, { attempts: 1 });
    await waitFor(async () => (await queue.getJobState(id)) === 'failed');
    const failed = await json<JobDetailResponse>(await viewer.get(jobPath(id)));
    expect(failed.failedReason).toBe('login failed: password=[redacted]');
    expect(failed.stacktrace.join('\n')).not.toContain('pw-in-reason');

    const denied = await viewer.post(`${jobPath(id)}/retry`, {});
    expect(denied.status).toBe(403);
    expect((await errorOf(denied)).code).toBe('FORBIDDEN');

    expect(
      (await json<JobActionResponse>(await operator.post(`${jobPath(id)}/retry`, {}))).ok,
    ).toBe(true);
    await waitFor(async () => (await queue.getJobState(id)) === 'completed');
    const timeline = await json<JobTimelineResponse>(await viewer.get(`${jobPath(id)}/timeline`));
    const events = timeline.entries.map((entry) => `${entry.event}:${entry.attempt}`);
    expect(events).toEqual([
      'added:0',
      'waiting:0',
      'active:1',
      'failed:1',
      'retries-exhausted:1',
      'waiting:1',
      'active:2',
      'completed:2',
    ]);
    const failedEntry = timeline.entries.find((entry) => entry.event === 'failed');
    expect(failedEntry?.detail).toBe('login failed: password=[redacted]');
    expect(JSON.stringify(timeline)).not.toContain('pw-in-reason');
  });

  it('refuses to retry a job that is not finished, and to promote one that is not delayed (409)', async () => {
    const { id } = await queue.add('later', {}, { delay: 600_000 });
    const retry = await operator.post(`${jobPath(id)}/retry`, {});
    expect(retry.status).toBe(409);
    expect((await errorOf(retry)).code).toBe('CONFLICT');

    const changed = await operator.post(`${jobPath(id)}/delay`, { delay: 1_200_000 });
    expect(changed.status).toBe(200);
    expect((await queue.getJob(id))?.delay).toBe(1_200_000);

    expect((await operator.post(`${jobPath(id)}/promote`, {})).status).toBe(200);
    expect(await queue.getJobState(id)).not.toBe('delayed');
    const again = await operator.post(`${jobPath(id)}/promote`, {});
    expect(again.status).toBe(409);
  });

  it('validates priority and delay bodies with 422 and a code', async () => {
    const { id } = await queue.add('later', {}, { delay: 600_000 });
    for (const body of [
      { priority: -1 },
      { priority: 'high' },
      { priority: 1.5 },
      {},
      { priority: 1, x: 1 },
    ]) {
      const response = await operator.post(`${jobPath(id)}/priority`, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      const error = await errorOf(response);
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.issues?.[0]?.path[0]).toBe('body');
    }
    expect((await operator.post(`${jobPath(id)}/delay`, { delay: -5 })).status).toBe(422);
    expect((await operator.post(`${jobPath(id)}/priority`, { priority: 7 })).status).toBe(200);
    expect((await queue.getJob(id))?.priority).toBe(7);
  });

  it('lets only an admin edit data, validates it, and keeps redacted secrets', async () => {
    const { id } = await queue.add('later', secretData, { delay: 600_000 });
    const shown = (await json<JobDetailResponse>(await viewer.get(jobPath(id)))).data as Record<
      string,
      unknown
    >;
    const edited = { ...shown, user: 'ursula-2' };

    for (const client of [viewer, operator]) {
      const response = await client.post(`${jobPath(id)}/data`, { data: edited });
      expect(response.status).toBe(403);
    }
    expect((await admin.post(`${jobPath(id)}/data`, { nodata: 1 })).status).toBe(422);
    expect((await admin.post(`${jobPath(id)}/data`, '{"data": {oops}}')).status).toBe(400);

    expect((await admin.post(`${jobPath(id)}/data`, { data: edited })).status).toBe(200);
    const stored = (await queue.getJob(id))!.data as typeof secretData;
    expect(stored).toEqual({ ...secretData, user: 'ursula-2' });

    // A secret the admin types in replaces the stored one.
    const replaced = { ...edited, password: 'new-pass' };
    expect((await admin.post(`${jobPath(id)}/data`, { data: replaced })).status).toBe(200);
    expect(((await queue.getJob(id))!.data as typeof secretData).password).toBe('new-pass');
  });

  it('removes (admin only) and duplicates (operator) a job', async () => {
    const original = await queue.add('later', { copy: 'me' }, { delay: 600_000, priority: 3 });
    expect((await operator.post(`${jobPath(original.id)}/remove`, {})).status).toBe(403);

    const dup = await json<JobActionResponse>(
      await operator.post(`${jobPath(original.id)}/duplicate`, {}),
    );
    expect(dup.id).toBeDefined();
    expect(dup.id).not.toBe(original.id);
    const copy = await queue.getJob(dup.id!);
    expect(copy).toMatchObject({ name: 'later', data: { copy: 'me' }, priority: 3 });

    expect((await admin.post(`${jobPath(original.id)}/remove`, {})).status).toBe(200);
    expect(await queue.getJob(original.id)).toBeUndefined();
    expect((await admin.post(`${jobPath(original.id)}/remove`, {})).status).toBe(404);
  });

  it('audits job actions as job.<action> with the job as target', async () => {
    const { id } = await queue.add('later', {}, { delay: 600_000 });
    await operator.post(`${jobPath(id)}/promote`, {});
    const audit = (await (await operator.get('/api/audit?pageSize=1')).json()) as {
      entries: { action: string; target: string; outcome: string }[];
    };
    expect(audit.entries[0]).toMatchObject({
      action: 'job.promote',
      target: `bull:${name}:${id}`,
      outcome: 'ok',
    });
  });
});

describe('logs', () => {
  it('tails the newest lines, page by page, with the page size clamped', async () => {
    const { id } = await queue.add('logger', {});
    await waitFor(async () => (await queue.getJobState(id)) === 'completed');
    const tail = await json<JobLogsResponse>(await viewer.get(`${jobPath(id)}/logs?pageSize=50`));
    expect(tail.count).toBe(60);
    expect(tail.lines).toHaveLength(50);
    expect(tail.lines[0]).toEqual({ index: 10, text: 'line 10' });
    expect(tail.lines.at(-1)).toEqual({ index: 59, text: 'line 59' });
    const older = await json<JobLogsResponse>(
      await viewer.get(`${jobPath(id)}/logs?pageSize=50&page=2`),
    );
    expect(older.lines.map((line) => line.index)).toEqual([...Array(10).keys()]);
    const clamped = await json<JobLogsResponse>(
      await viewer.get(`${jobPath(id)}/logs?pageSize=100000`),
    );
    expect(clamped.pageSize).toBe(200);
  });
});

describe('a trimmed events stream', () => {
  it('says the timeline no longer reaches back to the job creation', async () => {
    const own = uniqueQueueName('trimmed');
    const q = new Queue(own, { connection: redisOptions() });
    try {
      const old = await q.add('old', {});
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await redis.xtrim(`bull:${own}:events`, 'MAXLEN', 0);
      await q.add('new', {});
      const timeline = await json<JobTimelineResponse>(
        await viewer.get(`/api/queues/bull/${own}/jobs/${old.id}/timeline`),
      );
      expect(timeline.reachesCreation).toBe(false);
      expect(timeline.capped).toBe(false);
      expect(timeline.entries).toEqual([
        expect.objectContaining({ event: 'added', source: 'hash', at: old.timestamp }),
      ]);
    } finally {
      await q.obliterate({ force: true });
      await q.close();
    }
  });
});

describe('flows', () => {
  it('draws the flow from any job up to its root, bounded, with load more', async () => {
    const fq = uniqueQueueName('flow');
    const tree = await flows.add({
      name: 'parent',
      queueName: fq,
      data: { password: 'hunter2' },
      children: [
        { name: 'child', queueName: fq, data: {} },
        { name: 'child', queueName: fq, data: {} },
        { name: 'child', queueName: fq, data: {} },
      ],
    });
    const child = tree.children![0]!.job;
    const path = `/api/flows/bull/${fq}/${child.id}`;
    const full = await json<FlowGraphResponse>(await viewer.get(path));
    expect(full.root).toMatchObject({ rootKey: `bull:${fq}:${tree.job.id}`, reachedTop: true });
    expect(full.graph.nodes).toHaveLength(4);
    expect(full.graph.nodes[0]).toMatchObject({ id: tree.job.id, state: 'waiting-children' });
    expect(full.graph.nodes.slice(1).every((node) => node.state === 'waiting')).toBe(true);
    expect(JSON.stringify(full)).not.toContain('hunter2');

    const bounded = await json<FlowGraphResponse>(await viewer.get(`${path}?maxChildrenPerNode=1`));
    expect(bounded.graph.nodes).toHaveLength(2);
    expect(bounded.graph.truncated).toBe(true);
    const root = bounded.graph.nodes[0]!;
    expect(root.childrenCursor).toBeDefined();

    const seen = new Set([bounded.graph.nodes[1]!.key]);
    let cursor = root.childrenCursor;
    for (let pages = 0; cursor !== undefined && pages < 10; pages++) {
      const query = new URLSearchParams({ parentKey: root.key, cursor, level: '0', count: '1' });
      const page = await json<FlowChildrenResponse>(
        await viewer.get(`/api/flows/children?${query.toString()}`),
      );
      for (const node of page.nodes) {
        expect(node.level).toBe(1);
        seen.add(node.key);
      }
      cursor = page.cursor;
    }
    expect(seen.size).toBe(3);
  });

  it('refuses keys outside the configured prefixes, forged cursors and missing jobs', async () => {
    const outside = await viewer.get(
      `/api/flows/children?parentKey=${encodeURIComponent('elsewhere:q:1')}`,
    );
    expect(outside.status).toBe(404);
    const forged = await viewer.get(
      `/api/flows/children?parentKey=${encodeURIComponent(`bull:${name}:1`)}&cursor=garbage`,
    );
    expect(forged.status).toBe(422);
    expect((await viewer.get(`/api/flows/bull/${name}/no-such-job`)).status).toBe(404);
  });
});

describe('OXMQ_REDACT_KEYS', () => {
  let server: ConsoleServer;
  beforeAll(async () => {
    server = await startConsole(
      consoleEnv(inject('redisPort'), { OXMQ_REDACT_KEYS: 'ssn, Card-Number' }),
    );
  });
  afterAll(async () => {
    await server.stop();
  });

  it('adds the configured names to the defaults', async () => {
    const { id } = await queue.add(
      'later',
      { ssn: '123-45', card_number: '4111', token: 't0k', city: 'Oslo' },
      { delay: 600_000 },
    );
    const client = await signIn(server.url, VIEWER);
    const job = await json<JobDetailResponse>(await client.get(jobPath(id)));
    expect(job.data).toEqual({
      ssn: '[redacted]',
      card_number: '[redacted]',
      token: '[redacted]',
      city: 'Oslo',
    });
  });
});
