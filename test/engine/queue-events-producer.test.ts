/**
 * QueueEventsProducer: custom events reach OxMQ's and bullmq's QueueEvents, and the stream is
 * trimmed as bullmq trims it; QueueEvents' bullmq base members.
 */
import { QueueEvents as BullQueueEvents, QueueEventsProducer as BullProducer } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { QueueEvents, QueueEventsProducer, ValidationError } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

describe('QueueEventsProducer', () => {
  it('publishes custom events that both libraries emit under their name', async () => {
    const name = uniqueQueueName('qep');
    const ours = track(new QueueEvents(name, { connection: redisOptions() }));
    const theirs = track(new BullQueueEvents(name, { connection: redisOptions() }));
    await ours.waitUntilReady();
    await theirs.waitUntilReady();
    const seenByUs: unknown[] = [];
    const seenByThem: unknown[] = [];
    ours.on('job-tagged', (args: unknown) => seenByUs.push(args));
    theirs.on('job-tagged' as 'added', (args: unknown) => seenByThem.push(args));

    const producer = track(new QueueEventsProducer(name, { connection: redisOptions() }));
    await producer.publishEvent({ eventName: 'job-tagged', jobId: '7', count: 3, meta: { a: 1 } });
    await waitFor(() => seenByUs.length === 1 && seenByThem.length === 1);
    const expected = { jobId: '7', count: '3', meta: '{"a":1}' };
    expect(seenByUs[0]).toEqual(expected);
    expect(seenByThem[0]).toEqual(expected);
  });

  it('writes the same stream entry as bullmq for string fields, trimmed to about maxEvents', async () => {
    const name = uniqueQueueName('qep');
    const producer = track(new QueueEventsProducer(name, { connection: redisOptions() }));
    const bullProducer = track(new BullProducer(name, { connection: redisOptions() }));
    await producer.publishEvent({ eventName: 'x', jobId: '1', note: 'hi' });
    await bullProducer.publishEvent({ eventName: 'x', jobId: '1', note: 'hi' });
    const redis = track(rawClient());
    const entries = await redis.xrange(producer.toKey('events'), '-', '+');
    expect(entries.map(([, fields]) => fields)).toEqual([
      ['event', 'x', 'jobId', '1', 'note', 'hi'],
      ['event', 'x', 'jobId', '1', 'note', 'hi'],
    ]);
    for (let i = 0; i < 400; i++) await producer.publishEvent({ eventName: 'x' }, 100);
    // MAXLEN ~ keeps whole macro nodes (100 entries by default): about 100, never all 402.
    expect(await redis.xlen(producer.toKey('events'))).toBeLessThan(250);
  });

  it('refuses an event without a name', async () => {
    const producer = track(
      new QueueEventsProducer(uniqueQueueName('qep'), { connection: redisOptions() }),
    );
    await expect(producer.publishEvent({} as { eventName: string })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(() => new QueueEventsProducer('q', undefined as never)).toThrow(ValidationError);
  });
});

describe('QueueEvents base members', () => {
  it('names its keys as bullmq does', async () => {
    const name = uniqueQueueName('qeb');
    const ours = track(new QueueEvents(name, { connection: redisOptions(), autorun: false }));
    const theirs = track(new BullQueueEvents(name, { connection: redisOptions(), autorun: false }));
    expect(ours.toKey('events')).toBe(theirs.toKey('events'));
    expect(ours.qualifiedName).toBe(theirs.qualifiedName);
    expect(ours.opts.autorun).toBe(false);
    await ours.disconnect();
  });
});
