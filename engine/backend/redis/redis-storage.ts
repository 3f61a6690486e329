/**
 * The Redis storage, the default: everything stored as bullmq 6.7.0 stores it
 * (docs/redis-keys.md), over the connections RedisConnection opens from the `connection`
 * option. A storage that changes one part spreads it: `{ ...redisStorage, queue: ... }`.
 */
import { QueueKeys } from '../../queue/keys';
import type { Storage } from '../storage';
import { RedisEventLogReader } from './event-log-reader';
import { RedisFlowStorage } from './flow-storage';
import { RedisGroupOperations } from './redis-group-operations';
import { RedisTimingHistory } from './history-store';
import { RedisChores } from './queue-chores';
import { RedisQueueOperations } from './redis-queue-operations';
import { RedisConnection, redisConnectionOf } from './redis-connection';
import { RedisQueueBackend } from './redis-queue-backend';
import { RedisSchedulerStorage } from './scheduler-store';
import { RedisWorkerRegistry } from './worker-registry';

export const redisStorage: Storage = {
  connect: (request) => RedisConnection.open(request),
  queue: ({ connection, queue }) => {
    const { client, blockingClient } = redisConnectionOf(connection);
    const keys = new QueueKeys(queue.prefix, queue.name);
    return {
      backend: new RedisQueueBackend(client, keys, blockingClient),
      ops: new RedisQueueOperations(client, keys),
      groups: new RedisGroupOperations(client, keys),
      schedulers: new RedisSchedulerStorage(client, keys),
      workers: new RedisWorkerRegistry(client, keys, blockingClient),
      history: new RedisTimingHistory(client, keys),
      redis: new RedisChores(client, keys),
    };
  },
  flows: ({ connection }) => new RedisFlowStorage(redisConnectionOf(connection).client),
  events: ({ connection, queue }) =>
    new RedisEventLogReader(
      redisConnectionOf(connection).client,
      new QueueKeys(queue.prefix, queue.name),
    ),
};
