/**
 * JobTracer on bullmq's `telemetry` option, so code written for bullmq 6.7 (bullmq-otel, or an
 * adapter of its own) keeps working. That interface knows contexts only as opaque values and
 * metadata strings, and has no span status or links: a failure is a recorded exception plus an
 * `error.type` attribute, and links become an `oxmq.links` attribute of traceparents.
 */
import { TelemetrySpanKind, type Telemetry, type TelemetrySpan } from './bullmq-telemetry';
import {
  cappedException,
  type JobSpan,
  type JobTracer,
  type SpanAttributes,
  type StartSpanOptions,
  type TraceCarrier,
} from './job-tracer';
import { ATTR } from './semconv';
import { TraceContext } from './trace-context';

/** The metadata a carrier stands for: bullmq's own, else its W3C fields as headers. */
function metadataOf(carrier: TraceCarrier): string | undefined {
  if (carrier.metadata) return carrier.metadata;
  if (!carrier.traceparent) return undefined;
  const headers: Record<string, string> = { traceparent: carrier.traceparent };
  if (carrier.tracestate) headers.tracestate = carrier.tracestate;
  return JSON.stringify(headers);
}

/** A valid W3C traceparent inside metadata of the bullmq-otel shape, if there is one. */
function traceFieldsOf(metadata: string): Pick<TraceCarrier, 'traceparent' | 'tracestate'> {
  try {
    const headers = JSON.parse(metadata) as { traceparent?: unknown; tracestate?: unknown };
    if (typeof headers?.traceparent !== 'string') return {};
    const tracestate = typeof headers.tracestate === 'string' ? headers.tracestate : undefined;
    const parsed = TraceContext.of(headers.traceparent, tracestate);
    return { traceparent: parsed.traceparent, tracestate: parsed.tracestate };
  } catch {
    return {};
  }
}

class BullmqJobSpan<Context> implements JobSpan {
  private readonly context: Context;

  constructor(
    private readonly telemetry: Telemetry<Context>,
    private readonly span: TelemetrySpan<Context>,
    parent: Context,
  ) {
    this.context = span.setSpanOnContext(parent);
  }

  carrier(): TraceCarrier {
    const metadata = this.telemetry.contextManager.getMetadata(this.context);
    if (!metadata) return {};
    return { ...traceFieldsOf(metadata), metadata };
  }

  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }

  addEvent(name: string, attributes?: SpanAttributes): void {
    this.span.addEvent(name, attributes);
  }

  addLinks(carriers: TraceCarrier[]): void {
    const traceparents = carriers.flatMap((carrier) =>
      carrier.traceparent ? [carrier.traceparent] : [],
    );
    if (traceparents.length > 0) this.span.setAttribute('oxmq.links', traceparents);
  }

  fail(error: unknown): void {
    const exception = cappedException(error);
    this.span.recordException(exception);
    this.span.setAttribute(ATTR.errorType, exception.name);
  }

  end(): void {
    this.span.end();
  }

  run<T>(fn: () => T): T {
    return this.telemetry.contextManager.with(this.context, fn);
  }
}

export class BullmqJobTracer<Context> implements JobTracer {
  constructor(private readonly telemetry: Telemetry<Context>) {}

  isEnabled(): boolean {
    return true;
  }

  private parentContext(parent: StartSpanOptions['parent']): Context {
    const manager = this.telemetry.contextManager;
    if (parent === 'active') return manager.active();
    const base = manager.root ? manager.root() : manager.active();
    const metadata = parent ? metadataOf(parent) : undefined;
    if (!metadata) return base;
    try {
      return manager.fromMetadata(base, metadata);
    } catch {
      return base; // metadata another writer got wrong: a new trace rather than a failed job
    }
  }

  start(options: StartSpanOptions): JobSpan {
    const parent = this.parentContext(options.parent);
    const kind =
      options.kind === 'producer' ? TelemetrySpanKind.PRODUCER : TelemetrySpanKind.CONSUMER;
    const span = this.telemetry.tracer.startSpan(options.name, { kind }, parent);
    span.setAttributes(options.attributes);
    const jobSpan = new BullmqJobSpan(this.telemetry, span as TelemetrySpan<Context>, parent);
    if (options.links) jobSpan.addLinks(options.links);
    return jobSpan;
  }
}
