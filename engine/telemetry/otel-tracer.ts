/**
 * JobTracer on the global OpenTelemetry API. Until an application registers an SDK the API is a
 * no-op, and `isEnabled()` says so, so the engine makes no span at all then.
 */
import {
  context,
  createTraceState,
  isSpanContextValid,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type TraceState,
} from '@opentelemetry/api';
import { OXMQ_VERSION } from '../version';
import { TraceContext } from './trace-context';
import {
  cappedException,
  type JobSpan,
  type JobTracer,
  type SpanAttributes,
  type StartSpanOptions,
  type TraceCarrier,
} from './job-tracer';

// The API's no-op provider is not exported; a fresh proxy hands out that same singleton.
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/** True once an SDK (or any real tracer provider) is registered globally. */
function isGlobalTracingEnabled(): boolean {
  const provider = trace.getTracerProvider();
  // A provider from another copy of the API is not our ProxyTracerProvider: assume it traces.
  if (!(provider instanceof ProxyTracerProvider)) return true;
  return provider.getDelegate() !== NOOP_TRACER_PROVIDER;
}

/**
 * The span context a W3C traceparent names, or undefined when it is missing or malformed (a
 * foreign writer's field: a new trace rather than a failed job). A bad tracestate alone is
 * dropped and the parent kept, as W3C Trace Context tells a receiver to do.
 */
function spanContextOf(carrier: TraceCarrier): SpanContext | undefined {
  if (!carrier.traceparent) return undefined;
  let parsed: TraceContext;
  try {
    parsed = TraceContext.of(carrier.traceparent);
  } catch {
    return undefined;
  }
  return {
    traceId: parsed.traceId,
    spanId: parsed.spanId,
    traceFlags: parseInt(parsed.traceFlags, 16) & 1,
    isRemote: true,
    traceState: traceStateOf(carrier.tracestate),
  };
}

function traceStateOf(tracestate: string | undefined): TraceState | undefined {
  if (!tracestate) return undefined;
  try {
    return createTraceState(TraceContext.of(VALID_PARENT, tracestate).tracestate);
  } catch {
    return undefined;
  }
}

/** Any valid traceparent: TraceContext validates a tracestate only together with one. */
const VALID_PARENT = '00-00000000000000000000000000000001-0000000000000001-01';

/** The context a job's carrier continues: its traceparent, else bullmq's metadata. */
function contextOfCarrier(carrier: TraceCarrier): Context | undefined {
  const spanContext = spanContextOf(carrier);
  if (spanContext) return trace.setSpanContext(ROOT_CONTEXT, spanContext);
  if (!carrier.metadata) return undefined;
  const headers = parseHeaders(carrier.metadata);
  if (!headers) return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, headers);
  return trace.getSpanContext(extracted) ? extracted : undefined;
}

function parseHeaders(metadata: string): Record<string, string> | undefined {
  try {
    const value: unknown = JSON.parse(metadata);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const headers: Record<string, string> = {};
    for (const [key, entry] of Object.entries(value)) {
      if (typeof entry === 'string') headers[key] = entry;
    }
    return headers;
  } catch {
    return undefined;
  }
}

function toTraceparent(spanContext: SpanContext): string {
  const flags = (spanContext.traceFlags & 1).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

function linksOf(carriers: TraceCarrier[]): Link[] {
  const links: Link[] = [];
  for (const carrier of carriers) {
    const spanContext =
      spanContextOf(carrier) ?? trace.getSpanContext(contextOfCarrier(carrier) ?? ROOT_CONTEXT);
    if (spanContext) links.push({ context: spanContext });
  }
  return links;
}

class OtelJobSpan implements JobSpan {
  private readonly context: Context;

  constructor(
    private readonly span: Span,
    parent: Context,
  ) {
    this.context = trace.setSpan(parent, span);
  }

  carrier(): TraceCarrier {
    const spanContext = this.span.spanContext();
    if (!isSpanContextValid(spanContext)) return {};
    const headers: Record<string, string> = {};
    propagation.inject(this.context, headers);
    return {
      traceparent: toTraceparent(spanContext),
      tracestate: spanContext.traceState?.serialize() || undefined,
      metadata: Object.keys(headers).length > 0 ? JSON.stringify(headers) : undefined,
    };
  }

  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }

  addEvent(name: string, attributes?: SpanAttributes): void {
    this.span.addEvent(name, attributes);
  }

  addLinks(carriers: TraceCarrier[]): void {
    const links = linksOf(carriers);
    if (links.length > 0) this.span.addLinks(links);
  }

  fail(error: unknown): void {
    const exception = cappedException(error);
    this.span.recordException(exception);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: exception.message });
  }

  end(): void {
    this.span.end();
  }

  run<T>(fn: () => T): T {
    return context.with(this.context, fn);
  }
}

export class OtelJobTracer implements JobTracer {
  private readonly tracer = trace.getTracer('oxmq', OXMQ_VERSION);

  isEnabled(): boolean {
    return isGlobalTracingEnabled();
  }

  start(options: StartSpanOptions): JobSpan {
    const parent =
      options.parent === 'active'
        ? context.active()
        : options.parent
          ? (contextOfCarrier(options.parent) ?? ROOT_CONTEXT)
          : ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      options.name,
      {
        kind: options.kind === 'producer' ? SpanKind.PRODUCER : SpanKind.CONSUMER,
        attributes: options.attributes,
        links: options.links ? linksOf(options.links) : undefined,
      },
      parent,
    );
    return new OtelJobSpan(span, parent);
  }
}
