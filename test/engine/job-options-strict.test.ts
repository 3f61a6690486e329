/**
 * Job options are strict (an unknown or unsupported name is a ValidationError naming it, and
 * nothing is written), the flat aliases groupKey / deduplicationId / debounceDuration store the
 * canonical options, and a job scheduler accepts tz with every as bullmq 6.7 does.
 */
import { Queue as BullQueue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, ValidationError, type JobsOptions } from 'oxmq';
import { acceptedJobOptions } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

function queue(label: string, opts: Partial<ConstructorParameters<typeof Queue>[1]> = {}): Queue {
  return track(new Queue(uniqueQueueName(label), { connection: redisOptions(), ...opts }));
}

async function expectRefused(act: () => Promise<unknown>, naming: string): Promise<void> {
  const error = await act().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as Error).message).toContain(naming);
}

const odd = (opts: Record<string, unknown>) => opts as unknown as JobsOptions;

describe('strict job options', () => {
  const refused: [string, Record<string, unknown>, string][] = [
    ['a typo', { atempts: 3 }, '"atempts"'],
    ['an unknown name', { foo: 1 }, '"foo"'],
    ['legacy repeat', { repeat: { every: 1000 } }, 'upsertJobScheduler'],
    ['repeatJobKey', { repeatJobKey: 'k' }, 'repeatJobKey'],
    ['prevMillis', { prevMillis: 5 }, 'prevMillis'],
    ['debounce', { debounce: { id: 'x' } }, 'debounce'],
    ['an unknown backoff field', { backoff: { type: 'fixed', dealy: 5 } }, '"dealy"'],
    ['an unknown deduplication field', { deduplication: { id: 'd', tll: 5 } }, '"tll"'],
    [
      'deduplication.keepLastIfActive',
      { deduplication: { id: 'd', keepLastIfActive: true } },
      'keepLastIfActive',
    ],
    ['an unknown removeOnComplete field', { removeOnComplete: { cnt: 5 } }, '"cnt"'],
    ['an unknown telemetry field', { telemetry: { meta: 'x' } }, '"meta"'],
  ];
  for (const [label, opts, naming] of refused) {
    it(`refuses ${label} in Queue.add, writing nothing`, async () => {
      const q = queue('strict');
      await q.waitUntilReady();
      await expectRefused(() => q.add('j', {}, odd(opts)), naming);
      expect(await q.getJobCountByTypes('waiting', 'delayed', 'prioritized')).toBe(0);
    });
  }

  it('refuses an unknown option in addBulk, defaultJobOptions and flow nodes', async () => {
    const q = queue('strictbulk');
    await expectRefused(
      () =>
        q.addBulk([
          { name: 'ok', data: {} },
          { name: 'bad', data: {}, opts: odd({ x: 1 }) },
        ]),
      '"x"',
    );
    expect(await q.count()).toBe(0);
    expect(() => queue('strictdefaults', { defaultJobOptions: odd({ retries: 2 }) })).toThrow(
      ValidationError,
    );
    const flows = track(new FlowProducer({ connection: redisOptions() }));
    await expectRefused(
      () =>
        flows.add({
          name: 'p',
          queueName: q.name,
          children: [{ name: 'c', queueName: q.name, opts: odd({ priorty: 1 }) }],
        }),
      '"priorty"',
    );
    expect(await q.count()).toBe(0);
  });

  it('copies of foreign options keep only what an add accepts', async () => {
    const q = queue('strictcopy');
    const foreign = { attempts: 3, foo: 1, repeatJobKey: 'k', group: { id: 'g' } };
    const job = await q.add('copy', {}, acceptedJobOptions(foreign) as JobsOptions);
    expect(job.opts).toMatchObject({ attempts: 3, group: { id: 'g' } });
    expect(job.opts).not.toHaveProperty('foo');
  });

  it('lets undefined values through, as bullmq drops them', async () => {
    const q = queue('strictundef');
    const job = await q.add('j', {}, odd({ whatever: undefined }));
    expect(job.id).toBeTruthy();
  });
});

describe('option aliases', () => {
  it('stores groupKey as group and deduplicationId as deduplication', async () => {
    const q = queue('alias');
    const grouped = await q.add('g', {}, { groupKey: 'tenant-a' });
    const deduped = await q.add('d', {}, { deduplicationId: 'once' });
    const again = await q.add('d', {}, { deduplicationId: 'once' });
    expect(again.id).toBe(deduped.id);
    const bull = track(
      new BullQueue(q.name, { connection: redisOptions(), skipMetasUpdate: true }),
    );
    const stored = await bull.getJob(deduped.id);
    expect(stored?.opts.deduplication).toEqual({ id: 'once' });
    expect(stored?.deduplicationId).toBe('once');
    expect(stored?.opts).not.toHaveProperty('deduplicationId');
    const redis = track(rawClient());
    const opts = JSON.parse((await redis.hget(q.toKey(grouped.id), 'opts')) ?? '{}');
    expect(opts.group).toEqual({ id: 'tenant-a' });
    expect(opts).not.toHaveProperty('groupKey');
    expect((await q.getGroup('tenant-a')).waiting).toBe(1);
  });

  it('debounces with debounceDuration: the last job of a burst runs, once', async () => {
    const q = queue('debounce');
    const first = await q.add('d', { n: 1 }, { deduplicationId: 'k', debounceDuration: 300 });
    const second = await q.add('d', { n: 2 }, { deduplicationId: 'k', debounceDuration: 300 });
    expect(second.id).not.toBe(first.id);
    expect(await q.getJob(first.id)).toBeUndefined();
    const kept = await q.getJob(second.id);
    expect(kept?.data).toEqual({ n: 2 });
    expect(kept?.opts.deduplication).toEqual({ id: 'k', ttl: 300, extend: true, replace: true });
    expect(kept?.opts.delay).toBe(300);
    expect(await q.getDelayedCount()).toBe(1);
    const redis = track(rawClient());
    expect(await redis.pttl(q.toKey('de:k'))).toBeGreaterThan(0);
  });

  it('refuses contradictory or incomplete aliases', async () => {
    const q = queue('aliasbad');
    await expectRefused(() => q.add('j', {}, { groupKey: 'a', group: { id: 'b' } }), 'groupKey');
    await expectRefused(
      () => q.add('j', {}, { deduplicationId: 'a', deduplication: { id: 'b' } }),
      'deduplicationId',
    );
    await expectRefused(() => q.add('j', {}, { debounceDuration: 100 }), 'deduplicationId');
    await expectRefused(
      () => q.add('j', {}, { deduplicationId: 'a', debounceDuration: -1 }),
      'debounceDuration',
    );
    await expectRefused(
      () => q.add('j', {}, { deduplication: { id: 'a', ttl: 5 }, debounceDuration: 100 }),
      'ttl',
    );
    expect(await q.count()).toBe(0);
  });
});

describe('job schedulers', () => {
  it('accept tz with every, as bullmq 6.7 does, and report it', async () => {
    const q = queue('tzevery');
    await q.upsertJobScheduler('s', { every: 60_000, tz: 'Europe/Paris' });
    const ours = await q.getJobScheduler('s');
    expect(ours).toMatchObject({ every: 60_000, tz: 'Europe/Paris' });
    const bull = track(
      new BullQueue(q.name, { connection: redisOptions(), skipMetasUpdate: true }),
    );
    expect(await bull.getJobScheduler('s')).toMatchObject({ every: 60_000, tz: 'Europe/Paris' });
    await expect(
      q.upsertJobScheduler('t', { every: 1000, tz: 'Nowhere/Never' }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('read aliases in a template and refuse unknown template options', async () => {
    const q = queue('tzalias');
    await expect(
      q.upsertJobScheduler('s', { every: 60_000 }, { opts: odd({ attempt: 2 }) }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      q.upsertJobScheduler('s', { every: 60_000 }, { opts: { deduplicationId: 'x' } }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await q.getJobSchedulersCount()).toBe(0);
  });
});
