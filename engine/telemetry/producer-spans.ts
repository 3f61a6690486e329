/**
 * PRODUCER spans around adding jobs, and the context written into the jobs they add. A job's
 * span hangs under the context its options name (an explicit `traceparent`, or bullmq's
 * `telemetry.metadata`), else under the caller's active span, so a job added inside a processor
 * or a request handler continues that trace.
 */
import type { JobsOptions } from '../job/options';
import type { JobSpan, JobTracer, SpanAttributes, StartSpanOptions } from './job-tracer';
import { ATTR, MESSAGING_SYSTEM } from './semconv';

export function producerParent(opts: JobsOptions): StartSpanOptions['parent'] {
  if (opts.traceparent) return { traceparent: opts.traceparent, tracestate: opts.tracestate };
  if (opts.telemetry?.metadata) return { metadata: opts.telemetry.metadata };
  return 'active';
}

export function producerAttributes(
  queue: { name: string; prefix: string },
  operationName: string,
  extra: SpanAttributes = {},
): SpanAttributes {
  return {
    [ATTR.system]: MESSAGING_SYSTEM,
    [ATTR.destination]: queue.name,
    [ATTR.operationType]: 'send',
    [ATTR.operationName]: operationName,
    [ATTR.prefix]: queue.prefix,
    ...extra,
  };
}

/** Runs `add` inside a producer span (active while it runs) and ends the span either way. */
export async function withProducerSpan<T>(
  tracer: JobTracer,
  options: StartSpanOptions,
  add: (span: JobSpan) => Promise<T>,
): Promise<T> {
  const span = tracer.start(options);
  try {
    return await span.run(() => add(span));
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}
