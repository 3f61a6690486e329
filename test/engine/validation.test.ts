import { describe, expect, it } from 'vitest';
import {
  Queue,
  ValidationError,
  Worker,
  type JobsOptions,
  type KeepJobs,
  type WorkerOptions,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

/** Every key under the queue's prefix, sorted. */
async function queueKeys(name: string): Promise<string[]> {
  const redis = track(rawClient());
  return (await redis.keys(`bull:${name}*`)).sort();
}

/** A ready queue (meta written) and a snapshot of what exists before the bad call. */
async function readyQueue(label: string) {
  const name = uniqueQueueName(label);
  const queue = track(new Queue(name, { connection: redisOptions() }));
  await queue.waitUntilReady();
  // One good job, so the id counter exists and a change to it would show.
  await queue.add('good', { ok: true });
  const redis = track(rawClient());
  const snapshot = async () => ({
    keys: await queueKeys(name),
    id: await redis.get(`bull:${name}:id`),
    wait: await redis.lrange(`bull:${name}:wait`, 0, -1),
    events: await redis.xlen(`bull:${name}:events`),
  });
  return { name, queue, snapshot };
}

function expectValidationError(error: unknown): void {
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).code).toBe('VALIDATION');
  expect((error as ValidationError).name).toBe('ValidationError');
}

/** Runs `act`, expects a ValidationError and no change at all in Redis. */
async function expectRejectedWithoutWrites(
  ctx: Awaited<ReturnType<typeof readyQueue>>,
  act: () => Promise<unknown>,
): Promise<void> {
  const before = await ctx.snapshot();
  let caught: unknown;
  try {
    await act();
  } catch (error) {
    caught = error;
  }
  expectValidationError(caught);
  expect(await ctx.snapshot()).toEqual(before);
}

function circular(): Record<string, unknown> {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
}

const badOptions: [string, JobsOptions][] = [
  ['jobId "0"', { jobId: '0' }],
  ['jobId "0:x"', { jobId: '0:x' }],
  ['an integer jobId "123"', { jobId: '123' }],
  ['jobId "a:b" (one colon)', { jobId: 'a:b' }],
  ['jobId "a:b:c:d" (three colons)', { jobId: 'a:b:c:d' }],
  ['an empty jobId', { jobId: '' }],
  ['priority -1', { priority: -1 }],
  ['priority 2097152', { priority: 2_097_152 }],
  ['priority 1.5', { priority: 1.5 }],
  ['delay -1', { delay: -1 }],
  ['delay NaN', { delay: Number.NaN }],
  ['attempts -1', { attempts: -1 }],
  ['a malformed traceparent', { traceparent: '00-not-a-trace-01' }],
  [
    'a traceparent with an all-zero trace id',
    { traceparent: `00-${'0'.repeat(32)}-${'a'.repeat(16)}-01` },
  ],
  ['tracestate without traceparent', { tracestate: 'vendor=value' }],
  ['two failure policies', { failParentOnFailure: true, ignoreDependencyOnFailure: true }],
  ['backoff jitter 2', { backoff: { type: 'fixed', delay: 100, jitter: 2 } }],
  ['a negative backoff', { backoff: -5 }],
  ['removeOnComplete -1', { removeOnComplete: -1 }],
  ['removeOnComplete 1.5', { removeOnComplete: 1.5 }],
  ['removeOnComplete { age: -1 }', { removeOnComplete: { age: -1 } }],
  ['removeOnComplete "yes"', { removeOnComplete: 'yes' as unknown as KeepJobs }],
  ['removeOnFail { count: -2 }', { removeOnFail: { count: -2 } }],
  ['lifo "yes"', { lifo: 'yes' as unknown as boolean }],
  ['the removed debounce option', { debounce: { id: 'x' } } as unknown as JobsOptions],
];

describe('Queue.add refuses bad input with a ValidationError and writes nothing', () => {
  for (const [label, opts] of badOptions) {
    it(`refuses ${label}`, async () => {
      const ctx = await readyQueue('val');
      await expectRejectedWithoutWrites(ctx, () => ctx.queue.add('bad', { x: 1 }, opts));
    });
  }

  const badData: [string, () => unknown][] = [
    ['a function', () => ({ fn: () => 1 })],
    ['a BigInt', () => ({ big: BigInt(1) })],
    ['a circular reference', circular],
    ['NaN', () => ({ n: Number.NaN })],
    ['Infinity', () => [1, Number.POSITIVE_INFINITY]],
    ['a symbol', () => ({ s: Symbol('s') })],
  ];
  for (const [label, data] of badData) {
    it(`refuses data with ${label}`, async () => {
      const ctx = await readyQueue('valdata');
      await expectRejectedWithoutWrites(ctx, () => ctx.queue.add('bad', data()));
    });
  }

  it('refuses data over sizeLimit and accepts data exactly at it', async () => {
    const ctx = await readyQueue('valsize');
    const data = { s: 'x'.repeat(100) };
    const size = Buffer.byteLength(JSON.stringify(data));
    await expectRejectedWithoutWrites(ctx, () =>
      ctx.queue.add('big', data, { sizeLimit: size - 1 }),
    );
    // Multi-byte characters count as bytes, not characters.
    const wide = { s: 'é'.repeat(50) };
    await expectRejectedWithoutWrites(ctx, () =>
      ctx.queue.add('wide', wide, { sizeLimit: JSON.stringify(wide).length }),
    );
    const ok = await ctx.queue.add('fits', data, { sizeLimit: size });
    expect(ok.id).toBeTruthy();
  });

  it('refuses a non-string job name', async () => {
    const ctx = await readyQueue('valname');
    await expectRejectedWithoutWrites(ctx, () => ctx.queue.add(42 as unknown as string, {}));
  });

  it('accepts the boundary values it must not refuse', async () => {
    const ctx = await readyQueue('valok');
    const redis = track(rawClient());
    const accepted: [string, JobsOptions][] = [
      ['repeat-like id with 3 parts', { jobId: 'repeat:s:123' }],
      ['a zero-padded id', { jobId: '0123' }],
      ['priority 2097151', { priority: 2_097_151 }],
      ['priority 0', { priority: 0 }],
      ['delay 0', { delay: 0 }],
      ['jitter 1', { backoff: { type: 'fixed', delay: 10, jitter: 1 } }],
      [
        'a valid trace context',
        {
          traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
          tracestate: 'vendor=value',
        },
      ],
      ['one failure policy', { failParentOnFailure: true }],
    ];
    for (const [label, opts] of accepted) {
      const job = await ctx.queue.add(label, {}, opts);
      expect(await redis.exists(`bull:${ctx.name}:${job.id}`), label).toBe(1);
    }
  });
});

describe('addBulk validates every job before writing any', () => {
  it('writes none when one job is bad', async () => {
    const ctx = await readyQueue('valbulk');
    await expectRejectedWithoutWrites(ctx, () =>
      ctx.queue.addBulk([
        { name: 'a', data: { n: 1 } },
        { name: 'b', data: { n: 2 } },
        { name: 'c', data: { n: 3 }, opts: { priority: -1 } },
      ]),
    );
    await expectRejectedWithoutWrites(ctx, () =>
      ctx.queue.addBulk([
        { name: 'a', data: { n: 1 } },
        { name: 'b', data: circular() },
      ]),
    );
  });

  it('refuses something that is not an array', async () => {
    const ctx = await readyQueue('valbulk2');
    await expectRejectedWithoutWrites(ctx, () =>
      ctx.queue.addBulk({ name: 'a', data: {} } as unknown as []),
    );
  });
});

describe('queue names', () => {
  it('refuses a name with ":" before opening a connection or writing a key', async () => {
    const base = uniqueQueueName('colon');
    let caught: unknown;
    try {
      track(new Queue(`${base}:x`, { connection: redisOptions() }));
    } catch (error) {
      caught = error;
    }
    expectValidationError(caught);
    expect(await queueKeys(base)).toEqual([]);
  });

  it('refuses an empty name', () => {
    let caught: unknown;
    try {
      track(new Queue('', { connection: redisOptions() }));
    } catch (error) {
      caught = error;
    }
    expectValidationError(caught);
  });

  it('refuses a Worker on such names too', () => {
    for (const bad of ['a:b', '']) {
      let caught: unknown;
      try {
        track(new Worker(bad, async () => undefined, { connection: redisOptions() }));
      } catch (error) {
        caught = error;
      }
      expectValidationError(caught);
    }
  });

  it('refuses invalid defaultJobOptions in the Queue constructor', () => {
    let caught: unknown;
    try {
      track(
        new Queue(uniqueQueueName('baddefaults'), {
          connection: redisOptions(),
          defaultJobOptions: { priority: -3 },
        }),
      );
    } catch (error) {
      caught = error;
    }
    expectValidationError(caught);
  });
});

describe('worker options', () => {
  const bad: [string, Partial<WorkerOptions>][] = [
    ['concurrency 0', { concurrency: 0 }],
    ['concurrency 1.5', { concurrency: 1.5 }],
    ['limiter max 0', { limiter: { max: 0, duration: 1000 } }],
    ['limiter duration -1', { limiter: { max: 1, duration: -1 } }],
    ['lockDuration 0', { lockDuration: 0 }],
    ['an unknown option', { lockDurration: 1000 } as Partial<WorkerOptions>],
    [
      'sandbox thread options that are not an object',
      { workerThreadsOptions: 'big' } as unknown as Partial<WorkerOptions>,
    ],
    ['maxStalledCount -1', { maxStalledCount: -1 }],
    ['maxStartedAttempts -1', { maxStartedAttempts: -1 }],
    ['an empty name', { name: '' }],
    ['drainDelay 0', { drainDelay: 0 }],
  ];
  for (const [label, opts] of bad) {
    it(`refuses ${label} without connecting`, async () => {
      const name = uniqueQueueName('valworker');
      let caught: unknown;
      try {
        track(new Worker(name, async () => undefined, { connection: redisOptions(), ...opts }));
      } catch (error) {
        caught = error;
      }
      expectValidationError(caught);
      const redis = track(rawClient());
      const clients = (await redis.client('LIST')) as string;
      expect(clients).not.toContain(`name=bull:${Buffer.from(name).toString('base64')}`);
      expect(await queueKeys(name)).toEqual([]);
    });
  }

  it('refuses a processor that is neither a function, a module path nor null', () => {
    let caught: unknown;
    try {
      track(
        new Worker(uniqueQueueName('noproc'), 42 as unknown as () => Promise<void>, {
          connection: redisOptions(),
        }),
      );
    } catch (error) {
      caught = error;
    }
    expectValidationError(caught);
  });
});

describe('job methods validate too', () => {
  it('changePriority and changeDelay refuse bad values without writing', async () => {
    const ctx = await readyQueue('valjob');
    const delayed = await ctx.queue.add('d', {}, { delay: 60_000 });
    const waiting = await ctx.queue.add('w', {});
    await expectRejectedWithoutWrites(ctx, () => waiting.changePriority({ priority: -1 }));
    await expectRejectedWithoutWrites(ctx, () => waiting.changePriority({ priority: 2_097_152 }));
    await expectRejectedWithoutWrites(ctx, () => delayed.changeDelay(-10));
  });

  it('updateData refuses data that is not JSON-safe', async () => {
    const ctx = await readyQueue('valupdate');
    const job = await ctx.queue.add('u', { v: 1 });
    const redis = track(rawClient());
    await expectRejectedWithoutWrites(ctx, () => job.updateData({ fn: () => 2 }));
    expect(await redis.hget(`bull:${ctx.name}:${job.id}`, 'data')).toBe('{"v":1}');
  });
});
