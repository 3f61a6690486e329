/**
 * Tenant-group keys have one list of names (engine/queue/keys.ts) on the TypeScript side, and the
 * Lua scripts build the same names on their own (lua/includes/groups.lua). This drives the scripts
 * through every group key (ready, delayed, active and rate-limited grouped jobs, a group's
 * settings, the fetch turn) and checks that every group key found in Redis is one QueueKeys names.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { GROUP_KEY_PARTS, QueueKeys } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

describe('tenant group keys', () => {
  it('are the names QueueKeys gives, in Redis as the scripts write them', async () => {
    const name = uniqueQueueName('group-keys');
    const keys = new QueueKeys('bull', name);
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.setGroupRateLimit('acme', 1, 60_000);
    await queue.add('ready', { n: 1 }, { group: { id: 'acme' } });
    await queue.add('held', { n: 2 }, { group: { id: 'acme' } });
    await queue.add('later', { n: 3 }, { group: { id: 'acme' }, delay: 60_000 });
    await queue.add('plain', { n: 4 });

    let release!: () => void;
    const running = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const worker = track(
      new Worker(
        name,
        async (job) => {
          started.push(job.name);
          if (job.name === 'ready') await running;
        },
        { connection: redisOptions(), concurrency: 4 },
      ),
    );
    await waitFor(() => started.includes('ready') && started.includes('plain'));
    await sleep(100);

    const groupKeys = (await redis.keys(`${keys.base}group*`)).sort();
    const named = new Set([
      keys.groupsRing,
      keys.groupsKnown,
      keys.groupsTurn,
      keys.groupDelayed,
      ...GROUP_KEY_PARTS.map((part) => keys.group('acme', part)),
    ]);
    expect(groupKeys.filter((key) => !named.has(key))).toEqual([]);
    // The scripts wrote the keys of each kind this run has: waiting (`held`, behind the limit),
    // delayed, active, the group's settings and rate limit, the known ids and the fetch turn.
    expect(groupKeys).toEqual(
      expect.arrayContaining([
        keys.groupsRing,
        keys.groupsKnown,
        keys.groupsTurn,
        keys.groupDelayed,
        keys.group('acme', 'wait'),
        keys.group('acme', 'active'),
        keys.group('acme', 'meta'),
        keys.group('acme', 'limiter'),
      ]),
    );
    expect(await redis.zscore(keys.groupsKnown, 'acme')).toBe('0');
    expect(await redis.lrange(keys.group('acme', 'wait'), 0, -1)).toHaveLength(1);
    release();
    await worker.close();
  });
});
