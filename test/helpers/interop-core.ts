/**
 * Helpers for the interop suites (docs/redis-keys.md), shared by both directions (B = bullmq 6.7.0,
 * N = OxMQ): job options both libraries accept, and small waits. Raw reads of a queue's Redis
 * state are in redis-state.ts.
 */
import type { JobsOptions as BullJobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobsOptions } from 'oxmq';
import { sleep, waitFor } from './redis';
import { workerNameBase } from './redis-state';

/** Job options typed for both libraries, so one literal can be handed to either `add`. */
export type SharedJobsOptions = BullJobsOptions & JobsOptions;

/**
 * Waits until a worker of `queueName` (bullmq's or ours: both name their blocking connection
 * `bull:<base64(queue)>[:w:<name>]`) sits blocked in BZPOPMIN on the marker, then a little more
 * so the block is well under way.
 */
export async function waitForBlockedWorker(redis: Redis, queueName: string): Promise<void> {
  const base = workerNameBase(queueName);
  await waitFor(async () => {
    const list = (await redis.client('LIST')) as string;
    return list.split('\n').some((line) => {
      const name = /\bname=(\S*)/.exec(line)?.[1] ?? '';
      const flags = /\bflags=(\S*)/.exec(line)?.[1] ?? '';
      const cmd = /\bcmd=(\S*)/.exec(line)?.[1] ?? '';
      return (
        (name === base || name.startsWith(`${base}:w:`)) &&
        flags.includes('b') &&
        cmd === 'bzpopmin'
      );
    });
  }, 10_000);
  await sleep(200);
}

/** Errors an emitter reports, so a test can assert that none happened. */
export function collectErrors(emitter: {
  on(event: 'error', listener: (error: Error) => void): unknown;
}): Error[] {
  const errors: Error[] = [];
  emitter.on('error', (error: Error) => errors.push(error));
  return errors;
}

/** A promise a processor can await and the test resolves when it wants the job to finish. */
export interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
