/**
 * The demo, run for real: the worker runner (runner/main.ts) hosting demo/processors and the
 * producer (demo/producer.ts), as child processes against the run's redis-server, sped up with
 * OXMQ_DEMO_SPEED. Every demo queue must show what docs/demo.md says it shows. A second case runs
 * the producer alone: signals stop it with exit 0, a restart does not duplicate the scheduler,
 * and without workers the backlog stops at the cap.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, type Job } from 'oxmq';
import { BACKLOG_CAP } from '../../demo/feeds';
import {
  DEMO_QUEUES,
  DIGEST_SCHEDULER_ID,
  PARTNER_API_LIMIT,
  type DemoQueueName,
} from '../../demo/queues';
import { useCleanup } from '../helpers/cleanup';
import { redisUrl, sleep, waitFor } from '../helpers/redis';

const track = useCleanup();
const ROOT = path.resolve(__dirname, '../..');
/** processedOn is the worker's clock at moveToActive: allow this much scheduling noise. */
const CLOCK_SLACK_MS = 100;

// An empty config file of our own, so an oxmq.config.json in the checkout never leaks in.
const configDir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-demo-test-'));
const configFile = path.join(configDir, 'oxmq.config.json');
writeFileSync(configFile, '{}');
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

interface Child {
  process: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

function start(script: string, env: Record<string, string>): Child {
  // The parent's environment minus every demo setting: the test decides them all.
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(childEnv)) {
    if (key.startsWith('OXMQ_') || key === 'REDIS_URL') delete childEnv[key];
  }
  Object.assign(childEnv, { OXMQ_CONFIG: configFile, REDIS_URL: redisUrl() }, env);
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  track({
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  });
  return { process: child, lines, exited };
}

function logged(child: Child, msg: string): Record<string, unknown> | undefined {
  for (const line of child.lines) {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === msg) return entry;
    } catch {
      // not a log line (e.g. a stack trace from a crash): shown when an assertion fails
    }
  }
  return undefined;
}

/** Sends `signal` and waits for the exit; a death by signal throws with the child's last lines. */
async function stop(child: Child, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  child.process.kill(signal);
  const code = await child.exited;
  if (code === null) {
    throw new Error(
      `killed by ${child.process.signalCode} after ${signal}; last lines:\n${child.lines.slice(-10).join('\n')}`,
    );
  }
  return code;
}

function queuesOf(prefix: string): Record<DemoQueueName, Queue> {
  return Object.fromEntries(
    Object.values(DEMO_QUEUES).map((name) => [
      name,
      track(new Queue(name, { connection: redisUrl(), prefix })),
    ]),
  ) as Record<DemoQueueName, Queue>;
}

/** The most starts any half-open interval [t, t + length) holds. */
function busiestWindow(starts: number[], length: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let best = 0;
  let tail = 0;
  for (let head = 0; head < sorted.length; head++) {
    while (sorted[head]! - sorted[tail]! >= length) tail++;
    best = Math.max(best, head - tail + 1);
  }
  return best;
}

const ALL_STATES = ['completed', 'failed', 'delayed', 'waiting', 'active'] as const;

describe('the demo (runner + producer)', () => {
  it('fills every demo queue with what the tour shows', async () => {
    const prefix = `demo${randomUUID().slice(0, 8)}`;
    const env = { OXMQ_PREFIX: prefix, OXMQ_DEMO_SPEED: '4', OXMQ_LOG_LEVEL: 'info' };
    const runner = start('runner/main.ts', {
      ...env,
      OXMQ_PROCESSORS_DIR: 'demo/processors',
      WORKER_HEALTH_PORT: '0',
      OXMQ_SHUTDOWN_TIMEOUT_MS: '5000',
    });
    await waitFor(() => logged(runner, 'runner ready'), 15_000, 100).catch(() => {
      throw new Error(`runner not ready:\n${runner.lines.join('\n')}`);
    });
    const producer = start('demo/producer.ts', env);
    const queues = queuesOf(prefix);

    const everyQueueCompleted = async () => {
      const counts = await Promise.all(
        Object.values(queues).map((queue) => queue.getJobCountByTypes('completed')),
      );
      const retried = (await queues.reports.getJobs([...ALL_STATES])).some(
        (job) => job.attemptsMade > 1,
      );
      return counts.every((count) => count > 0) && retried;
    };
    await waitFor(everyQueueCompleted, 25_000, 250).catch(async () => {
      const counts = await Promise.all(
        Object.entries(queues).map(
          async ([name, q]) => `${name}: ${JSON.stringify(await q.getJobCounts())}`,
        ),
      );
      throw new Error(`demo queues did not all complete jobs:\n${counts.join('\n')}`);
    });

    expect(await stop(producer)).toBe(0);
    expect(logged(producer, 'demo producer stopped')).toBeDefined();
    expect(await stop(runner)).toBe(0);

    // transcode (sandboxed): progress reported in steps, and the steps' log lines.
    const [transcoded] = await queues.transcode.getJobs(['completed'], 0, 0);
    expect(transcoded?.progress).toBe(100);
    const logs = await queues.transcode.getJobLogs(transcoded!.id);
    expect(logs.logs).toEqual(expect.arrayContaining(['probing input', 'encoding 1080p']));

    // orders: each parent ran only after its payments and inventory children had finished, and
    // shipped with their results.
    const shipped = await queues.orders.getJobs(['completed']);
    expect(shipped.length).toBeGreaterThan(0);
    for (const order of shipped) {
      const values = await order.getChildrenValues();
      const children = await Promise.all(
        Object.keys(values).map(async (key) => {
          const [, queueName, id] = key.split(':') as [string, DemoQueueName, string];
          return { queueName, job: (await queues[queueName].getJob(id)) as Job };
        }),
      );
      expect(children.map((child) => child.queueName).sort()).toEqual(['inventory', 'payments']);
      for (const { job } of children) {
        expect(job.finishedOn).toBeLessThanOrEqual(order.processedOn!);
      }
      const payment = children.find((child) => child.queueName === 'payments')!.job;
      expect((order.returnvalue as { paymentId: string }).paymentId).toBe(
        (payment.returnvalue as { paymentId: string }).paymentId,
      );
    }

    // reports: retried with backoff; every finished job shows its attempts.
    const reports = await queues.reports.getJobs([...ALL_STATES]);
    expect(reports.some((job) => job.attemptsMade > 1)).toBe(true);
    expect(reports.every((job) => job.opts.attempts === 4)).toBe(true);

    // partner-api: never more starts than the limit in any window, although bursts queued.
    const calls = await queues['partner-api'].getJobs(['completed']);
    const starts = calls.map((job) => job.processedOn!);
    expect(starts.length).toBeGreaterThan(PARTNER_API_LIMIT.max * 2);
    expect(busiestWindow(starts, PARTNER_API_LIMIT.duration - CLOCK_SLACK_MS)).toBeLessThanOrEqual(
      PARTNER_API_LIMIT.max,
    );

    // digest: fed by the scheduler, which is still there for the next start.
    const scheduler = await queues.digest.getJobScheduler(DIGEST_SCHEDULER_ID);
    expect(scheduler?.every).toBe(30_000 / 4);
    const digests = await queues.digest.getJobs(['completed']);
    expect(digests.every((job) => job.repeatJobKey === DIGEST_SCHEDULER_ID)).toBe(true);

    // tenant-sync: every job in its tenant's group, one at a time per group.
    const synced = await queues['tenant-sync'].getJobs(['completed']);
    expect(synced.every((job) => job.opts.group?.id === job.data.tenant)).toBe(true);
    expect((await queues['tenant-sync'].getGroupDefaults()).concurrency).toBe(1);
  }, 45_000);
});

describe('the demo producer alone', () => {
  it('stops on SIGTERM and SIGINT with exit 0, restarts without duplicates, caps the backlog', async () => {
    const prefix = `demo${randomUUID().slice(0, 8)}`;
    // Very fast and no workers: emails pile up to the cap within a second.
    const env = { OXMQ_PREFIX: prefix, OXMQ_DEMO_SPEED: '100', OXMQ_LOG_LEVEL: 'info' };
    const queues = queuesOf(prefix);

    const first = start('demo/producer.ts', env);
    await waitFor(
      () =>
        logged(
          first,
          'backlog over the cap: not adding until workers catch up (is the worker running?)',
        ),
      15_000,
      100,
    );
    await sleep(500);
    expect(await stop(first, 'SIGTERM')).toBe(0);
    const emails = await queues.emails.getJobCountByTypes('waiting');
    // Each feed checks the backlog before each add and adds one turn at a time: exactly the cap.
    expect(emails).toBe(BACKLOG_CAP);

    const second = start('demo/producer.ts', env);
    await waitFor(() => logged(second, 'demo producer started'), 15_000, 100);
    expect(await stop(second, 'SIGINT')).toBe(0);
    expect(logged(second, 'demo producer stopped')).toBeDefined();
    expect(await queues.digest.getJobSchedulersCount()).toBe(1);
    expect(await queues.emails.getJobCountByTypes('waiting')).toBe(BACKLOG_CAP);
  }, 40_000);
});
