/**
 * A worker's view of one attempt of a job: its CONSUMER span (when tracing is on) and its
 * metrics (always). The worker starts an attempt when it takes a job, notes the outcome where
 * it records it, and ends the attempt when the job leaves its hands.
 */
import type { Job } from '../job';
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
}

export class Attempt {
  private readonly startedAt = performance.now();
  private outcome?: JobOutcome;

  /**
   * `jobId` is set for the attempts of a batch: they share the batch's span, so their outcomes
   * are events naming the job, and the batch ends the span once.
   */
  constructor(
    readonly span: JobSpan | undefined,
    private readonly metrics: WorkerMetrics,
    private readonly batchJobId?: string,
  ) {}

  completed(): void {
    this.metrics.jobCompleted();
    this.setOutcome('completed');
  }

  /** A failed attempt: retried after `delay` ms, or failed for good (delay < 0). */
  failed(error: unknown, delay: number, attempt: number): void {
    const final = delay < 0;
    this.metrics.jobFailed(final);
    this.span?.fail(error);
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
    const named = this.batchJobId
      ? { ...attributes, [ATTR.messageId]: this.batchJobId }
      : attributes;
    this.span.addEvent(name, named);
  }

  /** A failure the worker could not record (the job stays where Redis has it). */
  unrecorded(error: unknown): void {
    this.span?.fail(error);
  }

  private setOutcome(outcome: JobOutcome): void {
    this.outcome = outcome;
    if (!this.batchJobId) this.span?.setAttributes({ [ATTR.outcome]: outcome });
  }

  /** Records the attempt's duration and ends its span. */
  end(): void {
    this.metrics.ended(performance.now() - this.startedAt);
    const span = this.span;
    if (!span || this.batchJobId) return;
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
  ) {}

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

  private recordStart(job: Job): void {
    const retry = job.attemptsStarted > 1;
    const waitMs = retry ? undefined : Date.now() - job.timestamp - (job.delay || 0);
    this.metrics.started(retry, waitMs);
  }

  /** The attempt of one job, with a span of its own. */
  start(job: Job): Attempt {
    this.recordStart(job);
    let span: JobSpan | undefined;
    if (this.tracer.isEnabled()) {
      span = this.tracer.start({
        name: spanName('process', this.source.name),
        kind: 'consumer',
        parent: carrierOfJob(job),
        attributes: this.attributesOf(job),
        // A flow parent links to the children its FlowProducer created (their create spans).
        links: job.childTraceparents?.map((traceparent) => ({ traceparent })),
      });
      // A start beyond the attempts made plus this one: an earlier start never finished.
      if (job.attemptsStarted > job.attemptsMade + 1) {
        span.addEvent(SPAN_EVENT.stalledBefore, { [ATTR.attempt]: job.attemptsStarted });
      }
    }
    const attempt = new Attempt(span, this.metrics);
    this.attempts.set(job, attempt);
    return attempt;
  }

  /**
   * The attempts of a batch's jobs, sharing one span linked to every job's own context (a
   * batch has many parents, so it starts a trace of its own).
   */
  startBatch(jobs: Job[]): { attempts: Attempt[]; span?: JobSpan } {
    let span: JobSpan | undefined;
    if (this.tracer.isEnabled()) {
      span = this.tracer.start({
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
      });
    }
    const attempts = jobs.map((job) => {
      this.recordStart(job);
      const attempt = new Attempt(span, this.metrics, job.id);
      this.attempts.set(job, attempt);
      return attempt;
    });
    return { attempts, span };
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
