/**
 * What one FlowProducer.add reads of Redis, counted on a server of its own (INFO commandstats,
 * commands inside the script included). Adding a flow changes neither a queue's meta nor its
 * active list, and a child's parent written earlier in the same call exists: the events cap
 * (HGET) and the paused-or-maxed state (HMGET) are read once per queue per call, and no child
 * checks its in-flow parent with EXISTS (lua/addFlow-1.lua).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FlowProducer, Queue, type FlowJob } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { commandCalls } from '../helpers/command-stats';
import { uniqueQueueName } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';

const track = useCleanup();
let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

/** A root with `fanout` children, each with `fanout` leaf children: 1 + f + f² nodes. */
function tree(queueName: string, fanout: number): FlowJob {
  const leaves = () =>
    Array.from({ length: fanout }, (_, i) => ({ name: `leaf${i}`, queueName, data: { i } }));
  return {
    name: 'root',
    queueName,
    children: Array.from({ length: fanout }, (_, i) => ({
      name: `mid${i}`,
      queueName,
      data: { i },
      children: leaves(),
    })),
  };
}

it('reads each queue’s meta once per flow and never re-checks an in-flow parent', async () => {
  const connection = { host: '127.0.0.1', port: server.port };
  const redis = track(new Redis(connection));
  const name = uniqueQueueName('flowreads');
  const queue = track(new Queue(name, { connection }));
  const producer = track(new FlowProducer({ connection }));
  await queue.waitUntilReady();
  await producer.waitUntilReady();
  await redis.config('RESETSTAT');
  // 1 root, 3 middles, 9 leaves: 12 children, 9 of them waiting (leaves).
  await producer.add(tree(name, 3));
  const calls = await commandCalls(redis);
  expect(calls.hmget, 'paused-or-maxed reads').toBe(1);
  // Node ids are UUIDs passed as custom ids: one EXISTS per node for that (13), none for parents.
  expect(calls.exists, 'EXISTS calls').toBe(13);
  // One events-cap read, and one parentKey read per child (a custom id may belong to a parent).
  expect(calls.hget, 'HGET calls').toBe(1 + 12);
  expect(await queue.getJobCounts('waiting', 'waiting-children')).toEqual({
    waiting: 9,
    'waiting-children': 4,
  });
});

it('in one call, wakes no worker of a paused queue and wakes those of a running one', async () => {
  const connection = { host: '127.0.0.1', port: server.port };
  const redis = track(new Redis(connection));
  const producer = track(new FlowProducer({ connection }));
  const paused = track(new Queue(uniqueQueueName('flowpaused'), { connection }));
  const running = track(new Queue(uniqueQueueName('flowrunning'), { connection }));
  await paused.pause();
  // One call for both: what the call reads of one queue must not stand for the other.
  await producer.addBulk([tree(paused.name, 2), tree(running.name, 2)]);
  for (const queue of [paused, running]) {
    expect(await queue.getJobCounts('waiting', 'waiting-children'), queue.name).toEqual({
      waiting: 4,
      'waiting-children': 3,
    });
  }
  // Workers block on the marker: a paused queue's leaves wait without one.
  expect(await redis.zscore(paused.keys.marker, '0')).toBeNull();
  expect(await redis.zscore(running.keys.marker, '0')).toBe('0');
});
