import type { Storage } from '../backend/storage';
import type { ConnectionOptions } from '../backend/redis/connection';
import type { JobsOptions } from '../job/options';
import type { Telemetry } from '../telemetry/bullmq-telemetry';

export interface QueueBaseOptions {
  /**
   * ioredis options, a redis:// URL or an ioredis instance (shared, never closed by us).
   * Required by the Redis storage (the default); another `storage` may need none.
   */
  connection?: ConnectionOptions;
  /** Key prefix; default "bull" (bullmq's). */
  prefix?: string;
  /**
   * bullmq's telemetry adapter (e.g. bullmq-otel). Without it OxMQ traces and records metrics
   * through the global OpenTelemetry API, which costs nothing until an SDK is registered.
   */
  telemetry?: Telemetry;
  /**
   * bullmq's switches that have no effect on OxMQ, accepted so bullmq code compiles and runs
   * unchanged: OxMQ checks no Redis version (skipVersionCheck), a Queue or FlowProducer holds no
   * blocking connection (blockingConnection), and commands queue until the connection is ready
   * rather than waiting for it up front (skipWaitingForReady).
   */
  skipVersionCheck?: boolean;
  blockingConnection?: boolean;
  skipWaitingForReady?: boolean;
  /**
   * OxMQ: where this Queue, Worker or FlowProducer keeps its jobs (engine/backend/storage.ts).
   * Default: Redis, as bullmq stores it (`redisStorage`). `memoryStorage()` keeps them in this
   * process (docs/engine-package.md). Another storage must pass the conformance suite.
   */
  storage?: Storage;
  /**
   * OxMQ, for Redis Cluster: wrap the queue name in a hash tag (`email` → `{email}`, keys
   * `bull:{email}:...`) unless the prefix or name already carries one, so that all of a queue's
   * keys share one slot (docs/scaling.md). The queue's `name` is the wrapped one: bullmq
   * producers and workers of the same queue use `{email}` as its name.
   */
  clusterHashTags?: boolean;
}

export interface QueueOptions extends QueueBaseOptions {
  defaultJobOptions?: JobsOptions;
  streams?: { events?: { maxLen?: number } };
  /** Do not write meta.version / meta.opts.maxLenEvents on startup. */
  skipMetasUpdate?: boolean;
  /**
   * bullmq's custom repeat strategy and legacy repeat key hash. OxMQ computes cron iterations
   * itself (cron-parser, as bullmq's default strategy) and has no legacy repeatable jobs, so a
   * Queue given either refuses it with a ValidationError rather than ignoring it.
   */
  settings?: { repeatStrategy?: unknown; repeatKeyHashAlgorithm?: string };
}
