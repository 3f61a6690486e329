/**
 * A closing worker takes no new job, even one a finishing call fetched along with it: when close()
 * begins while the call that completes a job (and asks for the next) is on its way, the job that
 * call hands over goes back to wait, unrun and without an attempt used. The storage option
 * (engine/backend/storage.ts) lets the test begin the close at exactly that moment.
 */
import { describe, expect, it } from 'vitest';
import { Queue, redisStorage, Worker, type QueueBackend, type Storage } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

describe('closing with a fetched-along job', () => {
  it('puts the job that came with the last completion back in wait', async () => {
    const name = uniqueQueueName('close-next');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const first = await queue.add('first', {});
    const made: { worker?: Worker } = {};
    let closing: Promise<void> | undefined;
    const queueStorage: Storage['queue'] = (context) => {
      const real = redisStorage.queue(context);
      const backend = Object.create(real.backend) as QueueBackend;
      backend.finishJob = async (request) => {
        // The close begins after the completion (with its fetch-next) was decided and sent.
        if (request.fetchNext && made.worker) closing ??= made.worker.close();
        return real.backend.finishJob(request);
      };
      return { ...real, backend };
    };
    const storage: Storage = { ...redisStorage, queue: queueStorage };
    const ran: string[] = [];
    let second: string | undefined;
    made.worker = track(
      new Worker(
        name,
        async (job) => {
          ran.push(job.name);
          // The next job exists before the completion asks for it.
          if (job.name === 'first') second = (await queue.add('second', {})).id;
        },
        { connection: redisOptions(), storage, concurrency: 1 },
      ),
    );
    await waitFor(() => closing !== undefined);
    await closing;
    expect(ran).toEqual(['first']);
    expect(await queue.getJobState(first.id!)).toBe('completed');
    expect(await queue.getJobState(second!)).toBe('waiting');
    const job = await queue.getJob(second!);
    expect(job?.attemptsMade ?? 0).toBe(0);
    expect(await queue.getActiveCount()).toBe(0);
  });
});
