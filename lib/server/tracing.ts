/**
 * The console's OpenTelemetry tracing: the Node SDK, started from instrumentation.ts when the
 * OTEL_* variables ask for traces. Its service name defaults to oxmq-console. Metrics are not
 * pushed from here: the console's metrics are what /api/prometheus reads from Redis.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { serviceNameGiven, tracingRequested } from '../../config/otel-env';

const CONSOLE_SERVICE_NAME = 'oxmq-console';

let started: NodeSDK | undefined;

export function startConsoleTracing(env: Readonly<Record<string, string | undefined>>): void {
  if (started || !tracingRequested(env)) return;
  const serviceName = serviceNameGiven(env) ? undefined : CONSOLE_SERVICE_NAME;
  started = new NodeSDK({ serviceName, metricReaders: [], logRecordProcessors: [] });
  started.start();
  // No flush on exit: Next ends the process on SIGTERM itself, so spans of the last few seconds
  // (the batch processor's delay) may be lost when the console stops.
}
