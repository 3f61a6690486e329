import { describe, expect, it } from 'vitest';
import { KNOWN_SETTINGS, KNOWN_SETTING_NAMES } from '../../config/known-settings';
import { settingsTable } from '../../config/settings-table';
import { RUNNER_SETTINGS_SCHEMA } from '../../runner/settings';

/** The names the shared contract lists; a process reading a name missing here breaks config files. */
const CONTRACT_NAMES = [
  'OXMQ_CONFIG',
  'REDIS_URL',
  'OXMQ_PREFIX',
  'OXMQ_PROCESSORS_DIR',
  'WORKER_HEALTH_PORT',
  'WORKER_HEALTH_HOST',
  'OXMQ_SHUTDOWN_TIMEOUT_MS',
  'OXMQ_LOG_LEVEL',
  'PORT',
  'OXMQ_DATA_DIR',
  'OXMQ_DEMO',
  'OXMQ_WORKER',
  'OXMQ_PREFIXES',
  'OXMQ_ADMIN_USER',
  'OXMQ_ADMIN_PASSWORD',
  'OXMQ_USERS',
  'OXMQ_READ_ONLY',
  'OXMQ_REDACT_KEYS',
  'NEXTAUTH_SECRET',
  'NEXTAUTH_URL',
];

describe('known settings', () => {
  it('lists every contract name once, each with a default, a one-line doc and its readers', () => {
    for (const name of CONTRACT_NAMES) expect(KNOWN_SETTING_NAMES.has(name), name).toBe(true);
    expect(KNOWN_SETTING_NAMES.size).toBe(KNOWN_SETTINGS.length);
    for (const setting of KNOWN_SETTINGS) {
      expect(setting.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(setting.default.length, setting.name).toBeGreaterThan(0);
      expect(setting.doc, setting.name).toMatch(/^\S.*\.$/);
      expect(setting.doc, setting.name).not.toContain('\n');
      expect(setting.readBy.length, setting.name).toBeGreaterThan(0);
    }
  });

  it("covers every name the runner's schema reads", () => {
    for (const name of Object.keys(RUNNER_SETTINGS_SCHEMA.shape)) {
      expect(KNOWN_SETTINGS.find((setting) => setting.name === name)?.readBy, name).toContain(
        'runner',
      );
    }
  });

  it('renders a Markdown table, optionally for one reader', () => {
    const table = settingsTable();
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toBe('| Variable | Default | Read by | Meaning |');
    expect(lines).toHaveLength(KNOWN_SETTINGS.length + 2);
    expect(table).toContain(
      "| `WORKER_HEALTH_PORT` | `3001` | runner, launcher | Port of the worker runner's health server (/livez, /readyz, /health); 0 = any free port. |",
    );
    const runnerOnly = settingsTable('runner');
    expect(runnerOnly).toContain('`OXMQ_SHUTDOWN_TIMEOUT_MS`');
    expect(runnerOnly).not.toContain('`NEXTAUTH_SECRET`');
  });
});
