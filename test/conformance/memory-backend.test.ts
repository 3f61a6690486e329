/**
 * The memory storage (engine/backend/memory/) against the storage conformance suite. One
 * storage serves the whole file, each scenario on queues of its own, so flows reach across
 * the queues of a scenario as they do on Redis.
 */
import { memoryStorage } from 'oxmq';
import { QueueKeys } from 'oxmq/internals';
import { uniqueQueueName } from '../helpers/redis';
import { describeConformance } from './harness';
import { SCENARIO_SETS } from './scenarios';

const storage = memoryStorage();

describeConformance(
  'memory',
  () => {
    const keys = new QueueKeys('bull', uniqueQueueName('conformance'));
    const queue = { prefix: keys.prefix, name: keys.queueName };
    const connection = storage.connect({ role: 'worker', connection: undefined, queue });
    return {
      keys,
      queue: storage.queue({ connection, queue }),
      flows: storage.flows({ connection }),
      events: storage.events({ connection, queue }),
      close: () => connection.close(),
    };
  },
  SCENARIO_SETS,
);
