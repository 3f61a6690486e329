/**
 * The same bullmq program (test/interop/ported/program.ts) against the real bullmq 6.7.0 and
 * against OxMQ, on the same Redis: the transcripts must be equal. It covers queues and their
 * getters, workers, events and waitUntilFinished, retries, flows, job schedulers, a job moving
 * itself to delayed, cancellation and manual processing.
 */
import * as bullmq from 'bullmq';
import { describe, expect, it } from 'vitest';
import * as oxmq from 'oxmq';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { runProgram, type Library } from './ported/program';

describe('a bullmq program ported by changing the import', () => {
  it('sees the same things on OxMQ as on bullmq', async () => {
    const connection = redisOptions();
    const withBullmq = await runProgram(bullmq, connection, uniqueQueueName('ported-bull'));
    const withOxmq = await runProgram(
      oxmq as unknown as Library,
      connection,
      uniqueQueueName('ported-oxmq'),
    );
    expect(withOxmq).toEqual(withBullmq);
  }, 60_000);
});
