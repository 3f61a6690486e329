import { Queue as BullQueue, QueueEvents as BullQueueEvents, Worker as BullWorker } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { FinishedEventsSource } from 'oxmq/internals';
import { QueueEvents, type QueueEventsOptions } from 'oxmq/internals';
import { startTcpProxy } from '../helpers/engine-tcp-proxy';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { startRedis } from '../setup/redis-server';

interface Received {
  event: string;
  args: unknown[];
}

/** Anything with on(): ours or bullmq's QueueEvents. */
interface Listenable {
  on(event: string, listener: (...args: never[]) => void): unknown;
}

/** Records every call of the named events, with all listener arguments. */
function record(source: Listenable, events: string[]): Received[] {
  const received: Received[] = [];
  for (const event of events) {
    source.on(event, ((...args: unknown[]) => received.push({ event, args })) as never);
  }
  return received;
}

const b64 = (name: string) => Buffer.from(name).toString('base64');

// Everything a test opens, closed after it whatever happened.
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length)
    await cleanups
      .pop()?.()
      .catch(() => undefined);
});

function queueEvents(name: string, opts: Partial<QueueEventsOptions> = {}): QueueEvents {
  const qe = new QueueEvents(name, { connection: redisOptions(), ...opts });
  cleanups.push(() => qe.close());
  return qe;
}

function raw(): Redis {
  const client = rawClient();
  cleanups.push(() => client.quit());
  return client;
}

const eventsKey = (name: string, prefix = 'bull') => `${prefix}:${name}:events`;

// Compile-time check: job.waitUntilFinished accepts our QueueEvents.
const _isFinishedEventsSource = (qe: QueueEvents): FinishedEventsSource => qe;

describe('QueueEvents on a stream written with XADD (docs/redis-keys.md)', () => {
  it('emits every event with bullmq conversions, as <event> and <event>:<jobId>', async () => {
    const name = uniqueQueueName('qe');
    const redis = raw();
    const qe = queueEvents(name);
    const names = [
      'added',
      'waiting',
      'active',
      'progress',
      'completed',
      'failed',
      'delayed',
      'drained',
      'removed',
      'duplicated',
      'my-custom',
    ];
    const received = record(qe, [...names, ...names.map((event) => `${event}:7`)]);
    await qe.waitUntilReady();

    const entries: [string[], Received[]][] = [
      [
        ['event', 'added', 'jobId', '7', 'name', 'send'],
        [{ event: 'added', args: [{ jobId: '7', name: 'send' }] }],
      ],
      [['event', 'waiting', 'jobId', '7'], [{ event: 'waiting', args: [{ jobId: '7' }] }]],
      [
        ['event', 'active', 'jobId', '7', 'prev', 'waiting'],
        [{ event: 'active', args: [{ jobId: '7', prev: 'waiting' }] }],
      ],
      [
        ['event', 'progress', 'jobId', '7', 'data', '{"p":50,"steps":["a"]}'],
        [{ event: 'progress', args: [{ jobId: '7', data: { p: 50, steps: ['a'] } }] }],
      ],
      [
        ['event', 'progress', 'jobId', '7', 'data', '42'],
        [{ event: 'progress', args: [{ jobId: '7', data: 42 }] }],
      ],
      [
        [
          'event',
          'completed',
          'jobId',
          '7',
          'returnvalue',
          '{"res":[1,"x"],"n":null}',
          'prev',
          'active',
        ],
        [
          {
            event: 'completed',
            args: [{ jobId: '7', returnvalue: { res: [1, 'x'], n: null }, prev: 'active' }],
          },
        ],
      ],
      [
        [
          'event',
          'failed',
          'jobId',
          '7',
          'failedReason',
          'boom: {"not":"parsed"}',
          'prev',
          'active',
        ],
        [
          {
            event: 'failed',
            args: [{ jobId: '7', failedReason: 'boom: {"not":"parsed"}', prev: 'active' }],
          },
        ],
      ],
      [
        ['event', 'delayed', 'jobId', '7', 'delay', '1796208913564'],
        [{ event: 'delayed', args: [{ jobId: '7', delay: 1796208913564 }] }],
      ],
      // drained carries no fields and is emitted with the stream id only.
      [['event', 'drained'], [{ event: 'drained', args: [] }]],
      [
        ['event', 'removed', 'jobId', '7', 'prev', 'delayed'],
        [{ event: 'removed', args: [{ jobId: '7', prev: 'delayed' }] }],
      ],
      [['event', 'duplicated', 'jobId', '7'], [{ event: 'duplicated', args: [{ jobId: '7' }] }]],
      // A custom event (QueueEventsProducer.publishEvent): fields pass through as strings.
      [
        ['event', 'my-custom', 'jobId', '7', 'count', '3', 'data', '{"a":1}'],
        [{ event: 'my-custom', args: [{ jobId: '7', count: '3', data: '{"a":1}' }] }],
      ],
    ];

    const expected: Received[] = [];
    for (const [fields, events] of entries) {
      const id = (await redis.xadd(eventsKey(name), '*', ...fields)) as string;
      for (const { event, args } of events) {
        expected.push({ event, args: [...args, id] });
        // Every event with a jobId is also emitted under <event>:<jobId>, same args.
        if (event !== 'drained') expected.push({ event: `${event}:7`, args: [...args, id] });
      }
    }
    await waitFor(() => received.length >= expected.length);
    await sleep(50); // nothing extra may trail
    expect(received).toEqual(expected);
  });

  it('passes a completed.returnvalue that is not JSON on as its raw text', async () => {
    const name = uniqueQueueName('qe');
    const qe = queueEvents(name);
    const received = record(qe, ['completed']);
    await qe.waitUntilReady();
    const id = await raw().xadd(
      eventsKey(name),
      '*',
      'event',
      'completed',
      'jobId',
      '1',
      'returnvalue',
      'not json',
      'prev',
      'active',
    );
    await waitFor(() => received.length === 1);
    expect(received[0]?.args).toEqual([
      { jobId: '1', returnvalue: 'not json', prev: 'active' },
      id,
    ]);
  });

  it('replays the whole history with lastEventId "0"', async () => {
    const name = uniqueQueueName('qe');
    const redis = raw();
    const ids: string[] = [];
    for (const jobId of ['1', '2', '3']) {
      ids.push(
        (await redis.xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', jobId)) as string,
      );
    }
    const qe = queueEvents(name, { lastEventId: '0' });
    const received = record(qe, ['waiting']);
    await waitFor(() => received.length === 3);
    expect(received.map((r) => r.args)).toEqual([
      [{ jobId: '1' }, ids[0]],
      [{ jobId: '2' }, ids[1]],
      [{ jobId: '3' }, ids[2]],
    ]);
  });

  it("with lastEventId '$', receives an event written right after waitUntilReady(), not older ones", async () => {
    const redis = raw();
    // Repeated with fresh readers: a race between the first XREAD and the XADD would show here.
    for (let round = 0; round < 5; round++) {
      const name = uniqueQueueName('qe');
      await redis.xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', 'old');
      const qe = queueEvents(name);
      const received = record(qe, ['waiting']);
      await qe.waitUntilReady();
      await redis.xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', 'new');
      await waitFor(() => received.length > 0, 3_000);
      await sleep(20);
      expect(received.map((r) => r.args[0])).toEqual([{ jobId: 'new' }]);
      await qe.close();
    }
  });

  it("with lastEventId '$' on an empty stream, receives the first event written after waitUntilReady()", async () => {
    const name = uniqueQueueName('qe');
    const qe = queueEvents(name);
    const received = record(qe, ['added']);
    await qe.waitUntilReady();
    await raw().xadd(eventsKey(name), '*', 'event', 'added', 'jobId', '1', 'name', 'n');
    await waitFor(() => received.length === 1, 3_000);
  });

  it('with autorun false, waitUntilReady() fixes the position and run() starts reading; run() twice throws', async () => {
    const name = uniqueQueueName('qe');
    const qe = queueEvents(name, { autorun: false });
    const received = record(qe, ['waiting']);
    await qe.waitUntilReady();
    await raw().xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', '1');
    await sleep(50);
    expect(received).toEqual([]);
    const running = qe.run();
    await expect(qe.run()).rejects.toThrow('already running');
    await waitFor(() => received.length === 1, 3_000);
    await qe.close();
    await expect(running).resolves.toBeUndefined();
  });

  it('close() interrupts a blocked XREAD promptly, emits closed once, and is idempotent', async () => {
    const name = uniqueQueueName('qe');
    const redis = raw();
    const qe = queueEvents(name, { blockingTimeout: 10_000, autorun: false });
    const running = qe.run();
    await qe.waitUntilReady();
    // The reader is blocked inside Redis, not merely about to be.
    await waitFor(async () => {
      const list = (await redis.client('LIST')) as string;
      return list
        .split('\n')
        .some((line) => line.includes(`name=bull:${b64(name)}:qe `) && line.includes('cmd=xread'));
    });
    let closed = 0;
    qe.on('closed', () => closed++);
    const startedAt = Date.now();
    const closing = qe.close();
    expect(qe.close()).toBe(closing);
    await closing;
    // Behavioural bound (the block would last 10 s), not a benchmark.
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    await expect(running).resolves.toBeUndefined();
    await qe.close();
    expect(closed).toBe(1);
    await expect(qe.run()).rejects.toThrow('closed');
    await expect(qe.waitUntilReady()).rejects.toMatchObject({ code: 'CLOSED' });
    const list = (await redis.client('LIST')) as string;
    expect(list).not.toContain(`name=bull:${b64(name)}:qe `);
  });

  it('closes promptly before it ever connected', async () => {
    // Nothing listens on port 1: the connection keeps retrying until closed.
    const qe = new QueueEvents(uniqueQueueName('qe'), {
      connection: { host: '127.0.0.1', port: 1 },
    });
    const ready = qe.waitUntilReady();
    await sleep(100);
    const startedAt = Date.now();
    await qe.close();
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    await expect(ready).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('names its connection <prefix>:<base64(name)>:qe', async () => {
    const name = uniqueQueueName('qé');
    const redis = raw();
    const qe = queueEvents(name);
    const custom = queueEvents(name, { prefix: 'my:pfx' });
    await Promise.all([qe.waitUntilReady(), custom.waitUntilReady()]);
    const names = ((await redis.client('LIST')) as string)
      .split('\n')
      .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1])
      .filter((clientName) => clientName?.includes(b64(name)));
    expect(names.sort()).toEqual([`bull:${b64(name)}:qe`, `my:pfx:${b64(name)}:qe`]);
  });

  it('emits connection errors and keeps reading once the error is gone', async () => {
    const name = uniqueQueueName('qe');
    const redis = raw();
    await redis.set(eventsKey(name), 'not a stream'); // XREAD fails with WRONGTYPE
    const qe = queueEvents(name, { lastEventId: '0' });
    const errors: Error[] = [];
    qe.on('error', (error) => errors.push(error));
    const received = record(qe, ['waiting']);
    await waitFor(() => errors.length > 0);
    expect(errors[0]?.message).toMatch(/WRONGTYPE/);
    await redis.del(eventsKey(name));
    await redis.xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', '1');
    await waitFor(() => received.length === 1, 5_000);
  });

  it('swallows errors when nobody listens for them, and keeps reading', async () => {
    const name = uniqueQueueName('qe');
    const redis = raw();
    await redis.set(eventsKey(name), 'not a stream');
    const qe = queueEvents(name); // '$': the position read itself fails first
    const received = record(qe, ['waiting']);
    await sleep(300);
    await redis.del(eventsKey(name));
    await qe.waitUntilReady();
    await redis.xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', '1');
    await waitFor(() => received.length === 1, 5_000);
  });
});

describe('QueueEvents interop with bullmq 6.7.0', () => {
  const interopEvents = [
    'added',
    'waiting',
    'active',
    'progress',
    'completed',
    'failed',
    'retries-exhausted',
    'drained',
    'sentinel',
  ];

  it('receives the same payloads as bullmq QueueEvents for jobs a bullmq Worker completes and fails', async () => {
    const name = uniqueQueueName('qe-interop');
    // From '0' both replay the stream from its start: no race on who started reading first.
    const ours = queueEvents(name, { lastEventId: '0' });
    const theirs = new BullQueueEvents(name, { connection: redisOptions(), lastEventId: '0' });
    cleanups.push(() => theirs.close());
    const oursReceived = record(ours, [...interopEvents, 'completed:ok-1', 'failed:bad-1']);
    const theirsReceived = record(theirs, [...interopEvents, 'completed:ok-1', 'failed:bad-1']);

    const queue = new BullQueue(name, { connection: redisOptions() });
    cleanups.push(() => queue.close());
    const worker = new BullWorker(
      name,
      async (job) => {
        if (job.name === 'bad') throw new Error('boom');
        await job.updateProgress({ step: 1 });
        return { ok: true, list: [1, 'two'] };
      },
      { connection: redisOptions() },
    );
    cleanups.push(() => worker.close());
    await queue.add('good', { a: 1 }, { jobId: 'ok-1' });
    await queue.add('bad', { b: 2 }, { jobId: 'bad-1' });
    await waitFor(
      () =>
        oursReceived.some((r) => r.event === 'failed') &&
        oursReceived.some((r) => r.event === 'completed'),
    );
    await worker.close();
    // Nothing else writes now; a last marker tells when both readers have seen everything.
    await raw().xadd(eventsKey(name), '*', 'event', 'sentinel');
    await waitFor(() =>
      [oursReceived, theirsReceived].every((list) => list.some((r) => r.event === 'sentinel')),
    );

    expect(oursReceived).toEqual(theirsReceived);
    const payload = (event: string) => oursReceived.find((r) => r.event === event)?.args[0];
    expect(payload('added')).toEqual({ jobId: 'ok-1', name: 'good' });
    expect(payload('active')).toEqual({ jobId: 'ok-1', prev: 'waiting' });
    expect(payload('progress')).toEqual({ jobId: 'ok-1', data: { step: 1 } });
    expect(payload('completed')).toEqual({
      jobId: 'ok-1',
      returnvalue: { ok: true, list: [1, 'two'] },
      prev: 'active',
    });
    expect(payload('completed:ok-1')).toEqual(payload('completed'));
    expect(payload('failed')).toEqual({ jobId: 'bad-1', failedReason: 'boom', prev: 'active' });
    expect(payload('failed:bad-1')).toEqual(payload('failed'));
    expect(oursReceived.filter((r) => r.event === 'waiting').map((r) => r.args[0])).toEqual([
      { jobId: 'ok-1' },
      { jobId: 'bad-1' },
    ]);
  });

  it("is listed by bullmq's queue.getQueueEvents()", async () => {
    const name = uniqueQueueName('qe-interop');
    const qe = queueEvents(name);
    await qe.waitUntilReady();
    const queue = new BullQueue(name, { connection: redisOptions() });
    cleanups.push(() => queue.close());
    const listed = await queue.getQueueEvents();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name, rawname: `bull:${b64(name)}:qe` });
    await qe.close();
    expect(await queue.getQueueEvents()).toHaveLength(0);
  });
});

// ---- a connection that stops answering without closing ----------------------------------

describe('QueueEvents on a connection that stops answering', () => {
  it('gives up on an XREAD past blockingTimeout + grace, reconnects and reads on', async () => {
    const proxy = await startTcpProxy(redisOptions().port);
    cleanups.push(() => proxy.close());
    const name = uniqueQueueName('qe-frozen');
    const qe = new QueueEvents(name, {
      connection: { host: '127.0.0.1', port: proxy.port, maxRetriesPerRequest: null },
      blockingTimeout: 300,
    });
    cleanups.push(() => qe.close());
    const received = record(qe, ['waiting']);
    await qe.waitUntilReady();
    // Every open connection ('' is in all) stops relaying, its sockets stay open: ioredis sees no
    // error and no close, only a watchdog can notice. Connections made later pass normally.
    proxy.freezeWhere('');
    await raw().xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', '1');
    await waitFor(() => received.length === 1, 5_000);
    await sleep(100);
    expect(received.map((r) => r.args[0])).toEqual([{ jobId: '1' }]);
  });
});

// ---- a Redis restart, on a server of this test's own ---------------------------------------

describe('QueueEvents across a Redis restart', () => {
  it('reconnects, renames its connection and keeps receiving', async () => {
    const server = await startRedis();
    cleanups.push(() => server.stop());
    const connection: RedisOptions = {
      host: '127.0.0.1',
      port: server.port,
      maxRetriesPerRequest: null,
    };
    const redis = new Redis(connection);
    redis.on('error', () => undefined); // it reconnects too
    cleanups.push(async () => redis.disconnect());

    const name = uniqueQueueName('qe-restart');
    const qe = new QueueEvents(name, { connection });
    cleanups.push(() => qe.close());
    const errors: Error[] = [];
    qe.on('error', (error) => errors.push(error));
    const received = record(qe, ['waiting']);
    await qe.waitUntilReady();
    await redis.xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', 'before');
    await waitFor(() => received.length === 1, 3_000);

    await server.restart();
    // Back, and named again (ioredis re-sends CLIENT SETNAME on reconnect).
    await waitFor(
      async () => ((await redis.client('LIST')) as string).includes(`name=bull:${b64(name)}:qe `),
      15_000,
      100,
    );
    await redis.xadd(eventsKey(name), '*', 'event', 'waiting', 'jobId', 'after');
    await waitFor(() => received.length === 2, 15_000);
    expect(received.map((r) => r.args[0])).toEqual([{ jobId: 'before' }, { jobId: 'after' }]);
  });
});
