/**
 * The engine's worker metrics through a real OpenTelemetry MeterProvider (its Prometheus reader,
 * read in process): the wait of a delayed job counts from when it became due, not from when
 * it was added (the hash's `delay` is reset when the job is promoted).
 */
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const reader = new PrometheusExporter({ preventServerStart: true });
const provider = new MeterProvider({ readers: [reader] });
metrics.setGlobalMeterProvider(provider);
afterAll(async () => {
  await provider.shutdown();
  metrics.disable();
});

const track = useCleanup();

async function scrape() {
  const { resourceMetrics } = await reader.collect();
  return parsePrometheusText(new PrometheusSerializer().serialize(resourceMetrics));
}

describe('worker metrics', () => {
  it('times the wait of a delayed job from when it became due', async () => {
    const name = uniqueQueueName('wait-delayed');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    let done = 0;
    const worker = track(new Worker(name, async () => 'ok', { connection: redisOptions() }));
    worker.on('completed', () => (done += 1));
    await queue.add('later', {}, { delay: 1_500 });
    await waitFor(() => done === 1, 15_000);
    const parsed = await scrape();
    const labels = { prefix: 'bull', queue: name };
    expect(sampleValue(parsed, 'oxmq_job_wait_time_seconds_count', labels)).toBe(1);
    // Due after 1.5 s, started soon after: well under the delay itself.
    expect(sampleValue(parsed, 'oxmq_job_wait_time_seconds_sum', labels)).toBeLessThan(1);
    expect(sampleValue(parsed, 'oxmq_jobs_completed_total', labels)).toBe(1);
  });
});
