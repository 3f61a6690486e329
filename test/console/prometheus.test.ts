/**
 * GET /api/prometheus against `next start` (docs/metrics.md, "Console"): 404 while
 * OXMQ_METRICS_TOKEN is unset (the shared console), 401 with WWW-Authenticate for a wrong or
 * missing token, the text format with every family for the right one, a cap on the queues,
 * collections shared through the cache and while they run (counted with INFO commandstats on a
 * Redis of this file's own), a login bypass for that path only, and a real Prometheus
 * scraping it with the token (so its parser, not only ours, reads the text).
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type { JobDetailResponse, QueueListResponse } from '../../lib/api-types';
import { metricSections, parsePrometheusText } from '../helpers/prometheus-text';
import { commandCalls } from '../helpers/command-stats';
import { startPrometheus } from '../helpers/prometheus';
import { sleep, waitFor } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { anonymousClient, signIn } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { ADMIN, consoleEnv } from './users';

const TOKEN = 'prometheus-test-token-0123456789';
const CACHE_MS = 1_500;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let ownRedis: RedisServer;
let redis: Redis;
let server: ConsoleServer;
const queues: Queue[] = [];
let worker: Worker;

beforeAll(async () => {
  ownRedis = await startRedis();
  const connection = { host: '127.0.0.1', port: ownRedis.port };
  redis = new Redis(connection);
  // Four queues over two prefixes; the cap of three leaves out the last (sorted) one.
  for (const [prefix, name] of [
    ['prom-a', 'orders'],
    ['prom-a', 'we"ird\\name'],
    ['prom-b', 'emails'],
    ['prom-b', 'zzz-omitted'],
  ] as const) {
    const queue = new Queue(name, { connection, prefix });
    queues.push(queue);
    await queue.add('job', {});
  }
  await queues[0]!.setGlobalConcurrency(4);
  // A connected worker of prom-b:emails (it finishes that queue's job at once).
  worker = new Worker('emails', async () => 1, { connection, prefix: 'prom-b' });
  await waitFor(async () => (await queues[2]!.getWorkers()).length === 1);
  server = await startConsole(
    consoleEnv(ownRedis.port, {
      OXMQ_PREFIXES: 'prom-a,prom-b',
      OXMQ_METRICS_TOKEN: TOKEN,
      OXMQ_METRICS_CACHE_MS: String(CACHE_MS),
      OXMQ_METRICS_MAX_QUEUES: '3',
    }),
  );
});

afterAll(async () => {
  await server?.stop();
  await worker?.close();
  await Promise.all(queues.map((queue) => queue.close()));
  await redis?.quit();
  await ownRedis?.stop();
});

const scrape = (token = TOKEN) => fetch(`${server.url}/api/prometheus`, { headers: bearer(token) });

/** Waits out the cache so that the next scrape collects afresh. */
const cacheExpired = () => sleep(CACHE_MS + 200);

describe('without OXMQ_METRICS_TOKEN', () => {
  it('answers 404: the endpoint is never open by default', async () => {
    const shared = inject('consoleUrl');
    for (const headers of [{}, bearer(TOKEN)]) {
      const response = await fetch(`${shared}/api/prometheus`, { headers });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});

describe('with OXMQ_METRICS_TOKEN', () => {
  it('answers 401 with WWW-Authenticate: Bearer for a wrong, missing or non-bearer token', async () => {
    const attempts: Record<string, string>[] = [
      {},
      bearer('prometheus-test-token-0123456780'),
      bearer(`${TOKEN}x`),
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${server.url}/api/prometheus`, { headers });
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(await response.text()).not.toContain('bullmq_job_count');
    }
  });

  it('answers the text format with every family, labelled, for the right token', async () => {
    const response = await scrape();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    expect(text.endsWith('\n')).toBe(true);
    // Exactly the families docs/metrics.md documents for the console, each declared once.
    const documented = metricSections(readFileSync('docs/metrics.md', 'utf8')).console;
    expect(parsePrometheusText(text).families.size).toBe(documented.length);
    for (const family of documented) {
      expect(text.match(new RegExp(`^# TYPE ${family} `, 'gm')), family).toHaveLength(1);
    }
    const lines = text.split('\n');
    expect(lines).toContain('bullmq_job_count{prefix="prom-a", queue="orders", state="waiting"} 1');
    expect(lines).toContain('oxmq_queue_paused{prefix="prom-a", queue="we\\"ird\\\\name"} 0');
    expect(lines).toContain(
      'oxmq_queue_global_concurrency_limit{prefix="prom-a", queue="orders"} 4',
    );
    expect(lines).toContain('oxmq_queue_workers{prefix="prom-b", queue="emails"} 1');
    expect(lines).toContain('oxmq_scrape_queues 3');
    expect(lines).toContain('oxmq_scrape_queues_omitted 1');
    expect(text).not.toContain('zzz-omitted');
  });

  it('serves two scrapes within the cache window from one collection', async () => {
    await cacheExpired();
    await redis.config('RESETSTAT');
    const first = await (await scrape()).text();
    const second = await (await scrape()).text();
    expect(second).toBe(first);
    const calls = await commandCalls(redis);
    expect(calls['client|list']).toBe(1);
    expect(calls.sort).toBe(2 * 3); // two per described queue, once

    await cacheExpired();
    expect((await scrape()).status).toBe(200);
    expect((await commandCalls(redis))['client|list']).toBe(2);
  });

  it('lets scrapes that arrive during a collection share it', async () => {
    await cacheExpired();
    await redis.config('RESETSTAT');
    // Redis holds every command for a moment: all three scrapes arrive while the first one's
    // collection waits for its first reply.
    await redis.call('CLIENT', 'PAUSE', '500', 'ALL');
    const responses = await Promise.all([scrape(), scrape(), scrape()]);
    const bodies = await Promise.all(responses.map((response) => response.text()));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(new Set(bodies).size).toBe(1);
    expect((await commandCalls(redis))['client|list']).toBe(1);
  });

  it('opens only /api/prometheus without a session: the token opens nothing else', async () => {
    const anonymous = anonymousClient(server.url);
    for (const path of ['/api/queues', '/api/prometheus/x', '/api/prometheusx', '/api/audit']) {
      const response = await anonymous.raw(path, { method: 'GET', headers: bearer(TOKEN) });
      expect(response.status, path).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    const page = await anonymous.raw('/', { method: 'GET', headers: bearer(TOKEN) });
    expect(page.status).toBe(307);
    expect(page.headers.get('location')).toContain('/login');
    // A session is no substitute for the token either.
    const admin = await signIn(server.url, ADMIN);
    expect((await admin.get('/api/prometheus')).status).toBe(401);
  });

  it('leaves the links out on a console without OXMQ_TRACE_URL and OXMQ_GRAFANA_URL', async () => {
    const admin = await signIn(server.url, ADMIN);
    const list = (await (await admin.get('/api/queues')).json()) as QueueListResponse;
    expect(list.links).toEqual({ traceUrl: null, grafanaUrl: null });
    const traced = await queues[0]!.add(
      'traced',
      {},
      { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    );
    const detail = (await (
      await admin.get(`/api/queues/prom-a/orders/jobs/${traced.id}`)
    ).json()) as JobDetailResponse;
    expect(detail).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', traceUrl: null });
  });
});

// Last: Prometheus scrapes every second, which would change the collection counts above.
describe('a real Prometheus', () => {
  it('scrapes the console with the bearer token and reads every label, escapes included', async () => {
    const prometheus = await startPrometheus({
      scrapeConfigs: [
        {
          job_name: 'oxmq-console',
          metrics_path: '/api/prometheus',
          authorization: { type: 'Bearer', credentials: TOKEN },
          static_configs: [{ targets: [new URL(server.url).host] }],
        },
      ],
    });
    try {
      const [up] = await prometheus.waitForSeries('up{job="oxmq-console"} == 1');
      expect(up!.value[1]).toBe('1');
      const waiting = await prometheus.waitForSeries(
        'bullmq_job_count{prefix="prom-a", queue="orders", state="waiting"}',
      );
      expect(Number(waiting[0]!.value[1])).toBeGreaterThanOrEqual(1);
      const weird = await prometheus.waitForSeries('oxmq_queue_paused{prefix="prom-a"}');
      expect(weird.map((sample) => sample.metric.queue).sort()).toEqual(['orders', 'we"ird\\name']);
      const workers = await prometheus.waitForSeries('oxmq_queue_workers{queue="emails"}');
      expect(workers[0]!.value[1]).toBe('1');
      const omitted = await prometheus.waitForSeries('oxmq_scrape_queues_omitted');
      expect(omitted[0]!.value[1]).toBe('1');
    } finally {
      await prometheus.stop();
    }
  });
});
