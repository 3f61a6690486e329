// Type-checked, not run: the package's declarations as a TypeScript service sees them.
import { Queue, Worker, type Job } from 'oxmq';
import { listQueues, type QueueList } from 'oxmq/admin';
import type { Redis } from 'ioredis';

interface Email {
  to: string;
}

export async function produce(queue: Queue<Email>): Promise<string | undefined> {
  const job: Job<Email> = await queue.add('send', { to: 'a@example.com' });
  // @ts-expect-error: the data type is checked
  await queue.add('send', { to: 42 });
  return job.id;
}

export function internals(queue: Queue<Email>): unknown[] {
  return [
    // @ts-expect-error: the storage seam is internal, not part of the package's types
    queue.backend,
    // @ts-expect-error: as are the operations behind it
    queue.ops,
  ];
}

export function consume(): Worker<Email, number> {
  return new Worker<Email, number>(
    'emails',
    async (job) => {
      const to: string = job.data.to;
      return to.length;
    },
    { connection: { host: '127.0.0.1' }, concurrency: 4 },
  );
}

export function list(client: Redis): Promise<QueueList> {
  return listQueues(client, ['bull']);
}

// @ts-expect-error: only `oxmq` and `oxmq/admin` are exported
export type { Something } from 'oxmq/dist/index.cjs';
