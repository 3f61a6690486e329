/**
 * Tracing for the worker-c100-traced scenario: a real SDK (NodeTracerProvider, always-on
 * sampler, batch span processor, OTLP/HTTP exporter) sending to a local sink that reads and
 * drops every request, so the cost measured is making, batching and exporting spans. OxMQ traces
 * through the global API; bullmq gets bullmq-otel as its `telemetry` option, its own way.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { AlwaysOnSampler, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BullMQOtel } from 'bullmq-otel';

export interface BenchTracing {
  /** bullmq's `telemetry` option. */
  readonly bullmqTelemetry: BullMQOtel;
  /** Spans the sink received (export requests' bodies, in bytes). */
  readonly receivedBytes: () => number;
  stop(): Promise<void>;
}

export async function startBenchTracing(): Promise<BenchTracing> {
  let received = 0;
  const sink = http.createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (received += chunk.length));
    request.on('end', () => response.end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const { port } = sink.address() as AddressInfo;
  const provider = new NodeTracerProvider({
    sampler: new AlwaysOnSampler(),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` })),
    ],
  });
  provider.register();
  return {
    bullmqTelemetry: new BullMQOtel({ tracerName: 'bench-bullmq' }),
    receivedBytes: () => received,
    stop: async () => {
      await provider.shutdown();
      sink.closeAllConnections();
      await new Promise((resolve) => sink.close(resolve));
    },
  };
}
