import type { RedisClient } from './redis/connection';

/**
 * A queue's chores that are Redis's by nature, outside the interfaces every storage must
 * implement (and the conformance suite covers): the Queue methods behind them answer as for
 * an empty Redis when a storage has none.
 */
export interface RedisQueueChores {
  /** The connection the queue's commands use (bullmq's `client` getters). */
  readonly client: RedisClient;
  /**
   * The queue's state in Prometheus text, as bullmq 6.7's Queue.exportPrometheusMetrics writes
   * it, then OxMQ's `oxmq_queue_*` gauges (engine/admin/redis/prometheus/queue-export.ts).
   */
  exportPrometheusMetrics(globalVariables?: Record<string, string>): Promise<string>;
  /** Raw CLIENT LIST records of the connections named as workers of this queue. */
  getWorkerClients(): Promise<Record<string, string>[]>;
  /** Raw CLIENT LIST records of the connections named as QueueEvents of this queue. */
  getQueueEventsClients(): Promise<Record<string, string>[]>;
  /** Deletes the `priority` key bullmq versions before 5 wrote; 1 if it existed. */
  removeDeprecatedPriorityKey(): Promise<number>;
  /** Deletes job keys no state holds, `count` keys scanned per step, at most `limit` (0: all). */
  removeOrphanedJobs(count: number, limit: number): Promise<number>;
}
