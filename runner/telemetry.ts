/**
 * The runner's OpenTelemetry: a MeterProvider whose Prometheus reader answers /metrics on the
 * health port (always on: the runner is the process that knows what its workers did), and the
 * Node SDK for traces when the standard OTEL_* variables ask for it (config/otel-env.ts). Both
 * are registered globally before any worker exists, since the engine takes its meter and tracer
 * from the global API (docs/observability.md).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OXMQ_VERSION } from 'oxmq';

/** The service name when OTEL_SERVICE_NAME does not give one. */
export const RUNNER_SERVICE_NAME = 'oxmq-worker';

export interface RunnerTelemetry {
  /** Serves the Prometheus text of every instrument (GET /metrics). */
  readonly serveMetrics: (request: IncomingMessage, response: ServerResponse) => void;
  readonly tracing: boolean;
  /** Flushes spans still buffered and stops the providers. */
  shutdown(): Promise<void>;
}

export interface RunnerTelemetryOptions {
  tracing: boolean;
  /** The OTEL_* variables name the service; otherwise it is oxmq-worker. */
  serviceNameGiven: boolean;
}

/** The histogram's sampling interval (ms); every delay it records includes it. */
const LAG_RESOLUTION_MS = 10;

/** Event-loop delay: the 99th percentile since the previous scrape. */
function observeEventLoopLag(provider: MeterProvider): () => void {
  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  histogram.enable();
  const gauge = provider
    .getMeter('oxmq-runner', OXMQ_VERSION)
    .createObservableGauge('oxmq_event_loop_lag_seconds', {
      description: "99th percentile of the event loop's delay since the previous scrape",
      unit: 's',
    });
  gauge.addCallback((result) => {
    // Before any sample the histogram reports its minimum as a huge sentinel: report 0 then.
    // Its samples are timer delays, the interval included: the lag is what exceeds it. The
    // reset makes each scrape see the delays since the previous one (one scraper per runner).
    const p99Ms = histogram.count > 0 ? histogram.percentile(99) / 1e6 : LAG_RESOLUTION_MS;
    result.observe(Math.max(0, p99Ms - LAG_RESOLUTION_MS) / 1000);
    histogram.reset();
  });
  return () => histogram.disable();
}

export function startRunnerTelemetry(options: RunnerTelemetryOptions): RunnerTelemetry {
  // Undefined when the environment names the service: the SDKs then read it from there.
  const serviceName = options.serviceNameGiven ? undefined : RUNNER_SERVICE_NAME;
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const environment = detectResources({ detectors: [envDetector] });
  const meterProvider = new MeterProvider({
    resource: defaultResource()
      .merge(environment)
      .merge(serviceName ? resourceFromAttributes({ 'service.name': serviceName }) : null),
    readers: [exporter],
  });
  metrics.setGlobalMeterProvider(meterProvider);
  const stopLag = observeEventLoopLag(meterProvider);

  let sdk: NodeSDK | undefined;
  if (options.tracing) {
    // Traces only: the metrics above have their own provider, so no metric reader here.
    // Traces only: no log exporter either (the runner logs JSON lines to stdout).
    sdk = new NodeSDK({ serviceName, metricReaders: [], logRecordProcessors: [] });
    sdk.start();
  }
  return {
    serveMetrics: (request, response) => exporter.getMetricsRequestHandler(request, response),
    tracing: options.tracing,
    shutdown: async () => {
      stopLag();
      await Promise.allSettled([sdk?.shutdown(), meterProvider.shutdown()]);
    },
  };
}
