/**
 * The memory storage (engine/backend/memory/) against the storage conformance suite. One
 * storage serves the whole file, each scenario on queues of its own, so flows reach across
 * the queues of a scenario as they do on Redis.
 */
import { memoryStorage, QueueKeys } from 'oxmq/internals';
import { uniqueQueueName } from '../helpers/redis';
import { describeConformance } from './harness';
import { SCENARIO_SETS } from './scenarios';

const storage = memoryStorage();

describeConformance(
  'memory',
  () => {
    const keys = new QueueKeys('bull', uniqueQueueName('conformance'));
    const unused = undefined as never;
    return {
      keys,
      queue: storage.queue({ keys, client: unused }),
      flows: storage.flows({ client: unused }),
      events: storage.events({ keys, client: unused }),
      close: async () => undefined,
    };
  },
  SCENARIO_SETS,
);
