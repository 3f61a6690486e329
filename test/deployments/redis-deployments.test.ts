/**
 * The deployment helpers themselves (test/helpers/redis-cluster.ts, redis-sentinel.ts): real
 * redis-server and sentinel processes, driven through ioredis the way an application would be.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { ask, until } from '../helpers/redis-node';
import { startRedisSentinel, type RedisSentinelDeployment } from '../helpers/redis-sentinel';

const START_MS = 30_000;
const KEYS = 60;

const dbsize = async (port: number) => Number(await ask(port, 'DBSIZE'));

function first<T>(items: T[], what: string): T {
  const [item] = items;
  if (item === undefined) throw new Error(`no ${what}`);
  return item;
}

/** The redis-server processes this test process spawned and has not reaped. */
function childRedisServers(): string[] {
  // ps exits 1 when no process matches: the output, not the status, is the answer.
  const { stdout } = spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  });
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.endsWith('redis-server'));
}

describe('startRedisCluster', () => {
  let cluster: RedisCluster | undefined;
  let client: Cluster | undefined;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    client = new Cluster(cluster.nodes);
  }, START_MS);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  test('spreads keys over every master and keeps taking writes after a failover', async () => {
    const deployment = cluster!;
    const redis = client!;
    expect(deployment.nodes).toHaveLength(6);

    for (let index = 0; index < KEYS; index += 1) await redis.set(`before:${index}`, index);
    const masters = await deployment.masters();
    expect(masters).toHaveLength(3);
    const counts = await Promise.all(masters.map((node) => dbsize(node.port)));
    expect(counts.every((count) => count > 0)).toBe(true);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(KEYS);

    const old = first(masters, 'master');
    const replica = first(await deployment.replicasOf(old.port), 'replica');
    const promoted = await deployment.failover(old.port);
    expect(promoted.port).toBe(replica.port);
    const after = (await deployment.masters()).map((node) => node.port);
    expect(after).toContain(promoted.port);
    expect(after).not.toContain(old.port);
    expect((await deployment.replicasOf(promoted.port)).map((node) => node.port)).toEqual([
      old.port,
    ]);

    const held = await dbsize(promoted.port);
    for (let index = 0; index < KEYS; index += 1) await redis.set(`after:${index}`, index);
    expect(await dbsize(promoted.port)).toBeGreaterThan(held);
    for (let index = 0; index < KEYS; index += 1) {
      expect(await redis.get(`before:${index}`)).toBe(String(index));
      expect(await redis.get(`after:${index}`)).toBe(String(index));
    }
  }, 30_000);

  test('a killed master is replaced by its replica and the client writes on', async () => {
    const deployment = cluster!;
    const redis = client!;
    const victim = first(await deployment.masters(), 'master');
    const replica = first(await deployment.replicasOf(victim.port), 'replica');
    await deployment.killNode(victim.port);
    expect(deployment.nodes.map((node) => node.port)).toContain(victim.port);
    await until(
      `${replica.port} replaces the killed ${victim.port}`,
      async () => {
        const masters = (await deployment.masters()).map((node) => node.port);
        return masters.length === 3 && masters.includes(replica.port);
      },
      15_000,
    );
    expect((await deployment.masters()).map((node) => node.port)).not.toContain(victim.port);
    for (let index = 0; index < KEYS; index += 1) await redis.set(`killed:${index}`, index);
    expect(await dbsize(replica.port)).toBeGreaterThan(0);
    for (let index = 0; index < KEYS; index += 1) {
      expect(await redis.get(`killed:${index}`)).toBe(String(index));
    }
  }, 30_000);
});

describe('startRedisSentinel', () => {
  let deployment: RedisSentinelDeployment | undefined;
  let client: Redis | undefined;

  beforeAll(async () => {
    deployment = await startRedisSentinel();
    client = new Redis({ sentinels: deployment.sentinels, name: deployment.masterName });
    // Reconnecting to a killed master fails until the sentinels name the next one; the commands
    // wait meanwhile and the test asserts on them.
    client.on('error', () => {});
  }, START_MS);

  afterAll(async () => {
    client?.disconnect();
    await deployment?.stop();
  });

  test('a client that follows the sentinels writes to the new master after a failover', async () => {
    const sentinel = deployment!;
    const redis = client!;
    const first = await sentinel.master();
    await redis.set('before', 'one');
    expect(await ask(first.port, 'GET', 'before')).toBe('one');

    const second = await sentinel.failover();
    expect(second.port).not.toBe(first.port);
    expect(await sentinel.master()).toEqual(second);

    await redis.set('after', 'two');
    expect(await ask(second.port, 'GET', 'after')).toBe('two');
    expect(((await ask(second.port, 'ROLE')) as unknown[])[0]).toBe('master');
    expect(await redis.info('server')).toContain(`tcp_port:${second.port}`);
  }, 30_000);

  test('a killed master is replaced without SENTINEL FAILOVER and the client follows', async () => {
    const sentinel = deployment!;
    const redis = client!;
    const killed = await sentinel.killMaster();
    await expect(ask(killed.port, 'PING')).rejects.toThrow();
    const next = await until(
      `the sentinels replace the killed ${killed.port}`,
      async () => {
        const current = await sentinel.master();
        return current.port === killed.port ? undefined : current;
      },
      15_000,
    );
    await redis.set('after-kill', 'three');
    expect(await ask(next.port, 'GET', 'after-kill')).toBe('three');
    expect(await redis.info('server')).toContain(`tcp_port:${next.port}`);
  }, 30_000);
});

describe('a deployment that fails to start', () => {
  test(
    'leaves no process and no directory behind',
    async () => {
      const dirs = () =>
        readdirSync(os.tmpdir()).filter((name) => name.startsWith('oxmq-cluster-')).length;
      const before = dirs();
      // redis-cli refuses a cluster of fewer than three masters, after the nodes have started.
      await expect(startRedisCluster({ masters: 2, replicasPerMaster: 0 })).rejects.toThrow(
        /redis-cli --cluster create failed/,
      );
      expect(dirs()).toBe(before);
      expect(childRedisServers()).toEqual([]);
    },
    START_MS,
  );
});
