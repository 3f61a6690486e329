import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../config/config-error';
import { booleanField, logLevelField, portField, redisUrlField } from '../../config/fields';
import { loadSettings } from '../../config/load-settings';

const schema = z.object({
  REDIS_URL: redisUrlField('redis://127.0.0.1:6379'),
  WORKER_HEALTH_PORT: portField(3001),
  OXMQ_LOG_LEVEL: logLevelField(),
  OXMQ_DEMO: booleanField(false),
});

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'oxmq-config-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

function writeConfig(content: unknown, name = 'oxmq.config.json'): string {
  const file = path.join(cwd, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** The ConfigError thrown by `load`, so tests can read its problems. */
function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadSettings', () => {
  it('gives the defaults with no environment and no file', () => {
    expect(loadSettings(schema, { env: {}, cwd })).toEqual({
      REDIS_URL: 'redis://127.0.0.1:6379',
      WORKER_HEALTH_PORT: 3001,
      OXMQ_LOG_LEVEL: 'info',
      OXMQ_DEMO: false,
    });
  });

  it('reads oxmq.config.json in cwd (numbers and booleans too) and lets the environment win', () => {
    writeConfig({ WORKER_HEALTH_PORT: 4100, OXMQ_DEMO: true, OXMQ_LOG_LEVEL: 'debug' });
    expect(loadSettings(schema, { env: { OXMQ_LOG_LEVEL: 'warn' }, cwd })).toEqual({
      REDIS_URL: 'redis://127.0.0.1:6379',
      WORKER_HEALTH_PORT: 4100,
      OXMQ_LOG_LEVEL: 'warn',
      OXMQ_DEMO: true,
    });
  });

  it('treats an empty environment variable as unset, so the file value applies', () => {
    writeConfig({ WORKER_HEALTH_PORT: 4100 });
    expect(loadSettings(schema, { env: { WORKER_HEALTH_PORT: '' }, cwd }).WORKER_HEALTH_PORT).toBe(
      4100,
    );
  });

  it('reads the file OXMQ_CONFIG names (relative to cwd) instead of oxmq.config.json', () => {
    writeConfig({ WORKER_HEALTH_PORT: 1111 });
    writeConfig({ WORKER_HEALTH_PORT: 2222 }, 'other.json');
    const settings = loadSettings(schema, { env: { OXMQ_CONFIG: 'other.json' }, cwd });
    expect(settings.WORKER_HEALTH_PORT).toBe(2222);
  });

  it('requires the file OXMQ_CONFIG names to exist', () => {
    const error = configError(() =>
      loadSettings(schema, { env: { OXMQ_CONFIG: 'missing.json' }, cwd }),
    );
    expect(error.problems).toEqual([
      {
        setting: 'OXMQ_CONFIG',
        source: 'environment',
        message: `no such file: ${path.join(cwd, 'missing.json')}`,
      },
    ]);
  });

  it('rejects file keys no process knows, suggesting the nearest name, but accepts other processes keys', () => {
    const file = writeConfig({ WORKER_HEALTH_PROT: 1, PORT: 3000, NEXTAUTH_URL: 'http://x' });
    const error = configError(() => loadSettings(schema, { env: {}, cwd }));
    expect(error.problems).toEqual([
      {
        setting: 'WORKER_HEALTH_PROT',
        source: file,
        message: 'unknown setting (did you mean WORKER_HEALTH_PORT?)',
      },
    ]);
  });

  it('knows the names of the schema it is given even when known-settings.ts does not', () => {
    writeConfig({ MY_OWN_SETTING: 'x' });
    const own = z.object({ MY_OWN_SETTING: z.string() });
    expect(loadSettings(own, { env: {}, cwd })).toEqual({ MY_OWN_SETTING: 'x' });
    expect(() => loadSettings(schema, { env: {}, cwd })).toThrow(
      /MY_OWN_SETTING .*unknown setting/,
    );
  });

  it('lists every problem at once, each with its setting, source and what is expected', () => {
    const file = writeConfig({
      REDIS_URL: 'http://nope',
      OXMQ_DEMO: 'maybe',
      OXMQ_LOG_LEVEL: { level: 'info' },
      OXMQ_CONFIG: 'x.json',
    });
    const error = configError(() =>
      loadSettings(schema, { env: { WORKER_HEALTH_PORT: 'abc' }, cwd }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.problems).toEqual(
      expect.arrayContaining([
        {
          setting: 'OXMQ_LOG_LEVEL',
          source: file,
          message: 'must be a string, number or boolean, not object',
        },
        {
          setting: 'OXMQ_CONFIG',
          source: file,
          message: 'cannot be set in the config file; set it in the environment',
        },
        {
          setting: 'REDIS_URL',
          source: file,
          message:
            'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379, got "http://nope"',
        },
        {
          setting: 'WORKER_HEALTH_PORT',
          source: 'environment',
          message: 'must be a port number from 0 to 65535, got "abc"',
        },
        { setting: 'OXMQ_DEMO', source: file, message: 'must be true, false, 1 or 0, got "maybe"' },
      ]),
    );
    expect(error.problems).toHaveLength(5);
    expect(error.message).toMatch(/^Invalid configuration \(5 problems\):\n/);
    expect(error.message).toContain(
      '  - WORKER_HEALTH_PORT (environment): must be a port number from 0 to 65535, got "abc"',
    );
  });

  it('reports a file that is not JSON or not an object, and still checks the environment', () => {
    const file = writeConfig('{ "PORT": 3000, }');
    const error = configError(() => loadSettings(schema, { env: { OXMQ_LOG_LEVEL: 'loud' }, cwd }));
    expect(error.problems).toHaveLength(2);
    expect(error.problems[0]).toMatchObject({ source: file });
    expect(error.problems[0]?.message).toMatch(/^is not valid JSON/);
    expect(error.problems[1]).toMatchObject({ setting: 'OXMQ_LOG_LEVEL', source: 'environment' });

    writeConfig(['PORT']);
    expect(configError(() => loadSettings(schema, { env: {}, cwd })).problems).toEqual([
      { source: file, message: 'must hold a JSON object: { "SETTING_NAME": value }' },
    ]);
  });

  it('says a required setting is required, and never echoes a secret value', () => {
    const required = z.object({
      NEXTAUTH_URL: z.url(),
      NEXTAUTH_SECRET: z.string().min(16, 'must be at least 16 characters'),
    });
    const error = configError(() =>
      loadSettings(required, { env: { NEXTAUTH_SECRET: 'hunter2' }, cwd }),
    );
    expect(error.problems).toEqual([
      { setting: 'NEXTAUTH_URL', source: 'not set', message: 'is required' },
      {
        setting: 'NEXTAUTH_SECRET',
        source: 'environment',
        message: 'must be at least 16 characters',
      },
    ]);
    expect(error.message).not.toContain('hunter2');
  });

  it('reports object-level refinements', () => {
    const pair = z
      .object({
        OXMQ_ADMIN_USER: z.string().optional(),
        OXMQ_ADMIN_PASSWORD: z.string().optional(),
      })
      .refine(
        (env) => (env.OXMQ_ADMIN_USER === undefined) === (env.OXMQ_ADMIN_PASSWORD === undefined),
        {
          message: 'set OXMQ_ADMIN_USER and OXMQ_ADMIN_PASSWORD together',
        },
      );
    expect(
      configError(() => loadSettings(pair, { env: { OXMQ_ADMIN_USER: 'a' }, cwd })).problems,
    ).toEqual([
      { source: 'settings', message: 'set OXMQ_ADMIN_USER and OXMQ_ADMIN_PASSWORD together' },
    ]);
  });
});
