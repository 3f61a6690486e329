import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  KNOWN_SETTINGS,
  KNOWN_SETTING_NAMES,
  type SettingReader,
} from '../../config/known-settings';
import { settingsTable } from '../../config/settings-table';
import { DEMO_SETTINGS_SCHEMA } from '../../demo/settings';
import { LAUNCHER_SETTINGS_SCHEMA } from '../../launcher/settings';
import { RUNNER_SETTINGS_SCHEMA } from '../../runner/settings';

const readme = readFileSync(
  path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    'docs',
    'configuration.md',
  ),
  'utf8',
);

/** A Markdown table's text without the padding prettier adds to align its columns. */
function unpadded(table: string): string {
  return table
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').replace(/-{3,}/g, '---').trim())
    .join('\n');
}

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

  const schemas: [SettingReader, object][] = [
    ['runner', RUNNER_SETTINGS_SCHEMA.shape],
    ['launcher', LAUNCHER_SETTINGS_SCHEMA.shape],
    ['demo', DEMO_SETTINGS_SCHEMA.shape],
  ];
  it.each(schemas)(
    "covers every name the %s's schema reads, naming it as a reader",
    (reader, shape) => {
      for (const name of Object.keys(shape)) {
        expect(KNOWN_SETTINGS.find((setting) => setting.name === name)?.readBy, name).toContain(
          reader,
        );
      }
    },
  );

  it("is docs/configuration.md's settings table", () => {
    const table = unpadded(settingsTable().trimEnd());
    expect(unpadded(readme)).toContain(table);
  });

  it('renders a Markdown table, optionally for one reader', () => {
    const table = settingsTable();
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toBe('| Variable | Default | Read by | Meaning |');
    expect(lines).toHaveLength(KNOWN_SETTINGS.length + 2);
    expect(table).toContain(
      "| `WORKER_HEALTH_PORT` | `3001` | runner, launcher | Port of the worker runner's health server (/livez, /readyz, /health, /metrics); 0 = any free port. |",
    );
    const runnerOnly = settingsTable('runner');
    expect(runnerOnly).toContain('`OXMQ_SHUTDOWN_TIMEOUT_MS`');
    expect(runnerOnly).not.toContain('`NEXTAUTH_SECRET`');
  });
});
