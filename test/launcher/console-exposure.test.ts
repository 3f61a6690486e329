/**
 * What `npm start` exposes by default: the console listens on loopback unless HOST says
 * otherwise, and the generated admin password is printed by the start that generates it only
 * (later starts name the file that keeps it). The real listening sockets are checked by the
 * start-command test (test/launcher/start-command.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config-error';
import { consoleProbeBase, defaultConsoleOrigin } from '../../launcher/console-address';
import { consoleEnvironment } from '../../launcher/console-env';
import { loadLauncherSettings } from '../../launcher/settings';
import { upMessage } from '../../launcher/up-message';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'oxmq-exposure-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function settings(env: Record<string, string> = {}) {
  const cwd = mkdtempSync(path.join(scratch, 'cwd-'));
  return loadLauncherSettings({}, { OXMQ_DATA_DIR: path.join(cwd, 'data'), ...env }, cwd);
}

describe('where the launcher serves the console', () => {
  it('listens on 127.0.0.1 unless HOST is set, and opens localhost', () => {
    const defaults = settings();
    expect(defaults.host).toBe('127.0.0.1');
    expect(consoleEnvironment(defaults).url).toBe(`http://localhost:${defaults.port}`);
    expect(settings({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('refuses a HOST that is not a host name or address', () => {
    expect(() => settings({ HOST: 'http://example/' })).toThrow(ConfigError);
    expect(() => settings({ HOST: 'two words' })).toThrow(/HOST \(environment\): must be a host/);
  });

  it('polls the console on loopback for a wildcard, on the address itself otherwise', () => {
    expect(consoleProbeBase('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000');
    expect(consoleProbeBase('::', 3000)).toBe('http://127.0.0.1:3000');
    expect(consoleProbeBase('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(consoleProbeBase('::1', 3000)).toBe('http://[::1]:3000');
    expect(defaultConsoleOrigin('127.0.0.1', 3000)).toBe('http://localhost:3000');
    expect(defaultConsoleOrigin('0.0.0.0', 3000)).toBe('http://localhost:3000');
    expect(defaultConsoleOrigin('192.0.2.7', 3000)).toBe('http://192.0.2.7:3000');
  });
});

describe('the generated admin password', () => {
  it('is printed by the start that generates it, and only that one', () => {
    const once = settings();
    const first = consoleEnvironment(once);
    const second = consoleEnvironment(once);
    expect(first.generatedAdmin?.firstTime).toBe(true);
    expect(second.generatedAdmin?.firstTime).toBe(false);
    const password = first.generatedAdmin!.password;
    expect(second.generatedAdmin!.password).toBe(password);

    const message = (admin: typeof first.generatedAdmin) =>
      upMessage({ consoleUrl: first.url, host: once.host, generatedAdmin: admin, demo: false });
    expect(message(first.generatedAdmin)).toContain(`with password "${password}"`);
    const later = message(second.generatedAdmin);
    expect(later).not.toContain(password);
    expect(later).toContain(
      `sign in as "admin" with the generated password kept in ${first.generatedAdmin!.file}`,
    );
  });

  it('is not mentioned when users are configured', () => {
    const configured = settings({
      OXMQ_ADMIN_USER: 'olga',
      OXMQ_ADMIN_PASSWORD: 'long-enough-password',
    });
    const environment = consoleEnvironment(configured);
    expect(environment.generatedAdmin).toBeUndefined();
    const message = upMessage({ consoleUrl: environment.url, host: '127.0.0.1', demo: false });
    expect(message).not.toContain('sign in');
    expect(message).toContain('listening on 127.0.0.1 only; set HOST=0.0.0.0');
  });
});
