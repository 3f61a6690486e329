/**
 * The storage seam from the outside: Queue and Worker build their storage with the `storage`
 * factory they are given (engine/backend/storage.ts), and everything they do goes through what
 * it returns. Here the factory wraps the Redis storage and records the backend calls made.
 */
import { describe, expect, it } from 'vitest';
import {
  FlowProducer,
  Queue,
  redisStorage,
  ValidationError,
  Worker,
  type QueueBackend,
  type StorageContext,
  type StorageFactory,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

function recordingStorage(calls: string[], contexts: StorageContext[]): StorageFactory {
  return (context) => {
    contexts.push(context);
    const real = redisStorage(context);
    const backend = new Proxy(real.backend, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as QueueBackend;
    return { ...real, backend };
  };
}

describe('the storage option', () => {
  it('gives a Queue and a Worker the storage the factory builds', async () => {
    const name = uniqueQueueName('storage');
    const calls: string[] = [];
    const contexts: StorageContext[] = [];
    const storage = recordingStorage(calls, contexts);
    const queue = track(new Queue(name, { connection: redisOptions(), storage }));
    const job = await queue.add('one', { n: 1 });
    expect(calls).toContain('addJob');

    const done: string[] = [];
    const worker = track(
      new Worker(name, async () => 'ok', { connection: redisOptions(), storage }),
    );
    worker.on('completed', (finished) => done.push(finished.id!));
    await waitFor(() => done.includes(job.id!));
    expect(calls).toEqual(expect.arrayContaining(['fetchNextJob', 'finishJob']));
    expect(await queue.getJobState(job.id!)).toBe('completed');
    // The Queue's context has no blocking connection; the Worker's has its own.
    expect(contexts.map((context) => context.blockingClient === undefined)).toEqual([true, false]);
    expect(contexts.every((context) => context.keys.queueKey === `bull:${name}`)).toBe(true);
  });

  it('gives the jobs a FlowProducer returns the storage the factory builds', async () => {
    const name = uniqueQueueName('storage-flow');
    const calls: string[] = [];
    const contexts: StorageContext[] = [];
    const flows = track(
      new FlowProducer({
        connection: redisOptions(),
        storage: recordingStorage(calls, contexts),
      }),
    );
    const tree = await flows.add({
      name: 'parent',
      queueName: name,
      children: [{ name: 'child', queueName: name }],
    });
    await tree.children![0]!.job.updateProgress(10);
    expect(calls).toContain('updateProgress');
    expect(contexts.every((context) => context.keys.queueKey === `bull:${name}`)).toBe(true);
  });

  it('refuses a storage that is not a factory', () => {
    const name = uniqueQueueName('storage-bad');
    expect(
      () => new Queue(name, { connection: redisOptions(), storage: 'redis' as never }),
    ).toThrow(ValidationError);
    expect(
      () => new Worker(name, async () => 1, { connection: redisOptions(), storage: 42 as never }),
    ).toThrow(/storage must be a function/);
    expect(() => new FlowProducer({ connection: redisOptions(), storage: {} as never })).toThrow(
      ValidationError,
    );
  });
});
