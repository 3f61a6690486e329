/**
 * The Redis connection settings (config/redis-settings.ts) as every process reads them: the
 * runner's and the demo's loader, the launcher's, and the console's environment check apply the
 * same rules, and what they give becomes the connections of config/redis-connection.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config-error';
import {
  describeRedisTarget,
  engineConnection,
  openCluster,
  serverOptions,
} from '../../config/redis-connection';
import { loadDemoSettings } from '../../demo/settings';
import { loadLauncherSettings } from '../../launcher/settings';
import { consoleEnvProblems } from '../../lib/server/env';
import { loadRunnerSettings } from '../../runner/settings';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'oxmq-redis-settings-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const runner = (env: Record<string, string>) => loadRunnerSettings(env, cwd);

function problems(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError)
      return error.problems.map((p) => `${p.setting}: ${p.message}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** The console's rules, checked with its other required settings present. */
function consoleProblems(env: Record<string, string>): string[] {
  return consoleEnvProblems({
    NEXTAUTH_SECRET: 'a'.repeat(32),
    NEXTAUTH_URL: 'http://localhost:3000',
    OXMQ_ADMIN_USER: 'admin',
    OXMQ_ADMIN_PASSWORD: 'password123',
    ...env,
  }).map((p) => `${p.setting}: ${p.message}`);
}

describe('Redis connection settings', () => {
  it('defaults to redis://127.0.0.1:6379 in the runner, the demo and the console', () => {
    expect(runner({}).redis).toEqual({ kind: 'url', url: 'redis://127.0.0.1:6379', tls: false });
    expect(loadDemoSettings({}, cwd).redis).toEqual(runner({}).redis);
    expect(consoleProblems({})).toEqual([]);
    // The launcher's "unset" means its own embedded Redis.
    expect(loadLauncherSettings({}, {}, cwd).redis).toBeUndefined();
  });

  it('reads a cluster: nodes (IPv6 too), credentials, TLS and hash tags', () => {
    const settings = runner({
      REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, node-b.internal:7001,[::1]:7002 ',
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: 's3cret',
      REDIS_TLS: 'true',
      OXMQ_CLUSTER_HASH_TAGS: 'true',
    });
    expect(settings.redis).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'node-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      username: 'app',
      password: 's3cret',
      tls: true,
    });
    expect(settings.clusterHashTags).toBe(true);
    expect(runner({}).clusterHashTags).toBe(false);
    expect(describeRedisTarget(settings.redis)).toBe(
      'cluster 10.0.0.1:7000,node-b.internal:7001,[::1]:7002 (TLS)',
    );
  });

  it('reads a sentinel group with its own password', () => {
    const settings = runner({
      REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:26379',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_PASSWORD: 'master-pw',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
    });
    expect(settings.redis).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26379 },
      ],
      name: 'mymaster',
      password: 'master-pw',
      sentinelPassword: 'sentinel-pw',
      tls: false,
    });
    expect(describeRedisTarget(settings.redis)).toBe(
      'sentinel master "mymaster" via 10.0.0.1:26379,10.0.0.2:26379',
    );
  });

  it('refuses two forms at once, naming both, in every process', () => {
    const env = { REDIS_URL: 'redis://:pw@127.0.0.1:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' };
    const expected =
      'REDIS_CLUSTER_NODES: REDIS_URL and REDIS_CLUSTER_NODES are both set: give exactly one of ' +
      'REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS';
    const fromRunner = problems(() => runner(env));
    expect(fromRunner).toHaveLength(1);
    expect(fromRunner[0]).toContain(expected);
    expect(problems(() => loadDemoSettings(env, cwd))[0]).toContain(expected);
    expect(problems(() => loadLauncherSettings({}, env, cwd))[0]).toContain(expected);
    expect(consoleProblems(env)).toEqual([expected]);
    const three = problems(() =>
      runner({ ...env, REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_NAME: 'm' }),
    );
    expect(three[0]).toContain('REDIS_URL and REDIS_CLUSTER_NODES and REDIS_SENTINELS');
  });

  it('says what is missing or misplaced', () => {
    expect(problems(() => runner({ REDIS_SENTINELS: '10.0.0.1:26379' }))).toEqual([
      'REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS: the name of the master the sentinels watch',
    ]);
    expect(problems(() => runner({ REDIS_SENTINEL_NAME: 'm' }))).toEqual([
      'REDIS_SENTINEL_NAME: applies only with REDIS_SENTINELS, got "m"',
    ]);
    expect(problems(() => runner({ REDIS_URL: 'redis://h:1', REDIS_PASSWORD: 'pw' }))).toEqual([
      'REDIS_PASSWORD: applies only with REDIS_CLUSTER_NODES or REDIS_SENTINELS; with REDIS_URL ' +
        'put the credentials in the URL (redis://user:password@host:port)',
    ]);
    expect(
      problems(() => runner({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_USERNAME: 'app' })),
    ).toEqual(['REDIS_PASSWORD: is required with REDIS_USERNAME']);
    expect(consoleProblems({ REDIS_SENTINELS: '10.0.0.1:26379' })).toEqual([
      'REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS: the name of the master the sentinels watch',
    ]);
  });

  it('refuses malformed node lists, with the entry at fault', () => {
    for (const [value, entry] of [
      ['10.0.0.1', '10.0.0.1'],
      ['10.0.0.1:7000,host:99999', 'host:99999'],
      ['redis://10.0.0.1:7000', 'redis://10.0.0.1:7000'],
      ['::1:7000', '::1:7000'],
    ] as const) {
      const found = problems(() => runner({ REDIS_CLUSTER_NODES: value }));
      expect(found[0], value).toContain(`REDIS_CLUSTER_NODES: "${entry}" must be host:port`);
    }
    expect(problems(() => runner({ REDIS_SENTINELS: ' , ', REDIS_SENTINEL_NAME: 'm' }))).toEqual([
      'REDIS_SENTINELS: list at least one host:port, got " , "',
    ]);
  });

  it('never shows a password: REDIS_URL is shown redacted, REDIS_PASSWORD not at all', () => {
    const shown = problems(() =>
      runner({
        REDIS_URL: 'redis://user:hunter2@host:notaport',
        REDIS_CLUSTER_NODES: 'bad',
        REDIS_PASSWORD: 'hunter3',
      }),
    ).join('\n');
    expect(shown).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
    expect(shown).toContain('redis://***@host:notaport');
    expect(shown).not.toContain('hunter');
    const cluster = runner({ REDIS_CLUSTER_NODES: 'h:1', REDIS_PASSWORD: 'hunter3' }).redis;
    expect(describeRedisTarget(cluster)).not.toContain('hunter');
    const url = runner({ REDIS_URL: 'redis://user:hunter2@h:1' }).redis;
    expect(describeRedisTarget(url)).toBe('redis://***@h:1');
  });

  it('turns TLS on for rediss:// or REDIS_TLS, for every node a connection reaches', () => {
    expect(runner({ REDIS_URL: 'rediss://h:6380' }).redis).toMatchObject({ tls: true });
    const url = runner({ REDIS_URL: 'redis://h:6379', REDIS_TLS: 'true' }).redis;
    expect(url.kind === 'url' && serverOptions(url, { connectionName: 'x' })).toEqual({
      url: 'redis://h:6379',
      tls: {},
      connectionName: 'x',
    });
    const sentinel = runner({
      REDIS_SENTINELS: 'h:26379',
      REDIS_SENTINEL_NAME: 'm',
      REDIS_PASSWORD: 'pw',
      REDIS_SENTINEL_PASSWORD: 'spw',
      REDIS_TLS: '1',
    }).redis;
    expect(sentinel.kind === 'sentinel' && serverOptions(sentinel)).toEqual({
      sentinels: [{ host: 'h', port: 26379 }],
      name: 'm',
      password: 'pw',
      sentinelPassword: 'spw',
      tls: {},
      enableTLSForSentinelMode: true,
      sentinelTLS: {},
    });
    const cluster = runner({
      REDIS_CLUSTER_NODES: 'h:7000',
      REDIS_USERNAME: 'u',
      REDIS_PASSWORD: 'pw',
      REDIS_TLS: 'true',
    }).redis;
    if (cluster.kind !== 'cluster') throw new Error('expected a cluster');
    const client = openCluster(cluster, { connectionName: 'n' }, { lazyConnect: true });
    expect(client.options.redisOptions).toMatchObject({
      connectionName: 'n',
      username: 'u',
      password: 'pw',
      tls: {},
    });
    client.disconnect();
  });

  it('gives engine objects options for a server, one shared Cluster client for a cluster', async () => {
    const server = engineConnection(runner({}).redis);
    expect(server.connection).toEqual({ url: 'redis://127.0.0.1:6379' });
    await server.close();
  });
});
