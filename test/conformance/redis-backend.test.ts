/** The Redis storage (engine/backend/redis/) against the backend and storage conformance suites. */
import { redisStorage } from 'oxmq';
import {
  QueueKeys,
  RedisQueueBackend,
  RedisQueueOperations,
  registerScripts,
} from 'oxmq/internals';
import { rawClient, uniqueQueueName } from '../helpers/redis';
import { describeBackendConformance } from './backend-scenarios';
import { describeStorageConformance } from './storage-scenarios';

describeBackendConformance('Redis', () => {
  const client = rawClient();
  registerScripts(client);
  const keys = new QueueKeys('bull', uniqueQueueName('conformance'));
  return {
    backend: new RedisQueueBackend(client, keys),
    ops: new RedisQueueOperations(client, keys),
    close: async () => {
      await client.quit();
    },
  };
});

describeStorageConformance('Redis', () => {
  const client = rawClient();
  const reader = rawClient();
  registerScripts(client);
  const keys = new QueueKeys('bull', uniqueQueueName('storage'));
  return {
    keys,
    queue: redisStorage.queue({ keys, client }),
    flows: redisStorage.flows({ client }),
    events: redisStorage.events({ keys, client: reader }),
    close: async () => {
      await Promise.all([client.quit(), reader.quit()]);
    },
  };
});
