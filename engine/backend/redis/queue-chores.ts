/**
 * What only the Redis storage does for a queue (RedisQueueChores, engine/backend/redis-queue-chores.ts):
 * names of the connections in CLIENT LIST, the Prometheus snapshot of its keys (the admin's,
 * engine/admin/redis/prometheus/), and clean-ups of keys that only older bullmq versions or
 * crashes leave in Redis. No other storage has connections or such keys, so these
 * are not part of the interfaces the conformance suite holds every storage to.
 */
import type { RedisClient } from './connection';
import type { QueueKeys } from '../../queue/keys';
import type { RedisQueueChores } from '../redis-queue-chores';
import { exportQueuePrometheusMetrics } from '../../admin/redis/prometheus/queue-export';
import { getWorkerClients } from './queue-controls';
import { getQueueEventsClients, removeDeprecatedPriorityKey } from './queue-housekeeping';
import { removeOrphanedJobs } from './remove-orphaned-jobs';

export class RedisChores implements RedisQueueChores {
  constructor(
    readonly client: RedisClient,
    private readonly keys: QueueKeys,
  ) {}

  exportPrometheusMetrics(globalVariables?: Record<string, string>): Promise<string> {
    const { prefix, queueName } = this.keys;
    return exportQueuePrometheusMetrics(this.client, prefix, queueName, globalVariables);
  }

  getWorkerClients(): Promise<Record<string, string>[]> {
    return getWorkerClients(this.client, this.keys);
  }

  getQueueEventsClients(): Promise<Record<string, string>[]> {
    return getQueueEventsClients(this.client, this.keys);
  }

  removeDeprecatedPriorityKey(): Promise<number> {
    return removeDeprecatedPriorityKey(this.client, this.keys);
  }

  removeOrphanedJobs(count: number, limit: number): Promise<number> {
    return removeOrphanedJobs(this.client, this.keys, count, limit);
  }
}
