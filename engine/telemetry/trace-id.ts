/**
 * The trace id a job's stored context names, for the console's trace links: its W3C
 * `traceparent` field, else the traceparent inside bullmq's `tm` metadata (a job a bullmq
 * producer traced). A malformed value is no trace rather than an error: another writer's field.
 */
import { TraceContext } from './trace-context';

export function traceIdOf(traceparent: string | undefined, metadata?: string): string | undefined {
  const fromField = parsedTraceId(traceparent);
  if (fromField || !metadata) return fromField;
  try {
    const headers = JSON.parse(metadata) as { traceparent?: unknown };
    return typeof headers?.traceparent === 'string'
      ? parsedTraceId(headers.traceparent)
      : undefined;
  } catch {
    return undefined;
  }
}

function parsedTraceId(traceparent: string | undefined): string | undefined {
  if (!traceparent) return undefined;
  try {
    return TraceContext.of(traceparent).traceId;
  } catch {
    return undefined;
  }
}
