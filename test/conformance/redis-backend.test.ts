/** The Redis storage (engine/backend/redis/) against the storage conformance suite. */
import { redisStorage } from 'oxmq';
import { QueueKeys, registerScripts } from 'oxmq/internals';
import { rawClient, uniqueQueueName } from '../helpers/redis';
import { describeConformance } from './harness';
import { SCENARIO_SETS } from './scenarios';

describeConformance(
  'Redis',
  () => {
    const client = rawClient();
    const blocking = rawClient();
    const reader = rawClient();
    registerScripts(client);
    const keys = new QueueKeys('bull', uniqueQueueName('conformance'));
    return {
      keys,
      queue: redisStorage.queue({ keys, client, blockingClient: blocking }),
      flows: redisStorage.flows({ client }),
      events: redisStorage.events({ keys, client: reader }),
      close: async () => {
        await Promise.all([client.quit(), reader.quit()]);
        blocking.disconnect();
      },
    };
  },
  SCENARIO_SETS,
);
