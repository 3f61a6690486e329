/**
 * Which tracer a queue, worker or flow producer uses: bullmq's `telemetry` option when given
 * (so code written for bullmq keeps its setup), else the global OpenTelemetry API.
 */
import { ValidationError } from '../errors';
import type { Telemetry } from './bullmq-telemetry';
import { BullmqJobTracer } from './bullmq-tracer';
import type { JobTracer } from './job-tracer';
import { OtelJobTracer } from './otel-tracer';

const GLOBAL_TRACER = new OtelJobTracer();

function isFunction(value: unknown): boolean {
  return typeof value === 'function';
}

export function tracerFor(telemetry: Telemetry | undefined): JobTracer {
  if (telemetry === undefined) return GLOBAL_TRACER;
  const manager = telemetry?.contextManager;
  if (
    !isFunction(telemetry?.tracer?.startSpan) ||
    !isFunction(manager?.with) ||
    !isFunction(manager?.active) ||
    !isFunction(manager?.getMetadata) ||
    !isFunction(manager?.fromMetadata)
  ) {
    throw new ValidationError(
      'telemetry needs a tracer with startSpan and a contextManager with with, active, getMetadata and fromMetadata (bullmq Telemetry interface)',
    );
  }
  return new BullmqJobTracer(telemetry);
}
