/**
 * Whether the standard OpenTelemetry variables ask for traces. The SDK reads every OTEL_*
 * variable itself (exporter, endpoint, protocol, service name, sampler); OxMQ only decides
 * whether to start it, because `@opentelemetry/sdk-node` started without any of them would
 * export to a collector on localhost that is usually not there.
 */
export function tracingRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  if (isTrue(env.OTEL_SDK_DISABLED)) return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.length > 0) return !exporters.every((name) => name === 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Whether the environment names the service (OTEL_SERVICE_NAME, or `service.name` in
 * OTEL_RESOURCE_ATTRIBUTES): OxMQ's default name must not override either.
 */
export function serviceNameGiven(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SERVICE_NAME?.trim()) return true;
  return /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
