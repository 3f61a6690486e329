/** lib/server/env.ts: defaults, parsing, and error messages that name every problem at once. */
import { afterEach, describe, expect, it, vi } from 'vitest';

async function loadEnv(vars: Record<string, string | undefined>) {
  vi.resetModules();
  vi.unstubAllEnvs();
  for (const [key, value] of Object.entries(vars)) vi.stubEnv(key, value);
  const { getEnv } = await import('../../lib/server/env');
  return getEnv;
}

const required = {
  NEXTAUTH_SECRET: 'a-secret-of-sufficient-length',
  NEXTAUTH_URL: 'http://localhost:3000',
  OXMQ_ADMIN_USER: 'admin',
  OXMQ_ADMIN_PASSWORD: 'long-enough',
};

afterEach(() => vi.unstubAllEnvs());

describe('getEnv', () => {
  it('applies defaults and parses lists and flags', async () => {
    const getEnv = await loadEnv({
      ...required,
      OXMQ_PREFIXES: ' bull, {pay} ,',
      OXMQ_READ_ONLY: '1',
    });
    expect(getEnv()).toMatchObject({
      OXMQ_PREFIXES: ['bull', '{pay}'],
      OXMQ_READ_ONLY: true,
    });
    // No connection setting: the default server (config/redis-settings.ts).
    const { consoleRedisTarget } = await import('../../lib/server/env');
    expect(consoleRedisTarget(getEnv())).toEqual({
      kind: 'url',
      url: 'redis://127.0.0.1:6379',
      tls: false,
    });
    const defaults = await loadEnv({ ...required, OXMQ_READ_ONLY: '' });
    expect(defaults()).toMatchObject({ OXMQ_PREFIXES: ['bull'], OXMQ_READ_ONLY: false });
  });

  it('names every missing or invalid variable in one error', async () => {
    const getEnv = await loadEnv({
      NEXTAUTH_SECRET: undefined,
      NEXTAUTH_URL: 'not a url',
      REDIS_URL: 'http://redis',
      OXMQ_READ_ONLY: 'maybe',
    });
    expect(getEnv).toThrow(/NEXTAUTH_SECRET: is required/);
    expect(getEnv).toThrow(/NEXTAUTH_URL: must be the origin/);
    expect(getEnv).toThrow(/REDIS_URL: must be a redis/);
    expect(getEnv).toThrow(/OXMQ_READ_ONLY/);
  });

  it('wants the admin user and password together, and some user', async () => {
    const half = await loadEnv({ ...required, OXMQ_ADMIN_PASSWORD: undefined });
    expect(half).toThrow(/set OXMQ_ADMIN_USER and OXMQ_ADMIN_PASSWORD together/);
    const none = await loadEnv({
      ...required,
      OXMQ_ADMIN_USER: undefined,
      OXMQ_ADMIN_PASSWORD: undefined,
    });
    expect(none).toThrow(/no users configured/);
  });
});

describe('metrics and link settings', () => {
  it('defaults: no token, a 5 s cache, 500 queues, no links', async () => {
    const getEnv = await loadEnv(required);
    expect(getEnv()).toMatchObject({
      OXMQ_METRICS_CACHE_MS: 5_000,
      OXMQ_METRICS_MAX_QUEUES: 500,
    });
    expect(getEnv().OXMQ_METRICS_TOKEN).toBeUndefined();
    expect(getEnv().OXMQ_TRACE_URL).toBeUndefined();
    expect(getEnv().OXMQ_GRAFANA_URL).toBeUndefined();
  });

  it('parses numbers and keeps http(s) URLs as given', async () => {
    const getEnv = await loadEnv({
      ...required,
      OXMQ_METRICS_TOKEN: 'abcdef0123456789abcdef',
      OXMQ_METRICS_CACHE_MS: '0',
      OXMQ_METRICS_MAX_QUEUES: ' 20 ',
      OXMQ_TRACE_URL: 'https://tempo.example/explore?traceId={traceId}',
      OXMQ_GRAFANA_URL: 'http://grafana:3000',
    });
    expect(getEnv()).toMatchObject({
      OXMQ_METRICS_TOKEN: 'abcdef0123456789abcdef',
      OXMQ_METRICS_CACHE_MS: 0,
      OXMQ_METRICS_MAX_QUEUES: 20,
      OXMQ_TRACE_URL: 'https://tempo.example/explore?traceId={traceId}',
      OXMQ_GRAFANA_URL: 'http://grafana:3000',
    });
  });

  it('refuses short or malformed tokens, bad numbers, and links that are not http(s)', async () => {
    const getEnv = await loadEnv({
      ...required,
      OXMQ_METRICS_TOKEN: 'short',
      OXMQ_METRICS_CACHE_MS: '5s',
      OXMQ_METRICS_MAX_QUEUES: '0',
      OXMQ_TRACE_URL: 'https://tempo.example/explore',
      OXMQ_GRAFANA_URL: 'javascript:alert(1)',
    });
    expect(getEnv).toThrow(/OXMQ_METRICS_TOKEN: must be at least 16 characters/);
    expect(getEnv).toThrow(/OXMQ_METRICS_CACHE_MS: must be a whole number of ms/);
    expect(getEnv).toThrow(/OXMQ_METRICS_MAX_QUEUES: must be from 1 to/);
    expect(getEnv).toThrow(/OXMQ_TRACE_URL: must contain \{traceId\}/);
    expect(getEnv).toThrow(/OXMQ_GRAFANA_URL: must be an http:\/\/ or https:\/\/ URL/);
    const spaced = await loadEnv({
      ...required,
      OXMQ_METRICS_TOKEN: 'abcdef0123456789 abcdef',
      OXMQ_TRACE_URL: 'ftp://tempo.example/{traceId}',
    });
    expect(spaced).toThrow(/OXMQ_METRICS_TOKEN: may hold only/);
    expect(spaced).toThrow(/OXMQ_TRACE_URL: must be an http/);
  });
});

describe('OXMQ_OLD_BACKLOG_MINUTES', () => {
  it('defaults to 10 minutes and takes a whole number from 1 to 10080', async () => {
    expect((await loadEnv(required))().OXMQ_OLD_BACKLOG_MINUTES).toBe(10);
    expect(
      (await loadEnv({ ...required, OXMQ_OLD_BACKLOG_MINUTES: ' 30 ' }))().OXMQ_OLD_BACKLOG_MINUTES,
    ).toBe(30);
    for (const bad of ['0', '1.5', 'ten', '10081']) {
      const getEnv = await loadEnv({ ...required, OXMQ_OLD_BACKLOG_MINUTES: bad });
      expect(getEnv).toThrow(
        /OXMQ_OLD_BACKLOG_MINUTES: must be (a whole number of|from 1 to 10080) minutes/,
      );
    }
  });
});
