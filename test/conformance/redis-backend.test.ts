/** The Redis storage (engine/backend/redis/) against the storage conformance suite. */
import { redisStorage } from 'oxmq';
import { QueueKeys } from 'oxmq/internals';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { describeConformance } from './harness';
import { SCENARIO_SETS } from './scenarios';

describeConformance(
  'Redis',
  () => {
    const keys = new QueueKeys('bull', uniqueQueueName('conformance'));
    const queue = { prefix: keys.prefix, name: keys.queueName };
    // A worker's connection (commands, and a blocking line for the waits) and a reader's own.
    const connection = redisStorage.connect({ role: 'worker', connection: redisOptions(), queue });
    const reader = redisStorage.connect({ role: 'events', connection: redisOptions(), queue });
    return {
      keys,
      queue: redisStorage.queue({ connection, queue }),
      flows: redisStorage.flows({ connection }),
      events: redisStorage.events({ connection: reader, queue }),
      close: async () => {
        await Promise.all([connection.close(), reader.close()]);
      },
    };
  },
  SCENARIO_SETS,
);
