/**
 * The launcher hands the console's metrics and link settings through (launcher/console-env.ts,
 * from lib/server/env.ts' CONSOLE_ENV_KEYS), from the environment or oxmq.config.json, and
 * refuses a bad one before anything starts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config-error';
import { consoleEnvironment } from '../../launcher/console-env';
import { loadLauncherSettings } from '../../launcher/settings';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'oxmq-console-env-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const base = {
  OXMQ_DATA_DIR: path.join(scratch, 'data'),
  OXMQ_ADMIN_USER: 'admin',
  OXMQ_ADMIN_PASSWORD: 'long-enough-password',
};

describe('console metrics and link settings under the launcher', () => {
  it('passes them to the console, numbers from the config file as strings', () => {
    const cwd = mkdtempSync(path.join(scratch, 'cwd-'));
    writeFileSync(
      path.join(cwd, 'oxmq.config.json'),
      JSON.stringify({ OXMQ_METRICS_MAX_QUEUES: 50, OXMQ_METRICS_CACHE_MS: 0 }),
    );
    const settings = loadLauncherSettings(
      {},
      {
        ...base,
        OXMQ_METRICS_TOKEN: 'launcher-token-0123456789',
        OXMQ_TRACE_URL: 'https://tempo.example/trace/{traceId}',
        OXMQ_GRAFANA_URL: 'https://grafana.example',
      },
      cwd,
    );
    expect(consoleEnvironment(settings).env).toMatchObject({
      OXMQ_METRICS_TOKEN: 'launcher-token-0123456789',
      OXMQ_METRICS_MAX_QUEUES: '50',
      OXMQ_METRICS_CACHE_MS: '0',
      OXMQ_TRACE_URL: 'https://tempo.example/trace/{traceId}',
      OXMQ_GRAFANA_URL: 'https://grafana.example',
    });
  });

  it('refuses a bad value with its setting named', () => {
    const settings = loadLauncherSettings(
      {},
      { ...base, OXMQ_TRACE_URL: 'https://tempo.example/no-placeholder' },
      mkdtempSync(path.join(scratch, 'cwd-')),
    );
    expect(() => consoleEnvironment(settings)).toThrow(ConfigError);
    expect(() => consoleEnvironment(settings)).toThrow(/OXMQ_TRACE_URL.*must contain \{traceId\}/);
  });
});
