/**
 * The console's JSON API over HTTP against `next start`:
 * sessions, roles, same-origin, input validation, read-only mode, the audit log and health.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { anonymousClient, signIn, type ConsoleClient } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { ADMIN, consoleEnv, OPERATOR, VIEWER } from './users';
import type {
  ApiError,
  AuditListResponse,
  QueueListResponse,
  QueueOverviewResponse,
} from '../../lib/api-types';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const queueName = uniqueQueueName('api');
const queue = new Queue(queueName, { connection: redisOptions() });
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  await queue.addBulk([
    { name: 'a', data: {} },
    { name: 'b', data: {} },
  ]);
  await queue.add('later', {}, { delay: 600_000 });
  [operator, viewer] = await Promise.all([signIn(baseUrl, OPERATOR), signIn(baseUrl, VIEWER)]);
});

afterAll(async () => {
  await queue.close();
  await redis.quit();
});

const pausePath = `/api/queues/bull/${queueName}/pause`;
const resumePath = `/api/queues/bull/${queueName}/resume`;

async function errorOf(response: Response): Promise<ApiError> {
  return (await response.json()) as ApiError;
}

describe('sessions', () => {
  it('answers 401 UNAUTHENTICATED without a session, for reads and mutations', async () => {
    const anonymous = anonymousClient(baseUrl);
    for (const response of [
      await anonymous.get('/api/queues'),
      await anonymous.get('/api/audit'),
      await anonymous.post(pausePath, {}),
    ]) {
      expect(response.status).toBe(401);
      expect((await errorOf(response)).code).toBe('UNAUTHENTICATED');
    }
    expect(await queue.isPaused()).toBe(false);
  });

  it('redirects pages to /login without a session, and serves /login itself', async () => {
    const anonymous = anonymousClient(baseUrl);
    const page = await anonymous.get('/audit');
    expect(page.status).toBe(307);
    expect(page.headers.get('location')).toContain('/login?callbackUrl=%2Faudit');
    const login = await anonymous.get('/login');
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('Sign in');
  });

  it('refuses wrong credentials and unknown users', async () => {
    await expect(signIn(baseUrl, { ...ADMIN, password: 'wrong-password' })).rejects.toThrow(
      /refused/,
    );
    await expect(signIn(baseUrl, { username: 'nobody', password: 'x' })).rejects.toThrow(/refused/);
  });

  it('rejects a forged session cookie', async () => {
    const forged = anonymousClient(baseUrl);
    const response = await forged.raw('/api/queues', {
      headers: { cookie: 'next-auth.session-token=eyJhbGciOiJub25lIn0.e30.' },
    });
    expect(response.status).toBe(401);
  });
});

describe('reads', () => {
  it('lists queues with counts for a signed-in viewer', async () => {
    const response = await viewer.get('/api/queues');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as QueueListResponse;
    expect(body.complete).toBe(true);
    expect(body.readOnly).toBe(false);
    const ours = body.queues.find((q) => q.name === queueName);
    expect(ours).toMatchObject({
      prefix: 'bull',
      paused: false,
      counts: { waiting: 2, delayed: 1, active: 0, completed: 0, failed: 0 },
      workers: [],
    });
  });

  it('clamps the page size to 100 and refuses a non-numeric one with 422', async () => {
    const clamped = (await (
      await viewer.get('/api/queues?pageSize=5000')
    ).json()) as QueueListResponse;
    expect(clamped.pageSize).toBe(100);
    const bad = await viewer.get('/api/queues?pageSize=lots');
    expect(bad.status).toBe(422);
    expect(await errorOf(bad)).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('serves one queue, and 404 NOT_FOUND for unknown queues or prefixes', async () => {
    const one = await viewer.get(`/api/queues/bull/${queueName}`);
    expect(one.status).toBe(200);
    expect(((await one.json()) as QueueOverviewResponse).counts.waiting).toBe(2);
    for (const path of ['/api/queues/bull/no-such-queue', `/api/queues/other/${queueName}`]) {
      const missing = await viewer.get(path);
      expect(missing.status).toBe(404);
      expect((await errorOf(missing)).code).toBe('NOT_FOUND');
    }
    expect(await redis.exists('bull:no-such-queue:meta')).toBe(0);
  });
});

describe('mutations', () => {
  it('lets an operator pause and resume, and audits both', async () => {
    const paused = await operator.post(pausePath, {});
    expect(paused.status).toBe(200);
    expect(await paused.json()).toEqual({ prefix: 'bull', name: queueName, paused: true });
    expect(await queue.isPaused()).toBe(true);

    const resumed = await operator.post(resumePath, {});
    expect(resumed.status).toBe(200);
    expect(await queue.isPaused()).toBe(false);

    const audit = (await (await operator.get('/api/audit?pageSize=5')).json()) as AuditListResponse;
    const [resume, pause] = audit.entries;
    expect(resume).toMatchObject({
      actor: OPERATOR.username,
      role: 'operator',
      action: 'queue.resume',
      target: `bull:${queueName}`,
      outcome: 'ok',
      status: 200,
    });
    expect(pause).toMatchObject({
      action: 'queue.pause',
      params: { prefix: 'bull', name: queueName, body: {} },
      outcome: 'ok',
    });
    expect(pause!.at).toBeGreaterThan(Date.now() - 60_000);
  });

  it('answers 403 FORBIDDEN to a viewer, on pause and on the audit log', async () => {
    const response = await viewer.post(pausePath, {});
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe('FORBIDDEN');
    expect(await queue.isPaused()).toBe(false);
    expect((await viewer.get('/api/audit')).status).toBe(403);

    const audit = (await (
      await operator.get('/api/audit?kind=refused&pageSize=1')
    ).json()) as AuditListResponse;
    expect(audit.entries[0]).toMatchObject({
      actor: VIEWER.username,
      action: 'queue.pause',
      outcome: 'denied',
      status: 403,
      code: 'FORBIDDEN',
    });
  });

  it('answers 403 CROSS_ORIGIN to another origin, a cross-site fetch, or no origin at all', async () => {
    const cases: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: baseUrl, 'sec-fetch-site': 'cross-site' },
      {},
    ];
    for (const headers of cases) {
      const response = await operator.raw(pausePath, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect((await errorOf(response)).code).toBe('CROSS_ORIGIN');
    }
    // A browser's same-origin fetch may omit Origin but always sends Sec-Fetch-Site.
    const sameSite = await operator.raw(resumePath, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: '{}',
    });
    expect(sameSite.status).toBe(200);
    expect(await queue.isPaused()).toBe(false);
  });

  it('refuses a cross-site HTML form post (urlencoded body, foreign origin)', async () => {
    const response = await operator.raw(pausePath, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
      },
      body: 'a=1',
    });
    expect(response.status).toBe(403);
    expect(await queue.isPaused()).toBe(false);
  });

  it('wants a JSON body: 415 for another type, 400 for bad JSON, 422 for unknown fields', async () => {
    const form = await operator.post(pausePath, 'a=1', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect((await errorOf(form)).code).toBe('UNSUPPORTED_MEDIA_TYPE');

    const broken = await operator.post(pausePath, '{"oops"');
    expect(broken.status).toBe(400);
    expect((await errorOf(broken)).code).toBe('INVALID_JSON');

    const extra = await operator.post(pausePath, { force: true });
    expect(extra.status).toBe(422);
    const error = await errorOf(extra);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.issues?.[0]?.path[0]).toBe('body');
    expect(await queue.isPaused()).toBe(false);
  });

  it('validates route parameters with 422', async () => {
    const response = await operator.post('/api/queues/bull/a%3Ab/pause', {});
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('only accepts POST on mutation routes', async () => {
    const response = await operator.get(pausePath);
    expect(response.status).toBe(405);
  });
});

describe('health', () => {
  it('answers 200 ok without a session', async () => {
    const response = await anonymousClient(baseUrl).get('/api/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('a read-only console on a Redis that later stops', () => {
  let server: ConsoleServer;
  let ownRedis: RedisServer;
  let queueOnOwn: Queue;

  beforeAll(async () => {
    ownRedis = await startRedis();
    queueOnOwn = new Queue('ro', { connection: { host: '127.0.0.1', port: ownRedis.port } });
    await queueOnOwn.waitUntilReady();
    server = await startConsole(consoleEnv(ownRedis.port, { OXMQ_READ_ONLY: 'true' }));
  });

  afterAll(async () => {
    await queueOnOwn.close();
    await server.stop();
    await ownRedis.stop();
  });

  it('refuses every mutation with 403 READ_ONLY, even for an admin, and audits it', async () => {
    const admin = await signIn(server.url, ADMIN);
    const list = (await (await admin.get('/api/queues')).json()) as QueueListResponse;
    expect(list.readOnly).toBe(true);
    const response = await admin.post('/api/queues/bull/ro/pause', {});
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe('READ_ONLY');
    expect(await queueOnOwn.isPaused()).toBe(false);
    const audit = (await (
      await admin.get('/api/audit?kind=refused&pageSize=1')
    ).json()) as AuditListResponse;
    expect(audit.entries[0]).toMatchObject({ actor: ADMIN.username, code: 'READ_ONLY' });
  });

  it('answers health 503 once its Redis is gone', async () => {
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    await queueOnOwn.close();
    await ownRedis.kill();
    const response = await fetch(`${server.url}/api/health`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'unavailable' });
  });
});
