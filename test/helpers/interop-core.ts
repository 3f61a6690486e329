/**
 * Helpers for the core interop suite (spec §15 cases 1-12): raw reads of a queue's Redis state
 * and small waits, shared by both directions (B = bullmq 6.7.0, N = OxMQ).
 */
import type { JobsOptions as BullJobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobsOptions } from '../../engine';
import { sleep, waitFor } from './redis';

/** Job options typed for both libraries, so one literal can be handed to either `add`. */
export type SharedJobsOptions = BullJobsOptions & JobsOptions;

/** One events-stream entry as its field map (stream id kept apart, so entries compare by content). */
export interface StreamEvent {
  id: string;
  fields: Record<string, string>;
}

export const queueKey = (queueName: string, suffix = '') => `bull:${queueName}:${suffix}`;

/** Every entry of the queue's events stream, oldest first. */
export async function readEvents(redis: Redis, queueName: string): Promise<StreamEvent[]> {
  const entries = await redis.xrange(queueKey(queueName, 'events'), '-', '+');
  return entries.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return { id, fields };
  });
}

/** The events of one job, as `{event, ...fields}` objects without the stream id. */
export async function jobEvents(
  redis: Redis,
  queueName: string,
  jobId: string,
): Promise<Record<string, string>[]> {
  return (await readEvents(redis, queueName))
    .map((entry) => entry.fields)
    .filter((fields) => fields.jobId === jobId);
}

/** The stream's entries reduced to event names (drained included). */
export async function eventNames(redis: Redis, queueName: string): Promise<string[]> {
  return (await readEvents(redis, queueName)).map((entry) => entry.fields.event ?? '?');
}

/** A sorted set as [member, score] pairs, lowest score first (scores as Redis prints them). */
export async function zsetWithScores(redis: Redis, key: string): Promise<[string, string][]> {
  const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs;
}

/**
 * Waits until a worker of `queueName` (bullmq's or ours: both name their blocking connection
 * `bull:<base64(queue)>[:w:<name>]`) sits blocked in BZPOPMIN on the marker, then a little more
 * so the block is well under way.
 */
export async function waitForBlockedWorker(redis: Redis, queueName: string): Promise<void> {
  const base = `bull:${Buffer.from(queueName).toString('base64')}`;
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
