/**
 * The storage seam from the outside: Queue, Worker, FlowProducer and QueueEvents build their
 * storage with the `storage` option they are given (engine/backend/storage.ts), and everything
 * they do goes through what it returns. Here the storage wraps the Redis one and records the
 * calls made on each interface.
 */
import { describe, expect, it } from 'vitest';
import {
  FlowProducer,
  Queue,
  QueueEvents,
  QueueEventsProducer,
  redisStorage,
  ValidationError,
  Worker,
  type Storage,
  type StorageContext,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

/** Wraps `target` so that every method call is recorded as `<label>.<method>`. */
function recorded<T extends object>(target: T, label: string, calls: string[]): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`${label}.${String(property)}`);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

function recordingStorage(calls: string[], contexts: StorageContext[]): Storage {
  return {
    connect(request) {
      calls.push(`connect.${request.role}`);
      return redisStorage.connect(request);
    },
    queue(context) {
      contexts.push(context);
      const real = redisStorage.queue(context);
      return {
        backend: recorded(real.backend, 'backend', calls),
        ops: recorded(real.ops, 'ops', calls),
        groups: recorded(real.groups, 'groups', calls),
        schedulers: recorded(real.schedulers, 'schedulers', calls),
        workers: recorded(real.workers, 'workers', calls),
        history: recorded(real.history, 'history', calls),
      };
    },
    flows: (context) => recorded(redisStorage.flows(context), 'flows', calls),
    events: (context) => recorded(redisStorage.events(context), 'events', calls),
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
    expect(calls).toContain('backend.addJob');

    const done: string[] = [];
    const worker = track(
      new Worker(name, async () => 'ok', { connection: redisOptions(), storage }),
    );
    worker.on('completed', (finished) => done.push(finished.id!));
    await waitFor(() => done.includes(job.id!));
    expect(calls).toEqual(expect.arrayContaining(['backend.fetchNextJob', 'backend.finishJob']));
    expect(await queue.getJobState(job.id!)).toBe('completed');
    // Each connects as what it is: the storage opens a worker's lines for its waits too.
    expect(calls.filter((call) => call.startsWith('connect.'))).toEqual([
      'connect.queue',
      'connect.worker',
    ]);
    expect(contexts.every(({ queue }) => queue.prefix === 'bull' && queue.name === name)).toBe(
      true,
    );
  });

  it("writes a Worker's heartbeats and timing history to the storage", async () => {
    const name = uniqueQueueName('storage-worker');
    const calls: string[] = [];
    const storage = recordingStorage(calls, []);
    const queue = track(new Queue(name, { connection: redisOptions(), storage }));
    const worker = new Worker(name, async () => 'ok', { connection: redisOptions(), storage });
    const done = new Promise((resolve) => worker.once('completed', resolve));
    await queue.add('one', {});
    await done;
    await worker.close();
    expect(calls).toEqual(
      expect.arrayContaining(['workers.beat', 'workers.remove', 'history.write']),
    );
  });

  it("writes and reads a FlowProducer's flows, and its jobs, through the storage", async () => {
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
    const read = await flows.getFlow({ id: tree.job.id!, queueName: name });
    expect(read?.children?.map((node) => node.job.name)).toEqual(['child']);
    expect(calls).toEqual([
      'connect.flows',
      'flows.addFlows',
      'backend.updateProgress',
      'flows.readTree',
    ]);
    expect(contexts.every(({ queue }) => queue.name === name)).toBe(true);
  });

  it("keeps a Queue's job schedulers in the storage's scheduler store", async () => {
    const name = uniqueQueueName('storage-schedulers');
    const calls: string[] = [];
    const storage = recordingStorage(calls, []);
    const queue = track(new Queue(name, { connection: redisOptions(), storage }));
    await queue.upsertJobScheduler('tick', { every: 60_000 });
    expect(await queue.getJobSchedulersCount()).toBe(1);
    expect(await queue.removeJobScheduler('tick')).toBe(true);
    expect(calls.filter((call) => call.startsWith('schedulers.'))).toEqual([
      'schedulers.upsert',
      'schedulers.count',
      'schedulers.remove',
    ]);
  });

  it("reads QueueEvents' events through the storage's event log reader", async () => {
    const name = uniqueQueueName('storage-events');
    const calls: string[] = [];
    const events = track(
      new QueueEvents(name, { connection: redisOptions(), storage: recordingStorage(calls, []) }),
    );
    await events.waitUntilReady();
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const added = new Promise<string>((resolve) =>
      events.once('added', ({ jobId }) => resolve(jobId)),
    );
    const job = await queue.add('seen', {});
    expect(await added).toBe(job.id);
    expect(calls.slice(0, 3)).toEqual(['connect.events', 'events.lastId', 'events.read']);
  });

  it("publishes a QueueEventsProducer's custom events through the storage", async () => {
    const name = uniqueQueueName('storage-producer');
    const calls: string[] = [];
    const storage = recordingStorage(calls, []);
    const producer = track(new QueueEventsProducer(name, { connection: redisOptions(), storage }));
    await producer.publishEvent({ eventName: 'custom', n: 1 });
    expect(calls).toEqual(['connect.producer', 'backend.publishEvent']);
    const reader = track(new QueueEvents(name, { connection: redisOptions(), lastEventId: '0' }));
    const seen = new Promise((resolve) => reader.once('custom' as never, resolve));
    expect(await seen).toEqual({ n: '1' });
  });

  it('refuses a storage that is not one', () => {
    const name = uniqueQueueName('storage-bad');
    expect(
      () => new Queue(name, { connection: redisOptions(), storage: 'redis' as never }),
    ).toThrow(ValidationError);
    expect(
      () => new Worker(name, async () => 1, { connection: redisOptions(), storage: 42 as never }),
    ).toThrow(/storage must be an object with the functions connect, queue, flows and events/);
    expect(() => new FlowProducer({ connection: redisOptions(), storage: {} as never })).toThrow(
      ValidationError,
    );
    const partial = { queue: redisStorage.queue, flows: redisStorage.flows } as never;
    expect(() => new QueueEvents(name, { connection: redisOptions(), storage: partial })).toThrow(
      ValidationError,
    );
  });
});
