/** The Redis backend (engine/backend/redis/) against the backend conformance suite. */
import {
  QueueKeys,
  RedisQueueBackend,
  RedisQueueOperations,
  registerScripts,
} from 'oxmq/internals';
import { rawClient, uniqueQueueName } from '../helpers/redis';
import { describeBackendConformance } from './backend-scenarios';

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
