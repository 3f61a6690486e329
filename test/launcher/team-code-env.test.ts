/**
 * The environment the launcher gives the children that run team code (launcher/team-code-env.ts)
 * and what the runner takes out of its own (runner/withhold-console-env.ts): every variable the
 * console reads that the runner and the demo do not is withheld, nothing else.
 */
import { describe, expect, it } from 'vitest';
import { isConsoleOnlyVariable } from '../../config/console-only-env';
import { KNOWN_SETTINGS } from '../../config/known-settings';
import { CONSOLE_ENV_KEYS } from '../../lib/server/env';
import { teamCodeEnv } from '../../launcher/team-code-env';
import { withholdConsoleEnv } from '../../runner/withhold-console-env';

const readByTeamCode = (name: string) =>
  KNOWN_SETTINGS.some(
    (setting) =>
      setting.name === name &&
      (setting.readBy.includes('runner') || setting.readBy.includes('demo')),
  );

describe('console-only variables', () => {
  it('are every variable the console reads and the runner and the demo do not', () => {
    for (const name of CONSOLE_ENV_KEYS) {
      expect(isConsoleOnlyVariable(name), name).toBe(!readByTeamCode(name));
    }
    for (const name of [
      'NEXTAUTH_SECRET',
      'NEXTAUTH_URL_INTERNAL',
      'AUTH_SECRET',
      'OXMQ_USERS_FILE',
    ])
      expect(isConsoleOnlyVariable(name), name).toBe(true);
  });

  it('leave every setting of the runner and the demo, and the team variables', () => {
    for (const { name } of KNOWN_SETTINGS.filter(({ name }) => readByTeamCode(name)))
      expect(isConsoleOnlyVariable(name), name).toBe(false);
    for (const name of [
      'PATH',
      'HOME',
      'NODE_OPTIONS',
      'TZ',
      'HTTPS_PROXY',
      'DATABASE_URL',
      'MY_SERVICE_URL',
      'OTEL_SERVICE_NAME',
    ])
      expect(isConsoleOnlyVariable(name), name).toBe(false);
  });
});

describe('teamCodeEnv', () => {
  it("is the launcher's environment without the console's variables, plus the child's settings", () => {
    const env = teamCodeEnv(
      {
        NODE_ENV: 'production',
        PATH: '/usr/bin',
        MY_SERVICE_URL: 'https://service.internal',
        NEXTAUTH_SECRET: 's'.repeat(32),
        OXMQ_ADMIN_PASSWORD: 'password1',
        OXMQ_METRICS_TOKEN: 't'.repeat(32),
        OXMQ_USERS: '[]',
        OXMQ_PREFIX: 'from-the-shell',
      },
      { REDIS_URL: 'redis://:pw@127.0.0.1:1', OXMQ_PREFIX: 'bull' },
    );
    expect(env).toEqual({
      NODE_ENV: 'production',
      PATH: '/usr/bin',
      MY_SERVICE_URL: 'https://service.internal',
      REDIS_URL: 'redis://:pw@127.0.0.1:1',
      OXMQ_PREFIX: 'bull',
    });
  });
});

describe('withholdConsoleEnv', () => {
  it('removes them from the environment it is given and names them', () => {
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: 'test',
      NEXTAUTH_SECRET: 's'.repeat(32),
      OXMQ_USERS: '[]',
      REDIS_URL: 'redis://h',
      MY_SERVICE_URL: 'https://service.internal',
    };
    expect(withholdConsoleEnv(env)).toEqual(['NEXTAUTH_SECRET', 'OXMQ_USERS']);
    expect(env).toEqual({
      NODE_ENV: 'test',
      REDIS_URL: 'redis://h',
      MY_SERVICE_URL: 'https://service.internal',
    });
  });
});
