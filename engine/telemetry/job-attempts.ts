/**
 * A worker's view of one attempt of a job: its CONSUMER span (when tracing is on) and its
 * metrics (always). The worker starts an attempt when it takes a job, notes the outcome where
 * it records it, and ends the attempt when the job leaves its hands.
 */
import type { TimingRecorder } from '../history/timing-recorder';
import type { Job } from '../job/job';
import type { JobSpan, JobTracer, SpanAttributes, TraceCarrier } from './job-tracer';
import { ATTR, MESSAGING_SYSTEM, SPAN_EVENT, spanName, type JobOutcome } from './semconv';
import type { WorkerMetrics } from './worker-metrics';

/** What a job stores of the context its spans continue. */
export function carrierOfJob(job: Job): TraceCarrier {
  return {
    traceparent: job.traceparent,
    tracestate: job.tracestate,
    metadata: job.opts.telemetry?.metadata,
  };
}

export interface AttemptSource {
  readonly name: string;
  readonly prefix: string;
  /** A tracer that throws (a user's adapter): reported, and the job runs without a span. */
  onError(error: unknown): void;
}

/** Where an attempt's timing goes: the worker's timing history (when it keeps one), by job name. */
interface AttemptHistory {
  recorder?: TimingRecorder;
  name: string;
}

/** What the attempts of one batch share: the first failure is recorded in full, once. */
interface BatchShare {
  jobId: string;
  failures: { count: number };
}

export class Attempt {
  private readonly startedAt = performance.now();
  private outcome?: JobOutcome;

  /**
   * `batch` is set for the attempts of a batch: they share the batch's span, so their outcomes
   * are events naming the job, and the batch ends the span once.
   */
  constructor(
    readonly span: JobSpan | undefined,
    private readonly metrics: WorkerMetrics,
    private readonly history: AttemptHistory,
    private readonly batch?: BatchShare,
  ) {}

  completed(): void {
    this.metrics.jobCompleted();
    this.history.recorder?.ended(this.history.name, 'completed', this.elapsedMs());
    this.setOutcome('completed');
  }

  /** A failed attempt: retried after `delay` ms, or failed for good (delay < 0). */
  failed(error: unknown, delay: number, attempt: number): void {
    const final = delay < 0;
    this.metrics.jobFailed(final);
    this.history.recorder?.ended(this.history.name, final ? 'failed' : 'retried', this.elapsedMs());
    this.recordFailure(error);
    if (!final) this.event(SPAN_EVENT.retry, { [ATTR.delay]: delay, [ATTR.attempt]: attempt });
    this.setOutcome(final ? 'failed' : 'retried');
  }

  /** The job left by another path (delayed, rate limited, waiting for children, ...). */
  moved(outcome: JobOutcome, event: string, attributes?: SpanAttributes): void {
    this.event(event, attributes);
    this.setOutcome(outcome);
  }

  private event(name: string, attributes: SpanAttributes = {}): void {
    if (!this.span) return;
    const named = this.batch ? { ...attributes, [ATTR.messageId]: this.batch.jobId } : attributes;
    this.span.addEvent(name, named);
  }

  /**
   * ERROR with the exception; in a batch only the first failure carries the whole exception
   * (a batch of 1,000 failures must not make one huge span), the others an event each.
   */
  private recordFailure(error: unknown): void {
    if (!this.span) return;
    if (this.batch && this.batch.failures.count++ > 0) {
      const name = error instanceof Error ? error.name : 'Error';
      this.event(SPAN_EVENT.failed, { [ATTR.errorType]: name });
      return;
    }
    this.span.fail(error);
  }

  /** A failure the worker could not record (the job stays where Redis has it). */
  unrecorded(error: unknown): void {
    this.recordFailure(error);
  }

  private setOutcome(outcome: JobOutcome): void {
    this.outcome = outcome;
    if (!this.batch) this.span?.setAttributes({ [ATTR.outcome]: outcome });
  }

  private elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /** Records the attempt's duration and ends its span. */
  end(): void {
    this.metrics.ended(this.elapsedMs());
    const span = this.span;
    if (!span || this.batch) return;
    if (!this.outcome) span.setAttributes({ [ATTR.outcome]: 'unknown' });
    span.end();
  }
}

export class JobAttempts {
  private readonly attempts = new WeakMap<Job, Attempt>();

  constructor(
    private readonly tracer: JobTracer,
    readonly metrics: WorkerMetrics,
    private readonly source: AttemptSource,
    private readonly history?: TimingRecorder,
  ) {}

  /**
   * Jobs the stalled checker found without a live lock: a short span each, in the job's own
   * trace, so the trace shows the stall between the attempt that died and the next one.
   */
  recordStalls(stalled: { jobId: string; carrier: TraceCarrier; stalledCount: number }[]): void {
    for (const { jobId, carrier, stalledCount } of stalled) {
      const span = this.startSpan(() => ({
        name: spanName('stalled', this.source.name),
        kind: 'consumer',
        parent: carrier,
        attributes: {
          [ATTR.system]: MESSAGING_SYSTEM,
          [ATTR.destination]: this.source.name,
          [ATTR.messageId]: jobId,
          [ATTR.prefix]: this.source.prefix,
          [ATTR.stalledCount]: stalledCount,
        },
      }));
      span?.addEvent(SPAN_EVENT.stalled, { [ATTR.stalledCount]: stalledCount });
      span?.end();
    }
  }

  private attributesOf(job: Job): SpanAttributes {
    return {
      [ATTR.system]: MESSAGING_SYSTEM,
      [ATTR.destination]: this.source.name,
      [ATTR.operationType]: 'process',
      [ATTR.operationName]: 'process',
      [ATTR.messageId]: job.id,
      [ATTR.prefix]: this.source.prefix,
      [ATTR.jobName]: job.name,
      [ATTR.attempt]: job.attemptsStarted,
      [ATTR.group]: job.opts.group?.id,
    };
  }

  /**
   * A start beyond the first is a restart (after a failure, a stall, a rate-limit give-back, a
   * wait for children). The wait of a first start counts from when the job became due: its
   * creation plus the delay it was added with (`opts.delay`: the hash's `delay` is reset to 0
   * when a delayed job is promoted).
   */
  private recordStart(job: Job): void {
    const restart = job.attemptsStarted > 1;
    const waitMs = restart ? undefined : Date.now() - job.timestamp - (job.opts.delay ?? 0);
    this.metrics.started(restart, waitMs);
    this.history?.started(job.name, waitMs);
  }

  /**
   * Starts a span, or reports the tracer's failure and goes on without one. The options are
   * built only when a tracer is on: without one, a job pays for no attributes or carrier.
   */
  private startSpan(options: () => Parameters<JobTracer['start']>[0]): JobSpan | undefined {
    try {
      return this.tracer.isEnabled() ? this.tracer.start(options()) : undefined;
    } catch (error) {
      this.source.onError(error);
      return undefined;
    }
  }

  /** The attempt of one job, with a span of its own. */
  start(job: Job): Attempt {
    this.recordStart(job);
    const span = this.startSpan(() => ({
      name: spanName('process', this.source.name),
      kind: 'consumer',
      parent: carrierOfJob(job),
      attributes: this.attributesOf(job),
      // A flow parent links to the children its FlowProducer created (their create spans).
      links: job.childTraceparents?.map((traceparent) => ({ traceparent })),
    }));
    const attempt = new Attempt(span, this.metrics, { recorder: this.history, name: job.name });
    this.attempts.set(job, attempt);
    return attempt;
  }

  /**
   * The attempts of a batch's jobs, sharing one span linked to every job's own context (a
   * batch has many parents, so it starts a trace of its own).
   */
  startBatch(jobs: Job[]): { attempts: Attempt[]; span?: JobSpan } {
    const span = this.startSpan(() => ({
      name: spanName('process', this.source.name),
      kind: 'consumer',
      parent: undefined,
      links: jobs.map(carrierOfJob),
      attributes: {
        [ATTR.system]: MESSAGING_SYSTEM,
        [ATTR.destination]: this.source.name,
        [ATTR.operationType]: 'process',
        [ATTR.operationName]: 'processBatch',
        [ATTR.prefix]: this.source.prefix,
        [ATTR.batchCount]: jobs.length,
        [ATTR.batchSize]: jobs.length,
      },
    }));
    const failures = { count: 0 };
    const attempts = jobs.map((job) => {
      this.recordStart(job);
      const history = { recorder: this.history, name: job.name };
      const attempt = new Attempt(span, this.metrics, history, { jobId: job.id, failures });
      this.attempts.set(job, attempt);
      return attempt;
    });
    return { attempts, span };
  }

  /** Whether spans are being made now (the global SDK may be registered later). */
  tracing(): boolean {
    return this.tracer.isEnabled();
  }

  of(job: Job): Attempt | undefined {
    return this.attempts.get(job);
  }

  end(job: Job): void {
    const attempt = this.attempts.get(job);
    this.attempts.delete(job);
    attempt?.end();
  }
}
