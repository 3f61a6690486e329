/**
 * Span names and attribute keys: the OpenTelemetry messaging semantic conventions where they
 * have a name for the thing (destination = queue, message id = job id, operation), `oxmq.*`
 * for the rest. Kept here as strings rather than through the incubating semconv package, whose
 * messaging names are not stable yet. docs/observability.md lists them for users.
 */
export const MESSAGING_SYSTEM = 'oxmq';

export const ATTR = {
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  messageId: 'messaging.message.id',
  batchCount: 'messaging.batch.message_count',
  prefix: 'oxmq.queue.prefix',
  jobName: 'oxmq.job.name',
  attempt: 'oxmq.job.attempt',
  outcome: 'oxmq.job.outcome',
  group: 'oxmq.job.group',
  delay: 'oxmq.job.delay_ms',
  flowNodes: 'oxmq.flow.nodes',
  rateLimitTtl: 'oxmq.rate_limit.ttl_ms',
  stalledCount: 'oxmq.job.stalled_count',
  batchSize: 'oxmq.batch.size',
  errorType: 'error.type',
} as const;

/** Span events of a job's life, on the span of the attempt they happen in. */
export const SPAN_EVENT = {
  retry: 'oxmq.job.retry',
  delayed: 'oxmq.job.delayed',
  rateLimited: 'oxmq.job.rate_limited',
  waitingChildren: 'oxmq.job.waiting_children',
  movedToWait: 'oxmq.job.moved_to_wait',
  stalled: 'oxmq.job.stalled',
  /** A job of a batch failed (the batch span records the first exception in full only). */
  failed: 'oxmq.job.failed',
} as const;

/** The `oxmq.job.outcome` of an attempt. */
export type JobOutcome =
  | 'completed'
  | 'failed'
  | 'retried'
  | 'delayed'
  | 'rate-limited'
  | 'waiting-children'
  | 'moved-to-wait';

export function spanName(
  operation: 'send' | 'create' | 'process' | 'stalled',
  queueName: string,
): string {
  return `${operation} ${queueName}`;
}
