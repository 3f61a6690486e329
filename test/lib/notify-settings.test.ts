/**
 * The notification settings of lib/server/env.ts: OXMQ_NOTIFY_WEBHOOKS parsed into webhooks
 * with labels, the defaults, and errors that never show a webhook URL (it may be the secret).
 */
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

describe('notification settings', () => {
  it('are off by default, with the documented defaults', async () => {
    expect((await loadEnv(required))()).toMatchObject({
      OXMQ_NOTIFY_WEBHOOKS: [],
      OXMQ_NOTIFY_INTERVAL_MS: 30_000,
      OXMQ_NOTIFY_PAUSED_SECONDS: 1_800,
      OXMQ_NOTIFY_MAX_ATTEMPTS: 5,
      OXMQ_NOTIFY_RETRY_MS: 1_000,
      OXMQ_NOTIFY_TIMEOUT_MS: 5_000,
    });
  });

  it('parse webhooks with a format (json by default) and a label that is never the URL', async () => {
    const getEnv = await loadEnv({
      ...required,
      OXMQ_NOTIFY_WEBHOOKS: JSON.stringify([
        { url: 'https://hooks.slack.com/services/T0/B0/secret-path', format: 'slack' },
        { url: 'https://alerts.example/oxmq', name: 'pager' },
      ]),
    });
    expect(getEnv().OXMQ_NOTIFY_WEBHOOKS).toEqual([
      {
        url: 'https://hooks.slack.com/services/T0/B0/secret-path',
        format: 'slack',
        label: 'webhook 1 (hooks.slack.com)',
      },
      { url: 'https://alerts.example/oxmq', format: 'json', label: 'pager' },
    ]);
  });

  it.each([
    ['not json', /OXMQ_NOTIFY_WEBHOOKS: must be a JSON array/],
    ['{"url": "https://x.example/secret-path"}', /OXMQ_NOTIFY_WEBHOOKS: must be a JSON array/],
    ['[{"url": "ftp://x.example/secret-path"}]', /url must be an http/],
    [
      '[{"url": "https://x.example/secret-path", "format": "teams"}]',
      /format must be "json" or "slack"/,
    ],
    ['[{"url": "https://x.example/secret-path", "urll": 1}]', /OXMQ_NOTIFY_WEBHOOKS/],
  ])('refuse %s without echoing it', async (value, message) => {
    const getEnv = await loadEnv({ ...required, OXMQ_NOTIFY_WEBHOOKS: value });
    expect(getEnv).toThrow(message);
    expect(getEnv).not.toThrow(/secret-path/);
  });

  it('refuse an interval out of bounds', async () => {
    const getEnv = await loadEnv({ ...required, OXMQ_NOTIFY_INTERVAL_MS: '10' });
    expect(getEnv).toThrow(/OXMQ_NOTIFY_INTERVAL_MS: must be from 100 to 3600000 ms/);
  });
});
