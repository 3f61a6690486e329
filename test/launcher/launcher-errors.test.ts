/**
 * `npm start` refusing to start, fast and clearly, before it builds anything: bad settings (from
 * the environment or oxmq.config.json), an unknown argument, no redis-server without REDIS_URL,
 * a taken PORT. The launcher runs as a real process (`node --import tsx launcher/main.ts`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../setup/redis-server';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'oxmq-launcher-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function launch(env: Record<string, string>, args: string[] = []): Promise<Outcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'launcher/main.ts', ...args], {
    cwd: repoRoot,
    env: {
      NODE_ENV: 'test' as const,
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      // An empty config file, so an oxmq.config.json in the checkout changes nothing.
      OXMQ_CONFIG: emptyConfig(),
      OXMQ_DATA_DIR: path.join(scratch, 'data'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

function emptyConfig(): string {
  const file = path.join(scratch, 'empty.json');
  if (!existsSync(file)) writeFileSync(file, '{}');
  return file;
}

describe('npm start refuses to start', () => {
  it('names every bad setting with its source, and exits 1', async () => {
    const config = path.join(scratch, 'bad.json');
    writeFileSync(config, JSON.stringify({ OXMQ_DEMO: 'maybe' }));
    const outcome = await launch({ PORT: 'eighty', OXMQ_CONFIG: config });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('Invalid configuration (2 problems)');
    expect(outcome.stderr).toContain('PORT (environment): must be a port number');
    expect(outcome.stderr).toContain(`OXMQ_DEMO (${config}): must be true, false, 1 or 0`);
  });

  it('refuses an unknown argument with exit 2', async () => {
    const outcome = await launch({}, ['--demoo']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('unknown argument "--demoo"; npm start accepts --demo');
  });

  it('says how to install redis-server or set REDIS_URL when none is on PATH', async () => {
    // A PATH holding node and nothing else.
    const bin = path.join(scratch, 'bin');
    mkdirSync(bin, { recursive: true });
    const node = path.join(bin, 'node');
    if (!existsSync(node)) symlinkSync(process.execPath, node);
    const outcome = await launch({ PATH: bin, PORT: String(await freePort()) });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain(
      'redis-server was not found on PATH, and REDIS_URL is not set',
    );
    expect(outcome.stderr).toContain('sudo apt-get install -y redis-server');
    expect(outcome.stderr).toContain('REDIS_URL=redis://127.0.0.1:6379 npm start');
    expect(outcome.stdout).not.toContain('building the console');
  });

  it('refuses a bad console setting before building anything', async () => {
    const outcome = await launch({
      PORT: String(await freePort()),
      REDIS_URL: 'redis://127.0.0.1:1',
      OXMQ_ADMIN_USER: 'admin',
      OXMQ_ADMIN_PASSWORD: 'short',
    });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain(
      'OXMQ_ADMIN_PASSWORD (console setting): must be at least 8 characters',
    );
    expect(outcome.stdout).not.toContain('building the console');
  });

  it('refuses a PORT that is already taken', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const outcome = await launch({ PORT: String(port), REDIS_URL: 'redis://127.0.0.1:1' });
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toContain(`PORT ${port} is already in use`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
