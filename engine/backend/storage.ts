/**
 * How a Queue or Worker gets its storage: a factory given the queue's keys and the connections
 * the Queue or Worker opened, answering the three interfaces everything else uses (QueueBackend,
 * QueueOperations, GroupOperations). The default builds the Redis implementations; another
 * storage is injected with the `storage` option and must pass the backend conformance suite
 * (test/conformance/backend-scenarios.ts).
 */
import type { Redis } from 'ioredis';
import { ValidationError } from '../errors';
import type { QueueKeys } from '../keys';
import type { QueueBackend } from './queue-backend';
import type { GroupOperations, QueueOperations } from './queue-operations';
import { RedisGroupOperations } from './redis/groups';
import { RedisQueueOperations } from './redis/queue-operations';
import { RedisQueueBackend } from './redis/redis-queue-backend';

export interface StorageContext {
  keys: QueueKeys;
  /** The command connection. */
  client: Redis;
  /** A Worker's blocking connection (marker waits); absent for a Queue. */
  blockingClient?: Redis;
}

export interface QueueStorage {
  backend: QueueBackend;
  ops: QueueOperations;
  groups: GroupOperations;
}

export type StorageFactory = (context: StorageContext) => QueueStorage;

/** The `storage` option of a Queue, Worker or FlowProducer: a factory function, when given. */
export function checkStorageOption(storage: unknown): void {
  if (storage !== undefined && typeof storage !== 'function') {
    throw new ValidationError('storage must be a function (context) => { backend, ops, groups }');
  }
}

export const redisStorage: StorageFactory = ({ keys, client, blockingClient }) => ({
  backend: new RedisQueueBackend(client, keys, blockingClient),
  ops: new RedisQueueOperations(client, keys),
  groups: new RedisGroupOperations(client, keys),
});
