/**
 * `npm run worker`: the worker runner's entry. Exit codes: 0 after a graceful shutdown, 1 on a
 * configuration error (its message, naming every bad setting, on stderr) or a failed start-up.
 */
import { ConfigError } from '../config/config-error';
import { createRunnerLogger, type Logger } from './logger';
import { startRunner } from './runner';
import { loadRunnerSettings, type RunnerSettings } from './settings';
import { SAME_STOP_WINDOW_MS, stopRequestCounter } from './stop-signals';
import { startRunnerTelemetry } from './telemetry';
import { withholdConsoleEnv } from './withhold-console-env';

function readSettings(): RunnerSettings {
  try {
    return loadRunnerSettings();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`OxMQ worker runner: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * An exception nobody caught leaves the process in an unknown state: log it and exit, so the
 * supervisor restarts a clean runner. A stray rejected promise (typically a processor's
 * fire-and-forget call) is logged and the runner goes on serving the other queues.
 */
function guardProcess(logger: Logger): void {
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception: exiting');
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
}

async function main(): Promise<void> {
  const settings = readSettings();
  const logger = createRunnerLogger(settings.logLevel);
  guardProcess(logger);
  // Before any processor module is imported (docs/security.md).
  const withheld = withholdConsoleEnv();
  if (withheld.length > 0)
    logger.warn({ variables: withheld }, "console variables removed from the runner's environment");
  // Before any worker exists: the engine takes its meter and tracer from the global API.
  const telemetry = startRunnerTelemetry({
    tracing: settings.tracing,
    serviceNameGiven: settings.otelServiceNameGiven,
  });
  if (telemetry.tracing) logger.info('OpenTelemetry tracing on (OTEL_* variables)');
  const starting = startRunner(settings, logger, {
    serveMetrics: telemetry.serveMetrics,
  }).catch((error: unknown) => {
    logger.fatal({ err: error }, 'runner failed to start');
    process.exit(1);
  });
  // Listening before the runner says it is ready: a signal between that line and a later
  // process.on() would meet Node's default action (exit at once) instead of a clean shutdown.
  // A signal during start-up shuts down once the start has finished; a second one is passed on
  // too (the runner then returns running jobs at once). A copy of the same Ctrl-C (npm forwards
  // it to the runner, which the terminal signalled too) is no second request: stop-signals.ts.
  const countRequest = stopRequestCounter();
  const onSignal = (signal: NodeJS.Signals) => {
    if (countRequest() === undefined) {
      logger.debug(
        { signal, windowMs: SAME_STOP_WINDOW_MS },
        'signal right after the last one: the same stop request',
      );
      return;
    }
    void starting
      .then((runner) => runner.shutdown(signal))
      .then(() => telemetry.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.fatal({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

void main();
