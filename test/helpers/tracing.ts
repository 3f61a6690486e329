/**
 * A real OpenTelemetry SDK for tests: NodeTracerProvider (AsyncLocalStorage context, W3C
 * propagation) exporting to memory. `registerTracing()` installs it globally for the test file;
 * `stop()` takes it away again so a later file starts with the no-op API.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface TestTracing {
  spans(): ReadableSpan[];
  /** Finished spans whose name is `name`. */
  named(name: string): ReadableSpan[];
  reset(): void;
  stop(): Promise<void>;
}

export function registerTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  provider.register();
  return {
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((span) => span.name === name),
    reset: () => exporter.reset(),
    stop: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** The span id of a span's parent (undefined for a root). */
export function parentSpanId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
