/**
 * A worker's instruments (docs/metrics.md, "Worker runner"), recorded through the OpenTelemetry
 * metrics API, or through bullmq's `telemetry.meter` when one is given. Without a registered
 * MeterProvider the API hands out no-op instruments, so recording costs a call and nothing more.
 * The meter is taken when the worker is built: register a provider before creating workers.
 */
import { metrics } from '@opentelemetry/api';
import { OXMQ_VERSION } from '../version';
import type { TelemetryAttributes, TelemetryMeter } from './bullmq-telemetry';

/** Fixed buckets (seconds), listed in docs/metrics.md so dashboards and alerts can rely on them. */
export const PROCESSING_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];
export const WAIT_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800, 3600];

export const WORKER_METRIC_NAMES = {
  completed: 'oxmq_jobs_completed',
  failed: 'oxmq_jobs_failed',
  retried: 'oxmq_jobs_retried',
  stalled: 'oxmq_jobs_stalled',
  processing: 'oxmq_job_processing_duration_seconds',
  wait: 'oxmq_job_wait_time_seconds',
  inFlight: 'oxmq_worker_jobs_in_flight',
  concurrency: 'oxmq_worker_concurrency',
  lockFailures: 'oxmq_lock_renewal_failures',
} as const;

interface Adder {
  add(value: number, attributes?: TelemetryAttributes): void;
}

/** A meter that may also have up-down counters (OpenTelemetry's does; bullmq's interface not). */
type MeterLike = TelemetryMeter & {
  createUpDownCounter?(name: string, options?: { description?: string; unit?: string }): Adder;
};

/**
 * A sum that goes up and down. With only synchronous gauges (bullmq's meter) this worker's own
 * running total is recorded instead, which is right while one worker serves a queue per process.
 */
function upDown(meter: MeterLike, name: string, description: string): Adder {
  if (meter.createUpDownCounter) return meter.createUpDownCounter(name, { description });
  const gauge = meter.createGauge(name, { description });
  let total = 0;
  return {
    add(value, attributes) {
      total += value;
      gauge.record(total, attributes);
    },
  };
}

export class WorkerMetrics {
  private readonly base: TelemetryAttributes;
  private readonly finalFailure: TelemetryAttributes;
  private readonly retriedFailure: TelemetryAttributes;
  private readonly completed;
  private readonly failed;
  private readonly retried;
  private readonly stalled;
  private readonly processing;
  private readonly wait;
  private readonly inFlight: Adder;
  private readonly concurrency: Adder;
  private readonly lockFailures;

  constructor(prefix: string, queue: string, meter?: TelemetryMeter) {
    const source: MeterLike = meter ?? metrics.getMeter('oxmq', OXMQ_VERSION);
    this.base = { prefix, queue };
    this.finalFailure = { prefix, queue, final: 'true' };
    this.retriedFailure = { prefix, queue, final: 'false' };
    const names = WORKER_METRIC_NAMES;
    this.completed = source.createCounter(names.completed, { description: 'Jobs completed' });
    this.failed = source.createCounter(names.failed, {
      description: 'Failed attempts; final="true" when the job moved to failed',
    });
    this.retried = source.createCounter(names.retried, {
      description: "Attempts started that are not a job's first",
    });
    this.stalled = source.createCounter(names.stalled, {
      description: 'Jobs found stalled by this process',
    });
    // `advice` is OpenTelemetry's way to fix buckets; bullmq's meter ignores what it lacks.
    this.processing = source.createHistogram(names.processing, {
      description: 'Processing time of one attempt',
      unit: 's',
      advice: { explicitBucketBoundaries: PROCESSING_BUCKETS },
    } as { description: string; unit: string });
    this.wait = source.createHistogram(names.wait, {
      description: 'Time from when a job became due to the start of its first attempt',
      unit: 's',
      advice: { explicitBucketBoundaries: WAIT_BUCKETS },
    } as { description: string; unit: string });
    this.inFlight = upDown(source, names.inFlight, 'Jobs running now');
    this.concurrency = upDown(source, names.concurrency, 'Slots of the running workers');
    this.lockFailures = source.createCounter(names.lockFailures, {
      description: 'Job locks this process failed to extend',
    });
    // Every counter exists from the start, so rate() and alerts see a 0 rather than no series.
    for (const counter of [this.completed, this.retried, this.stalled, this.lockFailures]) {
      counter.add(0, this.base);
    }
    this.failed.add(0, this.finalFailure);
    this.failed.add(0, this.retriedFailure);
  }

  /** An attempt starts: `waitMs` is set on a job's first attempt only. */
  started(retry: boolean, waitMs: number | undefined): void {
    this.inFlight.add(1, this.base);
    if (retry) this.retried.add(1, this.base);
    if (waitMs !== undefined) this.wait.record(Math.max(0, waitMs) / 1000, this.base);
  }

  /** An attempt ends (whatever its outcome), after `durationMs` of processing. */
  ended(durationMs: number): void {
    this.inFlight.add(-1, this.base);
    this.processing.record(durationMs / 1000, this.base);
  }

  jobCompleted(): void {
    this.completed.add(1, this.base);
  }

  jobFailed(final: boolean): void {
    this.failed.add(1, final ? this.finalFailure : this.retriedFailure);
  }

  jobsStalled(count: number): void {
    this.stalled.add(count, this.base);
  }

  lockRenewalFailed(count: number): void {
    this.lockFailures.add(count, this.base);
  }

  slotsOpened(count: number): void {
    this.concurrency.add(count, this.base);
  }

  slotsClosed(count: number): void {
    this.concurrency.add(-count, this.base);
  }
}
