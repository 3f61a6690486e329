/**
 * Next.js calls `register()` once when the console's server starts. When the standard OTEL_*
 * variables ask for traces (config/otel-env.ts), it starts the OpenTelemetry Node SDK, which
 * reads those variables itself; the engine embedded in the route handlers then traces through
 * the global API. The Edge runtime has no Node SDK: only the Node.js runtime starts it, and the
 * SDK is imported dynamically so no other runtime bundles it.
 *
 * It also starts the console's share of the backlog history sampling (lib/server/oxmq.ts) and
 * the notifier (lib/server/notify/console-notifier.ts) when webhooks are configured: queue
 * problems sent as they start and clear, by one console at a time.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startConsoleTracing } = await import('./lib/server/tracing');
  // The Next entry point hands the environment over, as a process's main does.
  startConsoleTracing(process.env);
  const { startBacklogSampler } = await import('./lib/server/oxmq');
  try {
    startBacklogSampler();
  } catch (error) {
    // A bad setting fails every request with its reason; the server itself still starts.
    console.error(`OxMQ console: backlog history sampling not started: ${String(error)}`);
  }
  const { startConsoleNotifier } = await import('./lib/server/notify/console-notifier');
  startConsoleNotifier();
}
