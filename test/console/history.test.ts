/**
 * The history routes the metrics pages and the overview's sparklines read, against `next start`
 * of a console with a prefix of its own on the run's Redis: real OxMQ workers (no `metrics`
 * option, no Prometheus) run known jobs and are closed, then GET …/history answers their
 * outcomes, wait and run percentiles within one bucket of what the jobs themselves say, per job
 * name too; GET /api/metrics/history sums the queues, GET /api/metrics/sparklines gives the same
 * outcomes per minute, and the backlog sampled by the console at its start is there.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { z } from 'zod';
import { Queue, Worker, type Job } from 'oxmq';
import {
  historyAcrossResponseSchema,
  historySparklinesResponseSchema,
  queueHistoryResponseSchema,
} from '../../lib/http/history';
import { redisOptions, sleep, waitFor } from '../helpers/redis';
import { expectWithinOneBucket } from '../helpers/timing-summary';
import { anonymousClient, signIn, type ConsoleClient } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { consoleEnv, VIEWER } from './users';

const prefix = `hist-${randomUUID().slice(0, 8)}`;
/** Run times (ms) of the jobs of alpha: a known spread over several buckets. */
const RUN_MS = [12, 40, 40, 40, 120, 120, 400];
/** A job name with the field separator and text beyond ASCII: names are user data. */
const ODD_NAME = 'resize|thumb é';
const JOBS = 28;

let server: ConsoleServer;
let viewer: ConsoleClient;
const queues: Queue[] = [];
/** What the jobs of alpha say about themselves: run and wait times (ms), per job name. */
const truth = { run: [] as number[], wait: [] as number[], uploadRun: [] as number[] };

async function get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>> {
  const response = await viewer.get(path);
  const text = await response.text();
  expect(response.status, `GET ${path}: ${text}`).toBe(200);
  const parsed = schema.safeParse(JSON.parse(text));
  expect(parsed.error?.issues ?? [], `GET ${path} answers its contract`).toEqual([]);
  return parsed.data as z.output<S>;
}

const historyOf = (queue: string, query = '') =>
  get(`/api/queues/${prefix}/${queue}/history${query}`, queueHistoryResponseSchema);

beforeAll(async () => {
  const make = (name: string) => {
    const queue = new Queue(name, { connection: redisOptions(), prefix });
    queues.push(queue);
    return queue;
  };
  const [alpha, beta, gamma] = [make('alpha'), make('beta'), make('gamma')];
  const added = await alpha.addBulk(
    Array.from({ length: JOBS }, (_, i) => ({
      name: i % 2 ? ODD_NAME : 'upload',
      data: { ms: RUN_MS[i % RUN_MS.length]!, fail: i % 7 === 0 },
    })),
  );
  await alpha.add('later', {}, { delay: 3_600_000 });
  await alpha.add('later', {}, { delay: 3_600_000 });
  // beta: jobs that fail their first attempt and complete the second, and one plain upload.
  await beta.addBulk([
    ...Array.from({ length: 3 }, () => ({ name: 'flaky', data: {}, opts: { attempts: 2 } })),
    { name: 'upload', data: {} },
  ]);
  // gamma: no job ever runs.
  await gamma.add('never', {}, { delay: 3_600_000 });

  const options = {
    connection: redisOptions(),
    prefix,
    concurrency: 8,
    timingHistory: { flushInterval: 200 },
  };
  const workers = [
    new Worker(
      'alpha',
      async (job: Job<{ ms: number; fail: boolean }>) => {
        await sleep(job.data.ms);
        if (job.data.fail) throw new Error('planned');
      },
      options,
    ),
    new Worker(
      'beta',
      async (job: Job) => {
        if (job.name === 'flaky' && job.attemptsMade === 0) throw new Error('first try');
      },
      options,
    ),
  ];
  await waitFor(async () => {
    const [a, b] = await Promise.all(
      [alpha, beta].map((queue) => queue.getJobCounts('completed', 'failed')),
    );
    return a!.completed! + a!.failed! === JOBS && b!.completed === 4;
  }, 30_000);
  await Promise.all(workers.map((worker) => worker.close()));

  for (const job of await Promise.all(added.map((one) => alpha.getJob(one.id!)))) {
    const run = job!.finishedOn! - job!.processedOn!;
    truth.run.push(run);
    truth.wait.push(job!.processedOn! - job!.timestamp);
    if (job!.name === 'upload') truth.uploadRun.push(run);
  }
  // Started after the jobs ran: its backlog sampler samples the prefix's queues at once.
  server = await startConsole(consoleEnv(inject('redisPort'), { OXMQ_PREFIXES: prefix }));
  viewer = await signIn(server.url, VIEWER);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all(queues.map((q) => q.obliterate({ force: true }).then(() => q.close())));
});

describe('GET /api/queues/:prefix/:name/history', () => {
  it('answers what the workers ran: outcomes, and wait and run percentiles', async () => {
    const history = await historyOf('alpha');
    expect(history).toMatchObject({
      prefix,
      name: 'alpha',
      jobName: null,
      range: '1h',
      stepMs: 60_000,
      hasData: true,
    });
    expect(history.points).toHaveLength(60);
    expect(history.to - history.from).toBe(3_600_000);
    expect(history.total).toMatchObject({ completed: 24, failed: 4, retried: 0 });
    expectWithinOneBucket(history.total.run, truth.run, 'run');
    expectWithinOneBucket(history.total.wait, truth.wait, 'wait');
    const perPoint = (key: 'completed' | 'failed') =>
      history.points.reduce((sum, point) => sum + point[key], 0);
    expect(perPoint('completed')).toBe(24);
    expect(perPoint('failed')).toBe(4);
    // The job names as the workers wrote them, the odd one unchanged.
    expect(history.names.map((n) => [n.name, n.completed, n.failed]).sort()).toEqual([
      [ODD_NAME, 12, 2],
      ['upload', 12, 2],
    ]);
  });

  it('narrows outcomes and timings to one job name', async () => {
    const uploads = await historyOf('alpha', '?name=upload');
    expect(uploads.jobName).toBe('upload');
    expect(uploads.total).toMatchObject({ completed: 12, failed: 2 });
    expectWithinOneBucket(uploads.total.run, truth.uploadRun, 'upload run');
    const odd = await historyOf('alpha', `?name=${encodeURIComponent(ODD_NAME)}&range=24h`);
    expect(odd).toMatchObject({ jobName: ODD_NAME, range: '24h', stepMs: 15 * 60_000 });
    expect(odd.points).toHaveLength(96);
    expect(odd.total).toMatchObject({ completed: 12, failed: 2 });
    const none = await historyOf('alpha', '?name=no-such-name');
    expect(none.total).toMatchObject({ completed: 0, failed: 0, run: null, wait: null });
  });

  it('counts retried attempts, in every range', async () => {
    for (const range of ['1h', '6h', '24h', '7d', '30d']) {
      const beta = await historyOf('beta', `?range=${range}`);
      expect(beta.total, range).toMatchObject({ completed: 4, failed: 0, retried: 3 });
      expect(beta.range).toBe(range);
    }
  });

  it('has the backlog the console sampled at its start', async () => {
    const sampled = await waitFor(async () => {
      const history = await historyOf('alpha');
      return history.points.find((point) => point.backlog !== null);
    }, 30_000);
    expect(sampled!.backlog).toMatchObject({
      waiting: 0,
      active: 0,
      delayed: 2,
      completed: 24,
      failed: 4,
    });
  });

  it('refuses a bad range or name, an unknown queue, and an anonymous caller', async () => {
    const base = `/api/queues/${prefix}/alpha/history`;
    expect((await viewer.get(`${base}?range=2h`)).status).toBe(422);
    expect((await viewer.get(`${base}?name=${'n'.repeat(201)}`)).status).toBe(422);
    expect((await viewer.get(`${base}?name=${'n'.repeat(200)}`)).status).toBe(200);
    const missing = await viewer.get(`/api/queues/${prefix}/nope/history`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await viewer.get(`/api/queues/not-served/alpha/history`)).status).toBe(404);
    expect((await anonymousClient(server.url).get(base)).status).toBe(401);
  });
});

describe('GET /api/metrics/history', () => {
  it('sums the queues of the page, point by point and by job name', async () => {
    const all = await get('/api/metrics/history?range=6h', historyAcrossResponseSchema);
    expect(all.queues.map((queue) => queue.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(all).toMatchObject({ discovered: 3, complete: true, range: '6h', stepMs: 300_000 });
    expect(all.total).toMatchObject({ completed: 28, failed: 4, retried: 3 });
    expect(all.total.run!.count).toBe(JOBS + 4 + 3);
    const uploads = all.names.find((n) => n.name === 'upload');
    expect(uploads).toMatchObject({ completed: 13, failed: 2 });
    const one = await get('/api/metrics/history?name=flaky', historyAcrossResponseSchema);
    expect(one.total).toMatchObject({ completed: 3, retried: 3, failed: 0 });
    expect(one.jobName).toBe('flaky');
    // Every queue was sampled in the same minute: their backlogs add up.
    const sampled = await waitFor(async () => {
      const body = await get('/api/metrics/history', historyAcrossResponseSchema);
      return body.points.find((point) => point.backlog !== null);
    }, 30_000);
    expect(sampled!.backlog).toMatchObject({ delayed: 3, completed: 28, failed: 4 });
    expect((await viewer.get('/api/metrics/history?range=1y')).status).toBe(422);
  });
});

describe('GET /api/metrics/sparklines', () => {
  it('gives the last hour per minute of the queues named, the same counts as the history', async () => {
    const named = [
      `${prefix}/alpha`,
      `${prefix}/gamma`,
      `${prefix}/nope`,
      'bull/alpha',
      `${prefix}/beta`,
    ].join(',');
    const body = await get(
      `/api/metrics/sparklines?queues=${encodeURIComponent(named)}`,
      historySparklinesResponseSchema,
    );
    expect(body.stepMs).toBe(60_000);
    // The queue that does not exist and the prefix the console does not serve are left out.
    expect(body.queues.map((queue) => queue.name)).toEqual(['alpha', 'gamma', 'beta']);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    const [alpha, gamma, beta] = body.queues;
    expect(alpha!.completed).toHaveLength(60);
    expect([sum(alpha!.completed), sum(alpha!.failed), alpha!.recorded]).toEqual([24, 4, true]);
    expect([sum(beta!.completed), sum(beta!.failed), sum(beta!.retried)]).toEqual([4, 0, 3]);
    expect(gamma).toMatchObject({ recorded: false });
    expect(sum(gamma!.completed) + sum(gamma!.failed)).toBe(0);
    // Minute by minute as the history route has them (same window unless a minute turned).
    const history = await historyOf('alpha');
    if (history.from === body.from) {
      expect(alpha!.completed).toEqual(history.points.map((point) => point.completed));
      expect(alpha!.failed).toEqual(history.points.map((point) => point.failed));
    }
    const tooMany = Array.from({ length: 101 }, (_, i) => `${prefix}/q${i}`).join(',');
    expect((await viewer.get(`/api/metrics/sparklines?queues=${tooMany}`)).status).toBe(422);
    expect((await viewer.get('/api/metrics/sparklines?queues=no-slash')).status).toBe(422);
  });
});
