/**
 * The tracing seam the engine codes against: a producer or consumer span around a job, the
 * context a job stores, and the events of its life. Two implementations: the global
 * OpenTelemetry API (otel-tracer.ts) and bullmq's `telemetry` option (bullmq-tracer.ts).
 */
import { redactString } from '../redaction';

/** Attribute values a span takes (the OpenTelemetry shapes). */
type SpanAttributeValue = string | number | boolean | string[] | number[] | boolean[];
export type SpanAttributes = Record<string, SpanAttributeValue | undefined>;

/**
 * A trace context as a job stores it: the W3C `traceparent` / `tracestate` hash fields (OxMQ),
 * and/or bullmq's propagation metadata (`tm` in the job's options).
 */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
  metadata?: string;
}

export interface StartSpanOptions {
  name: string;
  kind: 'producer' | 'consumer';
  /**
   * Where the span hangs: `'active'` continues the caller's active context, a carrier continues
   * a stored (remote) context, `undefined` starts a new trace. A consumer never uses the active
   * context: a worker's loop must not chain every job it runs into one trace.
   */
  parent: 'active' | TraceCarrier | undefined;
  attributes: SpanAttributes;
  links?: TraceCarrier[];
}

export interface JobSpan {
  /** The context to store in a job created under this span (empty when it has none). */
  carrier(): TraceCarrier;
  setAttributes(attributes: SpanAttributes): void;
  addEvent(name: string, attributes?: SpanAttributes): void;
  /** Links added after the start (a flow parent's children, found while it runs). */
  addLinks(carriers: TraceCarrier[]): void;
  /** Marks the span failed with the (capped) exception. */
  fail(error: unknown): void;
  end(): void;
  /** Runs `fn` with this span as the active context, so spans made inside nest under it. */
  run<T>(fn: () => T): T;
}

export interface JobTracer {
  /** False when nothing would record or propagate: callers then skip all span work. */
  isEnabled(): boolean;
  start(options: StartSpanOptions): JobSpan;
}

/** Exception text is capped on spans: a processor may throw a megabyte of message. */
const SPAN_TEXT_LIMITS = { message: 1_024, stack: 4_096 } as const;

/**
 * A span's exception text: capped, then redacted (engine/redaction/), since a failure message
 * or stack often carries the secret the job used (`login failed password=...`, a connection
 * URL). Redacting the capped text keeps the cost bounded; a secret cut by the cap is hidden by
 * the same rules (an unclosed quote or key block runs to the end). Only called when a span
 * records a failure, so a worker without a tracer pays nothing.
 */
export function cappedException(error: unknown): { name: string; message: string; stack?: string } {
  const err = error instanceof Error ? error : new Error(String(error));
  return {
    name: err.name,
    message: spanText(err.message, SPAN_TEXT_LIMITS.message),
    stack: err.stack === undefined ? undefined : spanText(err.stack, SPAN_TEXT_LIMITS.stack),
  };
}

function spanText(text: string, limit: number): string {
  // The marker may make the text longer than it was; the cap holds after redaction too.
  return redactString(text.slice(0, limit)).slice(0, limit);
}
