/**
 * Redaction on every route that answers job text, against `next start`, a real Redis and a real
 * OxMQ Worker: a job with secrets in its data, progress, logs, failure reason and return value
 * shows none of them on any route (rows, search results in every mode, the job, its logs and
 * timeline, error groups, flow nodes, live events); search and bulk filters are no oracle for a
 * redacted value; and one search reads a bounded number of bytes. Every route under app/api/
 * (lib/api-routes/) is listed below as answering job text (checked here) or not, so a new route
 * cannot skip the question.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FlowProducer, Queue, Worker } from 'oxmq';
import { API_ROUTES } from '../../lib/api-routes';
import type {
  BulkOperationResponse,
  JobSearchResponse,
  LiveEventsMessage,
} from '../../lib/api-types';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { openSse } from './sse';
import { OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const name = uniqueQueueName('redact');
const base = `/api/queues/bull/${name}`;
const queue = new Queue(name, { connection: redisOptions() });
const flows = new FlowProducer({ connection: redisOptions() });
let worker: Worker;
let viewer: ConsoleClient;
let operator: ConsoleClient;
/** The failed child of a flow, its waiting parent, and a completed job. */
let failedId: string;
let parentId: string;
let completedId: string;

const SECRETS = [
  'S1-data-pw',
  'S2-data-key',
  'S2b-pass',
  'S3-data-url',
  'S4-data-json',
  'S5-data-text',
  'S5b-auth',
  'S6 progress',
  'S7-return',
  'S8 reason',
  'S9-reason-url',
  'S10-log',
  'S11 log json',
  'S12-log-url',
  'S13-return-json',
];

const LEAKY_DATA = {
  visible: 'yes',
  password: 'S1-data-pw',
  nested: { apiKey: 'S2-data-key', list: [{ pass: 'S2b-pass' }] },
  dsn: 'redis://:S3-data-url@cache:6379',
  body: JSON.stringify({ token: 'S4-data-json', n: 1 }),
  note: 'login with token=S5-data-text',
  auth: { user: 'u', code: 'S5b-auth' },
};

beforeAll(async () => {
  worker = new Worker(
    name,
    async (job) => {
      if (!job.name.startsWith('leaky')) return null;
      await job.updateProgress({ step: 1, credentials: 'S6 progress' });
      await job.log('connecting with password=S10-log');
      await job.log(JSON.stringify({ secret: 'S11 log json' }));
      await job.log('using redis://:S12-log-url@cache');
      if (job.name === 'leaky-fail') {
        throw new Error('login failed: {"password": "S8 reason"} dsn=redis://:S9-reason-url@h');
      }
      return {
        accessToken: 'S7-return',
        body: JSON.stringify({ privateKey: 'S13-return-json' }),
      };
    },
    { connection: redisOptions() },
  );
  const tree = await flows.add({
    name: 'flow-parent',
    queueName: name,
    data: {},
    children: [{ name: 'leaky-fail', queueName: name, data: LEAKY_DATA, opts: { attempts: 1 } }],
  });
  parentId = tree.job.id;
  failedId = tree.children![0]!.job.id;
  completedId = (await queue.add('leaky-ok', LEAKY_DATA)).id;
  // A job waiting in a paused tenant group, with a secret in its progress.
  await queue.pauseGroup('redact-g');
  const grouped = await queue.add('held', LEAKY_DATA, { group: { id: 'redact-g' } });
  await grouped.updateProgress({ step: 0, credentials: 'S6 progress' });
  await waitFor(
    async () =>
      (await queue.getJobState(failedId)) === 'failed' &&
      (await queue.getJobState(completedId)) === 'completed',
  );
  [viewer, operator] = await Promise.all([signIn(baseUrl, VIEWER), signIn(baseUrl, OPERATOR)]);
});

afterAll(async () => {
  await worker.close();
  await flows.close();
  await queue.close();
  await redis.quit();
});

async function bodyOf(response: Response): Promise<string> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return text;
}

function expectNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) expect(text, `${secret} on ${where}`).not.toContain(secret);
}

describe('every route that answers job text', () => {
  // [path, whether the answer holds a redacted value (not merely leaves the field out)]
  const routes = (): [string, boolean][] => [
    [`${base}/jobs?state=failed`, true],
    [`${base}/jobs?state=completed`, true],
    [`${base}/search?mode=id&q=${failedId}`, true],
    [`${base}/search?mode=id&q=${completedId}`, true],
    [`${base}/search?mode=name&q=leaky&state=failed`, true],
    [`${base}/search?mode=name&q=leaky&state=completed`, true],
    [`${base}/search?mode=text&q=visible&state=failed`, true],
    [`${base}/search?mode=path&path=visible&q=yes&state=completed`, true],
    [`${base}/search/stream?mode=name&q=leaky&state=failed`, true],
    [`${base}/search/stream?mode=text&q=visible&state=completed`, true],
    [`${base}/export?state=failed`, true],
    [`${base}/export?state=completed&format=csv`, true],
    [`${base}/export?state=failed&format=csv&mode=text&q=visible`, true],
    [`${base}/jobs/${failedId}`, true],
    [`${base}/jobs/${completedId}`, true],
    [`${base}/jobs/${failedId}/logs`, true],
    [`${base}/jobs/${completedId}/logs`, true],
    [`${base}/jobs/${failedId}/timeline`, true],
    [`${base}/error-groups`, true],
    [`${base}/groups/redact-g/jobs`, true],
    [`${base}/jobs/${completedId}/timeline`, false],
    [`/api/flows/bull/${name}/${failedId}`, true],
    [
      `/api/flows/children?parentKey=${encodeURIComponent(`bull:${name}:${parentId}`)}&level=0`,
      true,
    ],
  ];

  it('the secrets are really stored, where the routes read them', async () => {
    const stored = JSON.stringify([
      await redis.hgetall(`bull:${name}:${failedId}`),
      await redis.hgetall(`bull:${name}:${completedId}`),
      await redis.lrange(`bull:${name}:${failedId}:logs`, 0, -1),
    ]);
    for (const secret of SECRETS) expect(stored).toContain(secret);
  });

  it('shows no secret on any of them, and shows that something was redacted', async () => {
    for (const [route, holdsRedacted] of routes()) {
      const text = await bodyOf(await viewer.get(route));
      expectNoSecret(text, route);
      if (holdsRedacted) expect(text, route).toContain('[redacted]');
    }
  });

  it('answers rows whose progress and failure reason are redacted', async () => {
    const failed = JSON.parse(
      await bodyOf(await viewer.get(`${base}/search?mode=id&q=${failedId}`)),
    ) as JobSearchResponse;
    expect(failed.matches[0]).toMatchObject({
      progress: { step: 1, credentials: '[redacted]' },
      failedReason: 'login failed: {"password": "[redacted]"} dsn=redis://:[redacted]@h',
    });
  });

  it('sends live events without job text', async () => {
    const stream = await openSse(
      viewer,
      `/api/events?queues=${encodeURIComponent(`bull/${name}`)}`,
    );
    try {
      await stream.next((message) => message.event === 'ready');
      const { id } = await queue.add('leaky-fail', LEAKY_DATA, { attempts: 1 });
      const failedEvent = await stream.next(
        (message) =>
          message.event === 'events' &&
          (JSON.parse(message.data) as LiveEventsMessage).batches.some((batch) =>
            batch.events.some((event) => event.event === 'failed' && event.jobId === id),
          ),
      );
      expect(failedEvent).toBeDefined();
      expectNoSecret(JSON.stringify(stream.messages), '/api/events');
    } finally {
      stream.close();
    }
  });
});

describe('search and bulk filters are no oracle', () => {
  const count = async (query: string) =>
    (
      JSON.parse(
        await bodyOf(await viewer.get(`${base}/search?${query}&state=failed`)),
      ) as JobSearchResponse
    ).matches.length;

  it('finds nothing by a redacted value, one character at a time or whole', async () => {
    for (const q of ['"password":"S', '"password":"S1', 'S1-data-pw', 'S5b', 'S3-data-url']) {
      expect(await count(`mode=text&q=${encodeURIComponent(q)}`), q).toBe(0);
    }
    expect(await count('mode=path&path=password&q=S1-data-pw')).toBe(0);
    expect(await count('mode=path&path=auth.code&q=S5b-auth')).toBe(0);
    // What the view shows is found.
    expect(
      await count(`mode=text&q=${encodeURIComponent('"password":"[redacted]"')}`),
    ).toBeGreaterThan(0);
    expect(await count('mode=path&path=password&q=%5Bredacted%5D')).toBeGreaterThan(0);
  });

  it('acts on no job through a filter on a redacted value', async () => {
    const created = await operator.post(`${base}/bulk`, {
      action: 'retry',
      state: 'failed',
      filter: { mode: 'text', query: 'S1-data-pw' },
    });
    let op = JSON.parse(await bodyOf(created)) as BulkOperationResponse;
    while (op.status === 'running') {
      op = JSON.parse(
        await bodyOf(await operator.post(`${base}/bulk/${op.id}/step`, { chunk: 100 })),
      ) as BulkOperationResponse;
    }
    expect(op).toMatchObject({ status: 'done', done: 0 });
    expect(await queue.getJobState(failedId)).toBe('failed');
  });
});

describe('the search byte budget', () => {
  const bigName = uniqueQueueName('redact-bytes');
  const bigQueue = new Queue(bigName, { connection: redisOptions() });
  const BLOB = 'x'.repeat(2_500_000);

  beforeAll(async () => {
    await bigQueue.addBulk(
      Array.from({ length: 5 }, (_, i) => ({ name: 'big', data: { i, blob: BLOB } })),
    );
  });
  afterAll(async () => {
    await bigQueue.obliterate({ force: true });
    await bigQueue.close();
  });

  it('stops a viewer search at 8 MiB of job fields, says so, and continues from there', async () => {
    const search = async (cursor: number) =>
      JSON.parse(
        await bodyOf(
          await viewer.get(
            `/api/queues/bull/${bigName}/search?mode=text&q=blob&state=waiting&cursor=${cursor}`,
          ),
        ),
      ) as JobSearchResponse;
    const first = await search(0);
    expect(first).toMatchObject({ stoppedBy: 'bytes', scanned: 3, next: 3, total: 5 });
    expect(first.matches).toHaveLength(3);
    expect(first.bytesRead).toBeLessThanOrEqual(8 * 1024 * 1024);
    const rest = await search(3);
    expect(rest).toMatchObject({ stoppedBy: null, next: null, scanned: 2 });
    expect(rest.matches).toHaveLength(2);
  });
});

/** Every API path (lib/api-routes/, held to app/api/ by its own test), and what it answers. */
const ROUTES: Record<string, string> = {
  // Job text, each checked above.
  '/api/queues/:prefix/:name/jobs': 'job text: rows (GET)',
  '/api/queues/:prefix/:name/search': 'job text: rows',
  '/api/queues/:prefix/:name/search/stream': 'job text: rows',
  '/api/queues/:prefix/:name/export': 'job text: data, return values, reasons',
  '/api/queues/:prefix/:name/jobs/:id': 'job text: the job',
  '/api/queues/:prefix/:name/jobs/:id/logs': 'job text: log lines',
  '/api/queues/:prefix/:name/jobs/:id/timeline': 'job text: failure reasons',
  '/api/queues/:prefix/:name/error-groups': 'job text: failure reasons (signature, sample)',
  '/api/queues/:prefix/:name/groups/:groupId/jobs': 'job text: rows',
  '/api/flows/:prefix/:queue/:id': 'job text: node failure reasons',
  '/api/flows/children': 'job text: node failure reasons',
  '/api/events': 'job ids and event names only',
  // No job text.
  '/api/audit': 'console requests, not jobs',
  '/api/auth/*': 'sign-in',
  '/api/health': 'up or down',
  '/api/jobs/find': 'queue and job names, states',
  '/api/metrics': 'counts per minute',
  '/api/metrics/total': 'counts per minute',
  '/api/metrics/history': 'counts, durations and job names (as the job lists show them)',
  '/api/metrics/sparklines': 'counts per minute',
  '/api/prometheus': 'counts',
  '/api/workers': 'worker connections',
  '/api/queues': 'queue overviews: counts, limits, workers',
  '/api/users/:username/sign-out': 'ok',
  '/api/queues/:prefix/:name': 'a queue overview',
  '/api/queues/:prefix/:name/diagnose': 'reasons and times',
  '/api/queues/:prefix/:name/integrity': 'counts, job ids and repair outcomes',
  '/api/queues/:prefix/:name/limits': 'limits',
  '/api/queues/:prefix/:name/metrics': 'counts per minute',
  '/api/queues/:prefix/:name/history':
    'counts, durations and job names (as the job lists show them)',
  '/api/queues/:prefix/:name/pause': 'ok',
  '/api/queues/:prefix/:name/resume': 'ok',
  '/api/queues/:prefix/:name/drain': 'ok',
  '/api/queues/:prefix/:name/clean': 'a count',
  '/api/queues/:prefix/:name/obliterate': 'ok',
  '/api/queues/:prefix/:name/selection': 'job ids',
  '/api/queues/:prefix/:name/bulk': "counts and the user's own filter",
  '/api/queues/:prefix/:name/bulk/:id': "counts and the user's own filter",
  '/api/queues/:prefix/:name/bulk/:id/step': "counts and the user's own filter",
  '/api/queues/:prefix/:name/bulk/:id/cancel': "counts and the user's own filter",
  '/api/queues/:prefix/:name/jobs/:id/data': 'ok',
  '/api/queues/:prefix/:name/jobs/:id/delay': 'ok',
  '/api/queues/:prefix/:name/jobs/:id/duplicate': 'the new job id',
  '/api/queues/:prefix/:name/jobs/:id/priority': 'ok',
  '/api/queues/:prefix/:name/jobs/:id/promote': 'ok',
  '/api/queues/:prefix/:name/jobs/:id/remove': 'ok',
  '/api/queues/:prefix/:name/jobs/:id/retry': 'ok',
  '/api/queues/:prefix/:name/jobs/:id/cancel':
    'an outcome word; GET: the cancel request, its reason redacted like a failure reason',
  '/api/queues/:prefix/:name/groups': 'group ids, counts and limits',
  '/api/queues/:prefix/:name/groups/:groupId/pause': 'ok',
  '/api/queues/:prefix/:name/groups/:groupId/resume': 'ok',
  '/api/queues/:prefix/:name/groups/:groupId/concurrency': 'ok',
  '/api/queues/:prefix/:name/groups/:groupId/rate-limit': 'ok',
  '/api/queues/:prefix/:name/schedulers': 'schedules, job names and states, no job data',
  '/api/queues/:prefix/:name/schedulers/:schedulerId/run': 'the new job id',
  '/api/queues/:prefix/:name/schedulers/:schedulerId/pause': 'ok',
  '/api/queues/:prefix/:name/schedulers/:schedulerId/resume': 'the next run',
  '/api/queues/:prefix/:name/schedulers/:schedulerId/repeat': 'the next run',
  '/api/queues/:prefix/:name/schedulers/:schedulerId/remove': 'ok',
  '/api/queues/:prefix/:name/workers': 'worker heartbeats: hosts, counts, job ids',
  '/api/queues/:prefix/:name/workers/:workerId/quiet': 'ok',
  '/api/queues/:prefix/:name/workers/:workerId/resume': 'ok',
  // Notifications: webhook labels (never URLs), mutes, delivery outcomes.
  '/api/notifications': 'webhook labels and formats, lease holders, muted queues',
  '/api/notifications/test': 'per webhook: its label, an HTTP status or an error code',
  '/api/queues/:prefix/:name/notifications': 'whether muted, by whom, when',
  '/api/queues/:prefix/:name/notifications/mute': 'whether muted, by whom, when',
  '/api/queues/:prefix/:name/notifications/unmute': 'whether muted, by whom, when',
};

it('every route under app/api/ is listed as answering job text or not', () => {
  const paths = new Set(API_ROUTES.map((route) => route.path));
  expect([...paths].sort()).toEqual(Object.keys(ROUTES).sort());
});
