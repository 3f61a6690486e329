/**
 * Every dashboard in grafana/ shows data for a running system: a real Prometheus scrapes the
 * real console (`/api/prometheus`, with its bearer token) and the real worker runner
 * (`/metrics`) while this file keeps a load going, and then every expression of every panel
 * (grafana/src/index.ts, variables filled in) and every template variable query returns at
 * least one series with a number in it, including the expressions whose `emptyWhen` says an
 * empty answer can be right: this system is built so that those conditions do not hold.
 *
 * What the system holds, per dashboard need (docs/observability.md, docs/metrics.md):
 * - `$queue` (SUCCESS): completes everything, records the queue's own metrics, has a global
 *   concurrency (the "global limit" line) and a delayed job;
 * - FLAKY fails each job's first attempt (retries, `final="false"`), FAILING every attempt
 *   (`final="true"`), LIMITED runs under a rate limiter (a live limiter key);
 * - a flow every second whose children are slower than the flows arrive, so parents sit in
 *   waiting-children whenever Prometheus scrapes;
 * - UNSERVED has waiting jobs, all in tenant groups, and no worker ("Queues with waiting jobs
 *   and no worker").
 * Checks beside the dashboards' own (LOAD_EFFECTS) make sure these conditions really held during
 * the window, so that a panel cannot pass on series that merely sit at 0.
 * Stalled jobs and lost locks need no provoking: the runner exposes those counters at 0 from
 * the start and the dashboards read them through orZeroFor (grafana/src/promql-fragments.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allPanelExpressions,
  substituteVariables,
  variableQueries,
  type VariableValues,
} from '../../grafana/src/index';
import { FlowProducer, Queue } from 'oxmq';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus';
import { startRunnerProcess } from '../helpers/runner-process';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { startConsole, type ConsoleServer } from './console-server';
import { consoleEnv } from './users';

const TOKEN = randomBytes(16).toString('hex');
const PREFIX = `live-${randomUUID().slice(0, 8)}`;
const QUEUES = {
  success: 'live-success',
  flaky: 'live-flaky',
  failing: 'live-failing',
  limited: 'live-limited',
  flowParent: 'live-flow-parent',
  flowChild: 'live-flow-child',
  unserved: 'live-unserved',
} as const;
/** The global concurrency set on `$queue`; above the worker's own 2 slots, so it never binds. */
const GLOBAL_CONCURRENCY = 4;
/** How many successful scrapes of each target Prometheus must hold before the evaluation. */
const SCRAPES_WANTED = 20;
/** Over the 1 s scrape: covers the ≥ 20 s of samples the evaluation waits for. */
const RATE_INTERVAL = '30s';
const RUNNER_JOB = 'oxmq-runner';
const CONSOLE_JOB = 'oxmq-console';

const MODULES: Record<string, string> = {
  'success.ts': `
    export const queue = ${JSON.stringify(QUEUES.success)};
    // metrics: the queue's own per-minute counts (the "last minute" panel reads them).
    export const options = { concurrency: 2, metrics: { maxDataPoints: 60 } };
    export default async (job) => job.data.n;
  `,
  'flaky.ts': `
    export const queue = ${JSON.stringify(QUEUES.flaky)};
    export default async (job) => {
      if (job.attemptsMade === 0) throw new Error('first attempt fails');
      return 'second attempt works';
    };
  `,
  'failing.ts': `
    export const queue = ${JSON.stringify(QUEUES.failing)};
    export default async () => { throw new Error('never works'); };
  `,
  // Fewer starts allowed than the load adds, so the limiter key is live at most scrapes.
  'limited.ts': `
    export const queue = ${JSON.stringify(QUEUES.limited)};
    export const options = { limiter: { max: 2, duration: 1000 } };
    export default async () => 'limited';
  `,
  'flow-parent.ts': `
    export const queue = ${JSON.stringify(QUEUES.flowParent)};
    export default async (job) => Object.keys(await job.getChildrenValues()).length;
  `,
  // Two children of 600 ms per flow a second on one slot: children fall behind, parents wait.
  'flow-child.ts': `
    export const queue = ${JSON.stringify(QUEUES.flowChild)};
    export default async (job) => {
      await new Promise((resolve) => setTimeout(resolve, job.data.ms));
      return job.data.ms;
    };
  `,
};

/**
 * What the load must have produced within the last minute, each as an expression that is empty
 * unless it did: without these, most panels would pass on a system that only idles at 0.
 */
const LOAD_EFFECTS: readonly (readonly [string, string])[] = [
  [
    'jobs completed',
    `rate(oxmq_jobs_completed_total{prefix="${PREFIX}", queue="${QUEUES.success}"}[1m]) > 0`,
  ],
  [
    'attempts retried',
    `rate(oxmq_jobs_retried_total{prefix="${PREFIX}", queue="${QUEUES.flaky}"}[1m]) > 0`,
  ],
  [
    'jobs failed for good',
    `rate(oxmq_jobs_failed_total{prefix="${PREFIX}", queue="${QUEUES.failing}", final="true"}[1m]) > 0`,
  ],
  [
    'a live rate-limiter window (what the console reads as its TTL)',
    `max_over_time(oxmq_queue_rate_limit_ttl_seconds{prefix="${PREFIX}", queue="${QUEUES.limited}"}[1m]) > 0`,
  ],
  [
    'flow parents waiting for children',
    `max_over_time(bullmq_job_count{prefix="${PREFIX}", queue="${QUEUES.flowParent}", state="waiting-children"}[1m]) > 0`,
  ],
  [
    'a delayed job',
    `bullmq_job_count{prefix="${PREFIX}", queue="${QUEUES.success}", state="delayed"} > 0`,
  ],
  [
    'the queue metrics recorded',
    `max_over_time(bullmq_job_completed_total{prefix="${PREFIX}", queue="${QUEUES.success}"}[1m]) > 0`,
  ],
];

type Runner = ReturnType<typeof startRunnerProcess>;

let redis: RedisServer | undefined;
let consoleServer: ConsoleServer | undefined;
let runner: Runner | undefined;
let prometheus: RunningPrometheus | undefined;
let runnerTarget = '';
const queues = new Map<string, Queue>();
let flows: FlowProducer | undefined;
let load: Load | undefined;

interface Load {
  /** Jobs and flows added so far. */
  readonly added: () => number;
  readonly errors: string[];
  stop(): Promise<void>;
}

/**
 * Adds a job to each served queue every 100 ms and a flow every second until stopped, so that
 * every rate and histogram window of the evaluation has samples.
 */
function startLoad(): Load {
  const errors: string[] = [];
  let added = 0;
  let stopped = false;
  const queue = (name: string): Queue => {
    const found = queues.get(name);
    if (!found) throw new Error(`no queue ${name}`);
    return found;
  };
  const loop = (async () => {
    for (let tick = 0; !stopped; tick++) {
      const adds: Promise<unknown>[] = [
        queue(QUEUES.success).add('ok', { n: tick }),
        queue(QUEUES.flaky).add('flaky', { n: tick }, { attempts: 2 }),
        queue(QUEUES.failing).add('doomed', { n: tick }, { attempts: 1 }),
        queue(QUEUES.limited).add('limited', { n: tick }),
      ];
      if (tick % 10 === 0) {
        adds.push(
          flows!.add({
            name: 'parent',
            queueName: QUEUES.flowParent,
            data: { n: tick },
            children: [0, 1].map((child) => ({
              name: 'child',
              queueName: QUEUES.flowChild,
              data: { ms: 600, child },
            })),
          }),
        );
      }
      try {
        await Promise.all(adds);
        added += adds.length;
      } catch (error) {
        // Kept for the failure message: a load that stopped adding explains empty rates.
        if (errors.length < 10) errors.push(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    added: () => added,
    errors,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** Prometheus's answer as it came, so that a failure can show it. */
interface RawAnswer {
  readonly status: number;
  readonly text: string;
  readonly body?: {
    status?: string;
    error?: string;
    data?: { resultType?: string; result?: { metric: Record<string, string>; value: unknown }[] };
  };
}

async function rawQuery(expr: string): Promise<RawAnswer> {
  const response = await fetch(
    `${prometheus!.url}/api/v1/query?${new URLSearchParams({ query: expr })}`,
  );
  const text = await response.text();
  try {
    return { status: response.status, text, body: JSON.parse(text) as RawAnswer['body'] };
  } catch {
    return { status: response.status, text };
  }
}

/** Why an answer is not data (an error, no series, only NaN), or undefined when it is. */
function whyNotData(answer: RawAnswer): string | undefined {
  const body = answer.body;
  if (body?.status !== 'success') return `error ${answer.status}: ${body?.error ?? 'no JSON'}`;
  if (body.data?.resultType !== 'vector') return `a ${body.data?.resultType}, not a vector`;
  const result = body.data.result ?? [];
  if (result.length === 0) return 'no series';
  // A quantile of a rate that is 0 everywhere is NaN: a series, but nothing to draw.
  const numbers = result.filter((sample) => {
    const value = Array.isArray(sample.value) ? Number(sample.value[1]) : NaN;
    return Number.isFinite(value);
  });
  if (numbers.length === 0) return `${result.length} series, none with a finite value`;
  return undefined;
}

interface Check {
  readonly where: string;
  readonly expr: string;
  /** A label whose values must include `expected` (for the template variables). */
  readonly label?: string;
  readonly expected?: string;
}

function problemOf(check: Check, answer: RawAnswer): string | undefined {
  const why = whyNotData(answer);
  if (why) return why;
  if (check.label && check.expected !== undefined) {
    const values = (answer.body?.data?.result ?? []).map((s) => s.metric[check.label!]);
    if (!values.includes(check.expected)) {
      return `$${check.label} lists ${JSON.stringify(values)}, not ${check.expected}`;
    }
  }
  return undefined;
}

beforeAll(async () => {
  // A Redis of this file's own: the console then describes exactly the queues made here.
  redis = await startRedis();
  const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
  const redisUrl = `redis://127.0.0.1:${redis.port}`;
  runner = startRunnerProcess({
    modules: MODULES,
    // info, not the helper's debug: the load would otherwise log a line per job.
    env: { REDIS_URL: redisUrl, OXMQ_PREFIX: PREFIX, OXMQ_LOG_LEVEL: 'info' },
  });
  const [healthPort, started] = await Promise.all([
    runner.ready(60_000),
    startConsole(
      consoleEnv(redis.port, {
        OXMQ_PREFIXES: PREFIX,
        OXMQ_METRICS_TOKEN: TOKEN,
        OXMQ_METRICS_CACHE_MS: '500',
      }),
    ),
  ]);
  consoleServer = started;
  runnerTarget = `127.0.0.1:${healthPort}`;

  for (const name of Object.values(QUEUES)) {
    queues.set(name, new Queue(name, { connection, prefix: PREFIX }));
  }
  flows = new FlowProducer({ connection, prefix: PREFIX });
  const success = queues.get(QUEUES.success)!;
  await success.setGlobalConcurrency(GLOBAL_CONCURRENCY);
  await success.add('later', {}, { delay: 10 * 60_000 });
  // Tenant groups' jobs: they wait in their groups' lines, not in `wait`, and must count anyway.
  for (let n = 0; n < 3; n++) {
    await queues.get(QUEUES.unserved)!.add('nobody', { n }, { group: { id: `tenant-${n}` } });
  }

  load = startLoad();
  prometheus = await startPrometheus({
    scrapeInterval: '1s',
    scrapeConfigs: [
      {
        job_name: CONSOLE_JOB,
        metrics_path: '/api/prometheus',
        authorization: { type: 'Bearer', credentials: TOKEN },
        static_configs: [{ targets: [new URL(consoleServer.url).host] }],
      },
      {
        job_name: RUNNER_JOB,
        metrics_path: '/metrics',
        static_configs: [{ targets: [runnerTarget] }],
      },
    ],
  });
}, 90_000);

afterAll(async () => {
  // In dependency order: nothing adds while Redis goes away, nothing scrapes what is gone.
  await load?.stop();
  await prometheus?.stop();
  await runner?.dispose();
  await flows?.close();
  await Promise.all([...queues.values()].map((queue) => queue.close()));
  await consoleServer?.stop();
  await redis?.stop();
}, 60_000);

describe('the dashboards on a real Prometheus scraping a loaded system', () => {
  it('return data for every panel expression and every template variable', async () => {
    const prom = prometheus!;
    // Enough successful scrapes of both targets that every window holds ≥ 20 s of the load.
    // Under contention scrapes may fail; counting only `up == 1` samples keeps the bar honest.
    for (const job of [RUNNER_JOB, CONSOLE_JOB]) {
      await prom.waitForSeries(`sum_over_time(up{job="${job}"}[1m]) >= ${SCRAPES_WANTED}`, 60_000);
    }
    expect(load!.errors).toEqual([]);
    expect(load!.added()).toBeGreaterThan(0);

    const values: VariableValues = {
      prefix: PREFIX,
      queue: QUEUES.success,
      instance: runnerTarget,
      __rate_interval: RATE_INTERVAL,
    };
    const panels = allPanelExpressions(values);
    // Not vacuous: the four dashboards, and the emptyWhen expressions among them.
    expect(new Set(panels.map((p) => p.dashboard)).size).toBe(4);
    expect(panels.length).toBeGreaterThan(40);
    expect(panels.filter((p) => p.emptyWhen).length).toBeGreaterThanOrEqual(2);

    const expected: Record<string, string> = {
      prefix: PREFIX,
      queue: QUEUES.success,
      instance: runnerTarget,
    };
    const checks: Check[] = [
      ...panels.map((p) => ({
        where:
          `${p.dashboard} "${p.panel}" (panel ${p.panelId}) ${p.refId}` +
          (p.emptyWhen ? ` [emptyWhen: ${p.emptyWhen}]` : ''),
        expr: p.expr,
      })),
      // label_values() is Grafana's; as a query it is the label's values under the selector.
      ...variableQueries().map((v) => ({
        where: `${v.dashboard} $${v.variable} (${v.query})`,
        expr: `group by (${v.label}) (${substituteVariables(v.selector, values)})`,
        label: v.label,
        expected: expected[v.label],
      })),
      // The load makes what the panels exist to show, not only zeros (see the header).
      ...LOAD_EFFECTS.map(([what, expr]) => ({ where: `load: ${what}`, expr })),
    ];

    // One pass over everything; whatever is not data yet gets a few more seconds (a scrape
    // can land between two evaluations), then is reported with Prometheus's raw answer.
    let pending = checks;
    const last = new Map<Check, { problem: string; answer: RawAnswer }>();
    const deadline = Date.now() + 15_000;
    for (;;) {
      const still: Check[] = [];
      for (const check of pending) {
        const answer = await rawQuery(check.expr);
        const problem = problemOf(check, answer);
        if (problem) {
          still.push(check);
          last.set(check, { problem, answer });
        }
      }
      pending = still;
      if (pending.length === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }

    const failures = pending.map((check) => {
      const { problem, answer } = last.get(check)!;
      return `${check.where}: ${problem}\n  expr: ${check.expr}\n  prometheus: ${answer.text.slice(0, 2_000)}`;
    });
    expect(failures, `empty or failing expressions:\n${failures.join('\n\n')}`).toEqual([]);
  }, 90_000);
});
