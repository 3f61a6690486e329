/**
 * The console's OpenTelemetry tracing: the Node SDK, started from instrumentation.ts when the
 * OTEL_* variables ask for traces. Its service name defaults to oxmq-console. Metrics are not
 * pushed from here: the console's metrics are what /api/prometheus reads from Redis.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { tracingRequested } from '../../config/otel-env';

export const CONSOLE_SERVICE_NAME = 'oxmq-console';

let started: NodeSDK | undefined;

export function startConsoleTracing(env: Readonly<Record<string, string | undefined>>): void {
  if (started || !tracingRequested(env)) return;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() ? undefined : CONSOLE_SERVICE_NAME;
  started = new NodeSDK({ serviceName, metricReaders: [] });
  started.start();
  // Spans still buffered go out when the server is stopped.
  process.once('SIGTERM', () => void started?.shutdown());
}
