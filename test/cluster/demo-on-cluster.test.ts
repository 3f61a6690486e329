/**
 * The demo producer on a Redis Cluster with a hash tag per queue: its order flow spans three
 * queues of different slots, which the engine refuses, so that feed stops with one error line
 * (retrying could not help) while the other feeds keep adding jobs.
 */
import { Writable } from 'node:stream';
import { Cluster } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { startDemoProducer } from '../../demo/demo-producer';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { sleep, waitFor } from '../helpers/redis';

let deployment: RedisCluster | undefined;
let connection: Cluster | undefined;

beforeAll(async () => {
  deployment = await startRedisCluster();
  connection = new Cluster(deployment.nodes, { redisOptions: { maxRetriesPerRequest: null } });
  connection.setMaxListeners(0);
}, 60_000);

afterAll(async () => {
  await connection?.quit().catch(() => undefined);
  await deployment?.stop();
});

describe('the demo on a Redis Cluster', () => {
  it('stops the cross-queue flow feed once, and keeps the others adding', async () => {
    const lines: { level: number; msg: string; feed?: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
        done();
      },
    });
    const producer = startDemoProducer({
      connection: connection!,
      prefix: 'bull',
      clusterHashTags: true,
      logger: pino({ level: 'debug' }, sink),
    });
    try {
      await waitFor(() => lines.some((line) => line.msg.startsWith('demo feed stopped')), 20_000);
      // Several turns of the flow feed (every 4 s at speed 1) later, still one line.
      await sleep(5_000);
      const stopped = lines.filter((line) => line.msg.startsWith('demo feed stopped'));
      expect(stopped.map((line) => line.feed)).toEqual(['order flow']);
      expect(lines.some((line) => line.msg === 'adding demo jobs failed')).toBe(false);
      const emails = new Queue('emails', { connection: connection!, clusterHashTags: true });
      expect(await emails.count()).toBeGreaterThan(0);
      await emails.close();
    } finally {
      await producer.stop();
    }
  }, 40_000);
});
