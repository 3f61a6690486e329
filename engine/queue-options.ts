import type { ConnectionOptions } from './connection';
import type { JobsOptions } from './job-options';
import type { Telemetry } from './telemetry/bullmq-telemetry';

export interface QueueBaseOptions {
  /** ioredis options, a redis:// URL or an ioredis instance (shared, never closed by us). */
  connection: ConnectionOptions;
  /** Key prefix; default "bull" (bullmq's). */
  prefix?: string;
  /**
   * bullmq's telemetry adapter (e.g. bullmq-otel). Without it OxMQ traces and records metrics
   * through the global OpenTelemetry API, which costs nothing until an SDK is registered.
   */
  telemetry?: Telemetry;
}

export interface QueueOptions extends QueueBaseOptions {
  defaultJobOptions?: JobsOptions;
  streams?: { events?: { maxLen?: number } };
  /** Do not write meta.version / meta.opts.maxLenEvents on startup. */
  skipMetasUpdate?: boolean;
}
