/**
 * One viewer cannot slow the console for everyone else: twenty concurrent text searches whose
 * needle has no letters (the prefilter cannot rule out any job, so every job of 5,000 is parsed,
 * redacted and serialized) run while an admin keeps using the console. Every admin request must
 * be answered in full within the bound, and no answer of any kind may be a 5xx: the searches are
 * answered 200 or refused 429 with Retry-After. Against a console of this file's own, so the
 * per-process search gate and rate budgets start empty.
 */
import { Queue } from 'oxmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiError } from '../../lib/api-types';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { ADMIN, consoleEnv, VIEWER } from './users';

const JOBS = 5_000;
const SEARCHES = 20;
/** The longest an admin request may take, from its start to the end of its body. */
const BOUND_MS = 1_500;

let server: ConsoleServer;
let queue: Queue;
let viewer: ConsoleClient;
let admin: ConsoleClient;
const name = uniqueQueueName('search-load');

/** About 1.6 KB of JSON: many keys and strings, the redaction's per-job work. */
function data(i: number): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: 48 }, (_, k) => [`someLongerKey${k}`, `value-${i}-${k}`]),
  );
}

beforeAll(async () => {
  server = await startConsole(consoleEnv(inject('redisPort')));
  queue = new Queue(name, { connection: redisOptions() });
  expect(JSON.stringify(data(JOBS)).length).toBeGreaterThan(1_500);
  for (let from = 0; from < JOBS; from += 1_000) {
    await queue.addBulk(
      Array.from({ length: 1_000 }, (_, k) => ({ name: 'order', data: data(from + k) })),
    );
  }
  viewer = await signIn(server.url, VIEWER);
  admin = await signIn(server.url, ADMIN);
  // The first request of each route loads its code; the bound is about steady state.
  for (const path of ['/api/queues', '/api/health'])
    expect((await admin.get(path)).status).toBe(200);
  expect((await viewer.get(`/api/queues/bull/${name}/search?mode=name&q=x`)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await queue?.obliterate({ force: true });
  await queue?.close();
  await server?.stop();
});

interface Timed {
  path: string;
  status: number;
  ms: number;
}

/** A request timed from its start to the end of its body. */
async function timed(client: ConsoleClient, path: string): Promise<Timed & { body: string }> {
  const started = performance.now();
  const response = await client.get(path);
  const body = await response.text();
  return { path, status: response.status, ms: performance.now() - started, body };
}

describe('heavy searches by one viewer', () => {
  it('leave other users answered within the bound, and nothing answers 5xx', async () => {
    const searchPath = `/api/queues/bull/${name}/search?mode=text&q=${encodeURIComponent('::::9')}&state=waiting`;
    const searches = Array.from({ length: SEARCHES }, async () => {
      const response = await viewer.get(searchPath);
      const body = await response.text();
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
    });
    let searching = true;
    const settled = Promise.allSettled(searches).finally(() => {
      searching = false;
    });

    // The admin works the console until the last search has been answered.
    const answered: Timed[] = [];
    const paths = ['/api/queues', '/api/health'];
    while (searching) {
      const { body: _body, ...one } = await timed(admin, paths[answered.length % paths.length]!);
      answered.push(one);
    }
    const results = await settled;

    const outcomes = results.map((result) =>
      result.status === 'fulfilled' ? result.value : { status: -1, retryAfter: null, body: '' },
    );
    const statuses = outcomes.map((outcome) => outcome.status);
    const slowest = Math.max(...answered.map((one) => one.ms));
    console.log(
      `search load: ${answered.length} admin requests, slowest ${Math.round(slowest)} ms; ` +
        `search answers ${JSON.stringify(countBy(statuses))}; admin answers ${JSON.stringify(
          countBy(answered.map((one) => one.status)),
        )}`,
    );

    expect(answered.length).toBeGreaterThanOrEqual(3);
    expect(answered.filter((one) => one.status !== 200)).toEqual([]);
    expect(answered.filter((one) => one.ms > BOUND_MS)).toEqual([]);
    // Each search is answered or refused cleanly; at least one really ran.
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    expect(statuses).toContain(200);
    for (const outcome of outcomes.filter((one) => one.status === 429)) {
      expect(Number(outcome.retryAfter)).toBeGreaterThan(0);
      expect(['SEARCH_BUSY', 'RATE_LIMITED']).toContain(
        (JSON.parse(outcome.body) as ApiError).code,
      );
    }
  }, 180_000);
});

function countBy(values: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
