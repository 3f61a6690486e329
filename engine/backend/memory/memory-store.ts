/**
 * Everything one memory storage holds: its queues (made on first use, as a Redis queue exists
 * once something is written under its keys) and the wake-up signals of their workers. Flows
 * link jobs across queues by full job key (`<prefix>:<queue>:<id>`), so the store also finds a
 * job from its key.
 */
import { QueueKeys } from '../../queue/keys';
import { MemoryQueue, type MemoryJob } from './memory-queue';
import { WakeSignals } from './wake-signals';

export interface JobAt {
  queue: MemoryQueue;
  id: string;
  job: MemoryJob;
}

export class MemoryStore {
  readonly signals = new WakeSignals();
  private readonly queues = new Map<string, MemoryQueue>();

  /** The queue of `keys`, made empty on first use. */
  queue(keys: QueueKeys): MemoryQueue {
    let queue = this.queues.get(keys.queueKey);
    if (!queue) {
      queue = new MemoryQueue(new QueueKeys(keys.prefix, keys.queueName), this.signals);
      this.queues.set(keys.queueKey, queue);
    }
    return queue;
  }

  /** The queue whose `<prefix>:<queue>` is `queueKey`, if it was ever used. */
  queueByKey(queueKey: string): MemoryQueue | undefined {
    return this.queues.get(queueKey);
  }

  /**
   * The job a full key names, when it exists. Ids may hold colons (a scheduler's iterations do),
   * so the key is matched against each queue's base rather than split.
   */
  jobAt(key: string): JobAt | undefined {
    for (const queue of this.queues.values()) {
      if (!key.startsWith(queue.keys.base)) continue;
      const id = key.slice(queue.keys.base.length);
      const job = queue.jobs.get(id);
      if (job) return { queue, id, job };
    }
    return undefined;
  }

  /** The queue and id a full key names, whether or not the job exists. */
  locate(key: string): { queue: MemoryQueue; id: string } | undefined {
    const found = this.jobAt(key);
    if (found) return found;
    for (const queue of this.queues.values()) {
      if (key.startsWith(queue.keys.base)) return { queue, id: key.slice(queue.keys.base.length) };
    }
    return undefined;
  }
}
