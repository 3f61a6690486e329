/**
 * Scheduler options bullmq accepts or refuses, side by side with bullmq 6.7.0: the same
 * refusal messages (code matches on them) and the same acceptance of `immediately` with
 * `every`, which changes nothing since an every schedule starts at once.
 */
import { Queue as BullQueue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, ValidationError } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

function queues() {
  return {
    bullmq: track(new BullQueue(uniqueQueueName('sv-bull'), { connection: redisOptions() })),
    oxmq: track(new Queue(uniqueQueueName('sv-oxmq'), { connection: redisOptions() })),
  };
}

async function refusal(call: () => Promise<unknown>): Promise<Error> {
  try {
    await call();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

describe('scheduler options as bullmq reads them', () => {
  it.each([
    ['both every and pattern', { every: 1000, pattern: '* * * * *' }],
    ['neither every nor pattern', {}],
  ])('refuses %s with bullmq’s message', async (_label, repeat) => {
    const { bullmq, oxmq } = queues();
    const theirs = await refusal(() => bullmq.upsertJobScheduler('s', repeat));
    const ours = await refusal(() => oxmq.upsertJobScheduler('s', repeat));
    expect(ours).toBeInstanceOf(ValidationError);
    expect(ours.message).toBe(theirs.message);
  });

  it('accepts immediately with every, first job at once, like bullmq', async () => {
    const { bullmq, oxmq } = queues();
    const warn = console.warn;
    console.warn = () => undefined; // bullmq prints a note about this combination
    try {
      const theirs = await bullmq.upsertJobScheduler('s', { every: 5000, immediately: true });
      const ours = await oxmq.upsertJobScheduler('s', { every: 5000, immediately: true });
      expect(ours?.delay).toBe(theirs?.delay);
      expect(ours?.delay).toBe(0);
      expect(await oxmq.getJobSchedulersCount()).toBe(await bullmq.getJobSchedulersCount());
    } finally {
      console.warn = warn;
    }
  });
});
