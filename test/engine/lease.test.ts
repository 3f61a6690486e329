/**
 * The Redis lease (engine/admin/redis/lease.ts): one holder at a time, a takeover once the holder
 * stops renewing, and each numbered turn claimed once across holders.
 */
import { RedisLease } from 'oxmq/admin';
import { afterAll, expect, test } from 'vitest';
import { rawClient, sleep, uniqueQueueName } from '../helpers/redis';

const client = rawClient();
afterAll(() => client.quit());

function pair(ttlMs: number) {
  const prefix = uniqueQueueName('lease');
  return [
    new RedisLease(client, prefix, 'duty', { ttlMs, holder: 'a' }),
    new RedisLease(client, prefix, 'duty', { ttlMs, holder: 'b' }),
  ] as const;
}

test('one holder at a time; the other takes over once the TTL ran out', async () => {
  const [a, b] = pair(300);
  expect(await a.hold()).toBe(true);
  expect(await b.hold()).toBe(false);
  expect(await a.hold()).toBe(true);
  await sleep(400);
  expect(await b.hold()).toBe(true);
  expect(await a.hold()).toBe(false);
});

test('release hands the lease over at once, and only its holder can release it', async () => {
  const [a, b] = pair(60_000);
  await a.hold();
  await b.release();
  expect(await b.hold()).toBe(false);
  await a.release();
  expect(await b.hold()).toBe(true);
});

test('each turn is claimed once, across a takeover, and never an older one', async () => {
  const [a, b] = pair(200);
  expect(await a.claim(10)).toEqual({ held: true, claimed: true });
  expect(await a.claim(10)).toEqual({ held: true, claimed: false });
  expect(await b.claim(11)).toEqual({ held: false, claimed: false });
  await sleep(300);
  // b takes over inside turn 10, which a already did: nothing to do until turn 11.
  expect(await b.claim(10)).toEqual({ held: true, claimed: false });
  expect(await b.claim(11)).toEqual({ held: true, claimed: true });
  expect(await b.claim(9)).toEqual({ held: true, claimed: false });
});
