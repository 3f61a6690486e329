/**
 * The one Redis URL mask (engine/backend/redis/url-mask.ts): wherever a Redis target is described
 * (the launcher's and the runner's start-up lines, the demo, settings errors, the engine's
 * connection errors), no credential of the URL survives, whether in the userinfo or in a query
 * parameter ioredis reads as an option.
 */
import { describe, expect, it } from 'vitest';
import { maskRedisUrl, ValidationError, Worker } from 'oxmq';
import { describeRedisTarget } from '../../config/redis-connection';
import { loadRunnerSettings } from '../../runner/settings';

const table: [given: string, shown: string][] = [
  ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
  ['redis://h:6379/2', 'redis://h:6379/2'],
  ['redis://:hunter2@h:6379', 'redis://***@h:6379'],
  ['redis://user:hunter2@h:6379/0', 'redis://***@h:6379/0'],
  ['redis://hunter2@h', 'redis://***@h'],
  ['rediss://user:hunter2@h.example:6380', 'rediss://***@h.example:6380'],
  ['redis://:p%40ss%3Aword@h', 'redis://***@h'],
  ['redis://:unencoded@at@h:1', 'redis://***@h:1'],
  ['redis://h?password=hunter2', 'redis://h?password=***'],
  ['redis://h:1/0?username=alice&password=hunter2', 'redis://h:1/0?username=***&password=***'],
  ['redis://h?db=1&PASSWORD=hunter2&family=6', 'redis://h?db=1&PASSWORD=***&family=6'],
  ['redis://h?pass%77ord=hunter2', 'redis://h?pass%77ord=***'],
  ['redis://h?sentinelPassword=hunter2&name=m', 'redis://h?sentinelPassword=***&name=m'],
  ['rediss://u:hunter1@h/?password=hunter2', 'rediss://***@h/?password=***'],
  ['redis://h?password', 'redis://h?password=***'],
  // Not a valid URL (an invalid setting shown back): masked all the same.
  ['redis://user:hunter2@host:notaport', 'redis://***@host:notaport'],
  ['user:hunter2@host', '***@host'],
];

describe('maskRedisUrl', () => {
  it.each(table)('%s is shown as %s', (given, shown) => {
    expect(maskRedisUrl(given)).toBe(shown);
    expect(maskRedisUrl(given)).not.toMatch(/hunter|alice|p%40ss|unencoded/);
  });

  it('describes every kind of target without a credential', () => {
    expect(
      describeRedisTarget({ kind: 'url', url: 'redis://h?password=hunter2', tls: false }),
    ).toBe('redis://h?password=***');
    const cluster = loadRunnerSettings(
      { REDIS_CLUSTER_NODES: 'a:7000,[::1]:7001', REDIS_PASSWORD: 'hunter2', OXMQ_CONFIG: '' },
      '/nonexistent',
    ).redis;
    expect(describeRedisTarget(cluster)).toBe('cluster a:7000,[::1]:7001');
    const sentinel = loadRunnerSettings(
      {
        REDIS_SENTINELS: 's1:26379,s2:26379',
        REDIS_SENTINEL_NAME: 'mymaster',
        REDIS_PASSWORD: 'hunter2',
        REDIS_SENTINEL_PASSWORD: 'hunter3',
        OXMQ_CONFIG: '',
      },
      '/nonexistent',
    ).redis;
    expect(describeRedisTarget(sentinel)).toBe('sentinel master "mymaster" via s1:26379,s2:26379');
  });

  it('masks the settings error that shows a bad REDIS_URL back', () => {
    let message = '';
    try {
      loadRunnerSettings(
        { REDIS_URL: 'http://h?password=hunter2', OXMQ_CONFIG: '' },
        '/nonexistent',
      );
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain('REDIS_URL');
    expect(message).not.toContain('hunter2');
  });

  it("masks the engine's error for a connection string that is not a Redis URL", () => {
    let caught: unknown;
    try {
      new Worker('q', null, { connection: 'http://u:hunter2@h?password=hunter3' as never });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect(String(caught)).not.toMatch(/hunter/);
  });
});
