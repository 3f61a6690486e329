/**
 * The worker runner's GET /metrics (docs/metrics.md, "Worker runner"): what its workers did,
 * in Prometheus text, through the OpenTelemetry metrics API and its Prometheus exporter. The
 * real runner process serves modules that complete, retry, fail, stall and lose their locks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, waitFor } from '../helpers/redis';
import { useRunners, type RunnerProcess } from '../helpers/runner-process';
import { metricSections, parsePrometheusText, sampleValue } from '../helpers/prometheus-text';

const track = useCleanup();
const startRunner = useRunners();

const MODULES = {
  'ok.ts': `
    export const queue = 'ok';
    export const options = { concurrency: 3 };
    export default async (job) => ({ n: job.data.n });
  `,
  'flaky.ts': `
    export const queue = 'flaky';
    export default async (job) => {
      if (job.attemptsMade === 0) throw new Error('first attempt fails');
      return 'second attempt works';
    };
  `,
  'doomed.ts': `
    export const queue = 'doomed';
    export default async () => { throw new Error('never works'); };
  `,
  // Short locks and stalled checks, so a lost lock and a stalled job show within the test.
  'fragile.ts': `
    export const queue = 'fragile';
    export const options = { lockDuration: 600, stalledInterval: 300, concurrency: 2 };
    export default async (job) => {
      await new Promise((resolve) => setTimeout(resolve, job.data.ms));
      return 'slept';
    };
  `,
};

async function scrape(runner: RunnerProcess): Promise<string> {
  const port = await runner.ready();
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

describe('worker runner /metrics', () => {
  it('counts outcomes, times attempts, and exposes exactly the documented families', async () => {
    const runner = startRunner({ modules: MODULES });
    await runner.ready();
    const labels = (queue: string) => ({ prefix: runner.prefix, queue });
    const queue = (name: string) =>
      track(new Queue(name, { connection: redisOptions(), prefix: runner.prefix }));

    // Before any job: every counter is there at 0, the slots of each worker are counted.
    const before = parsePrometheusText(await scrape(runner));
    expect(sampleValue(before, 'oxmq_jobs_completed_total', labels('ok'))).toBe(0);
    expect(sampleValue(before, 'oxmq_jobs_failed_total', { ...labels('ok'), final: 'true' })).toBe(
      0,
    );
    expect(sampleValue(before, 'oxmq_worker_concurrency', labels('ok'))).toBe(3);
    expect(sampleValue(before, 'oxmq_worker_concurrency', labels('fragile'))).toBe(2);

    const ok = queue('ok');
    for (let n = 0; n < 5; n += 1) await ok.add('n', { n });
    await queue('flaky').add('flaky', {}, { attempts: 2 });
    await queue('doomed').add('doomed', {}, { attempts: 1 });

    // A job the lock of which the test takes away while it runs: the renewal fails.
    const redis = track(rawClient());
    const fragile = queue('fragile');
    const slow = await fragile.add('slow', { ms: 1500 }, { jobId: 'slow-job-7f3a' });
    await waitFor(async () => (await fragile.getJobState(slow.id)) === 'active');
    await redis.del(`${runner.prefix}:fragile:${slow.id}:lock`);

    // A job stuck in active with no lock, as a crashed worker leaves it: the checker finds it.
    const stuck = await fragile.add('stuck', { ms: 1 }, { delay: 60_000 });
    await redis
      .multi()
      .zrem(`${runner.prefix}:fragile:delayed`, stuck.id)
      .lpush(`${runner.prefix}:fragile:active`, stuck.id)
      .exec();

    const text = await waitFor(async () => {
      const body = await scrape(runner);
      const parsed = parsePrometheusText(body);
      const settled =
        sampleValue(parsed, 'oxmq_jobs_completed_total', labels('ok')) === 5 &&
        sampleValue(parsed, 'oxmq_jobs_completed_total', labels('flaky')) === 1 &&
        sampleValue(parsed, 'oxmq_jobs_failed_total', { ...labels('doomed'), final: 'true' }) ===
          1 &&
        (sampleValue(parsed, 'oxmq_lock_renewal_failures_total', labels('fragile')) ?? 0) >= 1 &&
        (sampleValue(parsed, 'oxmq_jobs_stalled_total', labels('fragile')) ?? 0) >= 1;
      return settled ? body : undefined;
    }, 20_000);
    const after = parsePrometheusText(text!);

    expect(
      sampleValue(after, 'oxmq_jobs_failed_total', { ...labels('flaky'), final: 'false' }),
    ).toBe(1);
    expect(
      sampleValue(after, 'oxmq_jobs_failed_total', { ...labels('flaky'), final: 'true' }),
    ).toBe(0);
    expect(sampleValue(after, 'oxmq_jobs_retried_total', labels('flaky'))).toBe(1);
    expect(sampleValue(after, 'oxmq_jobs_retried_total', labels('ok'))).toBe(0);
    expect(sampleValue(after, 'oxmq_job_processing_duration_seconds_count', labels('ok'))).toBe(5);
    // Waits are recorded for first attempts only: 5 jobs of `ok`, 1 of `flaky`.
    expect(sampleValue(after, 'oxmq_job_wait_time_seconds_count', labels('ok'))).toBe(5);
    expect(sampleValue(after, 'oxmq_job_wait_time_seconds_count', labels('flaky'))).toBe(1);
    expect(
      sampleValue(after, 'oxmq_job_processing_duration_seconds_bucket', {
        ...labels('ok'),
        le: '+Inf',
      }),
    ).toBe(5);
    expect(sampleValue(after, 'oxmq_worker_jobs_in_flight', labels('ok'))).toBe(0);
    expect(sampleValue(after, 'oxmq_event_loop_lag_seconds', {})).toBeGreaterThanOrEqual(0);

    // The buckets are the documented ones.
    const les = after.samples
      .filter(
        (s) => s.name === 'oxmq_job_processing_duration_seconds_bucket' && s.labels.queue === 'ok',
      )
      .map((s) => s.labels.le);
    expect(les).toEqual([
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '30',
      '60',
      '300',
      '+Inf',
    ]);

    // The families exposed are exactly docs/metrics.md's runner table (plus the exporter's target_info).
    const documented = metricSections(readFileSync('docs/metrics.md', 'utf8')).runner;
    const exposed = [...after.families.keys()].filter((name) => name !== 'target_info').sort();
    expect(exposed).toEqual([...documented].sort());
    // Never a job id in a label.
    for (const sample of after.samples) {
      expect(Object.keys(sample.labels).sort()).not.toContain('jobId');
      expect(Object.values(sample.labels)).not.toContain(slow.id);
    }
  });

  it('answers 405 to a POST and keeps serving health', async () => {
    const runner = startRunner({ modules: { 'ok.ts': MODULES['ok.ts'] } });
    const port = await runner.ready();
    const post = await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect((await runner.get('/livez')).status).toBe(200);
  });
});
