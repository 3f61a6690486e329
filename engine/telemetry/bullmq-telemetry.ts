/**
 * The shape of bullmq 6.7's `telemetry` option (what `bullmq-otel` implements), declared here so
 * that code written for it passes the same object to OxMQ. Only what OxMQ calls is required;
 * everything is structural, so an implementation typed against bullmq's declarations fits.
 *
 * The context type is opaque to OxMQ: it only passes contexts between these methods. The
 * metadata string is whatever `getMetadata` returns; bullmq stores it in the job's options as
 * `tm` and OxMQ does the same. `bullmq-otel` writes a JSON object of propagation headers
 * (`{"traceparent": ...}`), which is how OxMQ also reads a `traceparent` out of it.
 */

/** Span kinds, numbered as bullmq's `SpanKind` enum (the same numbers as OpenTelemetry's). */
export const TelemetrySpanKind = {
  INTERNAL: 0,
  SERVER: 1,
  CLIENT: 2,
  PRODUCER: 3,
  CONSUMER: 4,
} as const;
export type TelemetrySpanKind = (typeof TelemetrySpanKind)[keyof typeof TelemetrySpanKind];

type TelemetryAttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>;

export interface TelemetryAttributes {
  [attribute: string]: TelemetryAttributeValue | undefined;
}

interface TelemetryException {
  code?: string | number;
  name?: string;
  message?: string;
  stack?: string;
}

export interface TelemetrySpan<Context = unknown> {
  setSpanOnContext(ctx: Context): Context;
  setAttribute(key: string, value: TelemetryAttributeValue): void;
  setAttributes(attributes: TelemetryAttributes): void;
  addEvent(name: string, attributes?: TelemetryAttributes): void;
  recordException(exception: TelemetryException | string, time?: number | Date): void;
  end(): void;
}

export interface TelemetryTracer<Context = unknown> {
  startSpan(name: string, options?: { kind: TelemetrySpanKind }, context?: Context): TelemetrySpan;
}

export interface TelemetryContextManager<Context = unknown> {
  with<A extends (...args: never[]) => unknown>(context: Context, fn: A): ReturnType<A>;
  active(): Context;
  /** An empty context; optional in bullmq's interface (older adapters lack it). */
  root?(): Context;
  getMetadata(context: Context): string;
  fromMetadata(activeContext: Context, metadata: string): Context;
}

interface TelemetryMetricOptions {
  description?: string;
  unit?: string;
}

interface TelemetryCounter {
  add(value: number, attributes?: TelemetryAttributes): void;
}

interface TelemetryHistogram {
  record(value: number, attributes?: TelemetryAttributes): void;
}

/** A meter as bullmq's interface has it: counters, histograms and synchronous gauges. */
export interface TelemetryMeter {
  createCounter(name: string, options?: TelemetryMetricOptions): TelemetryCounter;
  createHistogram(name: string, options?: TelemetryMetricOptions): TelemetryHistogram;
  createGauge(name: string, options?: TelemetryMetricOptions): TelemetryHistogram;
}

/** bullmq's `telemetry` option. */
export interface Telemetry<Context = unknown> {
  tracer: TelemetryTracer<Context>;
  contextManager: TelemetryContextManager<Context>;
  meter?: TelemetryMeter;
}
