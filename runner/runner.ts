/**
 * The worker runner: loads every processor module, starts one worker per module, serves health
 * and shuts down gracefully. A module that fails to load is logged and listed on /health; the
 * others run regardless.
 */
import { redactString } from 'oxmq/admin';
import { describeRedisTarget, engineConnection } from '../config/redis-connection';
import { discoverProcessorFiles } from './discover';
import { healthPaths } from './health-paths';
import {
  startHealthServer,
  type HealthServer,
  type HealthSource,
  type Readiness,
} from './health-server';
import { startRunnerSampler, type RunnerSampler } from './history-sampler';
import { ProcessorHost, type CloseReport } from './host';
import type { Logger } from './logger';
import { loadProcessorModule, ProcessorLoadError } from './processor-module';
import { RedisProbe } from './redis-probe';
import type { RunnerSettings } from './settings';

export interface FailedModule {
  /** The module (or the processors folder) that could not be served. */
  readonly file: string;
  readonly error: string;
  /** IMPORT_FAILED, INVALID_EXPORTS, INVALID_OPTIONS, DUPLICATE_QUEUE, WORKER_FAILED, FOLDER_UNREADABLE. */
  readonly code: string;
}

export interface Runner {
  readonly healthPort: number;
  /** Resolves once every worker runs and Redis answered, or when shutdown begins. */
  readonly ready: Promise<void>;
  /**
   * Stops fetching, gives running jobs the shutdown timeout, returns the rest to wait, closes.
   * Called again (a second signal), it cuts the deadline to now. Resolves with the reports.
   */
  shutdown(reason: string): Promise<CloseReport[]>;
}

const READY_POLL_MS = 250;

export interface RunnerOptions {
  /** Serves GET /metrics on the health port (runner/telemetry.ts). */
  serveMetrics?: HealthSource['metrics'];
}

export async function startRunner(
  settings: RunnerSettings,
  logger: Logger,
  options: RunnerOptions = {},
): Promise<Runner> {
  logger.info(
    {
      redis: describeRedisTarget(settings.redis),
      prefix: settings.prefix,
      clusterHashTags: settings.clusterHashTags,
      processorsDirs: settings.processorsDirs,
    },
    'runner starting',
  );
  // On a Cluster one client serves every worker (each opens its blocking connection from it);
  // it is closed after them.
  const redis = engineConnection(settings.redis);
  const host = new ProcessorHost(
    {
      connection: redis.connection,
      prefix: settings.prefix,
      clusterHashTags: settings.clusterHashTags,
    },
    logger,
  );
  const failed: FailedModule[] = [];
  const fail = (file: string, rawError: string, code: string) => {
    // A module that throws while loading may say why with a secret in it (a connection URL
    // with its password): /health lists the redacted text, as the log line does.
    const error = redactString(rawError);
    failed.push({ file, error, code });
    logger.error({ file, reason: error, code }, 'processor module failed to load');
  };

  const { files, unreadable } = discoverProcessorFiles(settings.processorsDirs);
  for (const { folder, error } of unreadable) fail(folder, error, 'FOLDER_UNREADABLE');

  let shuttingDown = false;
  let modulesLoaded = false;
  let stopRequested!: () => void;
  const stopping = new Promise<void>((resolve) => (stopRequested = resolve));
  const probe = new RedisProbe(settings.redis, logger);

  const readiness = async (): Promise<Readiness> => {
    if (shuttingDown) return { ready: false, status: 'shutting down' };
    // Before every module is loaded the host's list is incomplete (an empty list is "all running").
    if (!modulesLoaded || !host.isEveryWorkerRunning()) return { ready: false, status: 'starting' };
    if (!(await probe.ping())) return { ready: false, status: 'redis unreachable' };
    return { ready: true, status: 'ready' };
  };
  const shown = healthPaths(settings.processorsDirs);
  let health: HealthServer;
  try {
    const listen = {
      host: settings.healthHost,
      port: settings.healthPort,
      allowedHosts: settings.healthAllowedHosts,
    };
    health = await startHealthServer(listen, {
      readiness,
      metrics: options.serveMetrics,
      detail: () => ({
        shuttingDown,
        processors: host.hosted.map(({ file, queue, prefix, concurrency, sandbox, state }) => ({
          file: shown.file(file),
          queue,
          prefix,
          concurrency,
          sandbox,
          state,
        })),
        failed: failed.map(({ file, error, code }) => ({
          file: shown.file(file),
          error: shown.text(error),
          code,
        })),
      }),
    });
  } catch (error) {
    probe.close();
    await redis.close();
    throw error;
  }
  logger.info(
    { healthHost: settings.healthHost, healthPort: health.port },
    'health server listening',
  );

  for (const file of files) {
    try {
      const processor = await loadProcessorModule(file);
      const prefix = host.prefixOf(processor);
      const taken = host.find(prefix, processor.queue);
      if (taken) {
        fail(
          file,
          `queue "${processor.queue}" (prefix "${prefix}") is already served by ${taken.file}`,
          'DUPLICATE_QUEUE',
        );
        continue;
      }
      host.start(processor);
    } catch (error) {
      if (error instanceof ProcessorLoadError) fail(file, error.reason, error.code);
      // The Worker constructor's own checks (ValidationError) land here.
      else fail(file, error instanceof Error ? error.message : String(error), 'WORKER_FAILED');
    }
  }
  modulesLoaded = true;
  const sampler: RunnerSampler | undefined = settings.historySampler
    ? startRunnerSampler(
        settings.redis,
        [...new Set([settings.prefix, ...host.hosted.map((entry) => entry.prefix)])],
        logger,
      )
    : undefined;
  if (host.hosted.length === 0) {
    logger.warn(
      { processorsDirs: settings.processorsDirs },
      'no processor modules to run: serving health only',
    );
  }

  const ready = (async () => {
    await host.allRunning(stopping);
    while (!shuttingDown && !(await probe.ping())) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, READY_POLL_MS)), stopping]);
    }
    if (shuttingDown) return;
    logger.info(
      { processors: host.hosted.length, failed: failed.length, healthPort: health.port },
      'runner ready',
    );
  })();

  let closing: Promise<CloseReport[]> | undefined;
  const shutdown = (reason: string): Promise<CloseReport[]> => {
    if (closing) {
      logger.warn({ reason }, 'second stop request: returning running jobs to wait now');
      host.hurry();
      return closing;
    }
    shuttingDown = true;
    stopRequested();
    logger.info(
      { reason, timeoutMs: settings.shutdownTimeoutMs, workers: host.hosted.length },
      'shutting down',
    );
    closing = (async () => {
      const reports = await host.close(settings.shutdownTimeoutMs);
      for (const report of reports) logger.info({ ...report }, 'worker closed');
      await sampler?.stop();
      await health.close();
      probe.close();
      await redis.close();
      logger.info('runner stopped');
      return reports;
    })();
    return closing;
  };

  return { healthPort: health.port, ready, shutdown };
}
