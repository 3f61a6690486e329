/**
 * The Redis `npm start` owns without REDIS_URL: a real redis-server on loopback with an
 * append-only file fsynced every second and `noeviction`; its data survives a stop and start,
 * and a server left running by a launcher that died is stopped by the next start. It requires a
 * password generated once into a 0600 file, keeps its folder 0700 and its files 0600, and takes
 * over a data folder an older launcher wrote without a password.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../launcher/embedded-redis';
import { freePort } from '../setup/redis-server';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'oxmq-embedded-'));
const dataDir = path.join(scratch, 'data');
const dir = path.join(dataDir, 'redis');
const passwordFile = path.join(dataDir, 'redis-credentials.json');
const servers: EmbeddedRedis[] = [];
const log: string[] = [];

afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function start(options: { dir: string; passwordFile: string } = { dir, passwordFile }) {
  const server = await startEmbeddedRedis({ ...options, log: (line) => log.push(line) });
  servers.push(server);
  return server;
}

async function withClient<T>(url: string, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(url);
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One inline command on a plain socket, resolving with the first reply line (`+OK`, `-NOAUTH
 * ...`), or '' when the server closes without a reply (SHUTDOWN). No client library between the
 * test and what the server really answers.
 */
function rawCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${command}\r\n`));
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.split('\r\n')[0]!);
      }
    });
    socket.on('close', () => resolve(reply));
    socket.on('error', reject);
  });
}

function mode(file: string): number {
  return statSync(file).mode & 0o777;
}

/** Every file and folder under `root` with its permission bits, e.g. `appendonlydir: 700`. */
function modesUnder(root: string): Record<string, string> {
  const modes: Record<string, string> = {};
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    modes[path.relative(root, file)] = mode(file).toString(8);
  }
  return modes;
}

function expectOwnerOnly(root: string): void {
  for (const [name, bits] of Object.entries(modesUnder(root)))
    expect(`${name}: ${bits}`).toBe(`${name}: ${name === 'appendonlydir' ? '700' : '600'}`);
}

function storedPassword(file = passwordFile): string {
  return (JSON.parse(readFileSync(file, 'utf8')) as { password: string }).password;
}

describe('embedded redis-server', () => {
  it('persists with AOF everysec, never evicts, listens on loopback only', async () => {
    const server = await start();
    expect(server.url).toBe(`redis://:${storedPassword()}@127.0.0.1:${server.port}`);
    const config = await withClient(server.url, async (client) => {
      const read = async (name: string) => ((await client.config('GET', name)) as string[])[1];
      await client.set('kept', 'across restarts');
      return {
        appendonly: await read('appendonly'),
        appendfsync: await read('appendfsync'),
        policy: await read('maxmemory-policy'),
        bind: await read('bind'),
        dir: await read('dir'),
      };
    });
    expect(config).toEqual({
      appendonly: 'yes',
      appendfsync: 'everysec',
      policy: 'noeviction',
      bind: '127.0.0.1',
      dir,
    });
    // The log line says where Redis is, never the password.
    expect(log.join('\n')).not.toContain(storedPassword());
    // What Redis itself created in a new folder is owner-only, whatever the launcher's umask.
    expectOwnerOnly(dir);

    await server.stop();
    expect(alive(server.pid)).toBe(false);
    const again = await start();
    expect(await withClient(again.url, (client) => client.get('kept'))).toBe('across restarts');
  });

  it('refuses a client without the password', async () => {
    const server = servers.at(-1)!;
    expect(await rawCommand(server.port, 'GET kept')).toMatch(/^-NOAUTH/);
    expect(await rawCommand(server.port, 'AUTH wrong-password')).toMatch(/^-WRONGPASS/);
    const password = new URL(server.url).password;
    expect(await rawCommand(server.port, `AUTH ${password}`)).toBe('+OK');
  });

  it('keeps its folder 0700, its files and the password file 0600, and reuses the password', async () => {
    const password = storedPassword();
    expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(dir)).toBe(0o700);
    expect(mode(passwordFile)).toBe(0o600);
    const modes = modesUnder(dir);
    expect(Object.keys(modes)).toEqual(
      expect.arrayContaining(['appendonlydir', 'redis.log', 'redis.pid']),
    );
    expectOwnerOnly(dir);
    // The second start above read the same password back.
    expect(servers.map((server) => new URL(server.url).password)).toEqual([password, password]);
  });

  it('stops a server an earlier launcher left running on the same data dir', async () => {
    const orphan = servers.at(-1)!;
    expect(alive(orphan.pid)).toBe(true);
    // The earlier launcher died without stopping it: the next start finds it by its pid file.
    const next = await start();
    expect(alive(orphan.pid)).toBe(false);
    expect(log.some((line) => line.includes(`stopping redis-server pid ${orphan.pid}`))).toBe(true);
    expect(await withClient(next.url, (client) => client.get('kept'))).toBe('across restarts');
  });

  it('takes over a data folder an older launcher wrote without a password, world-readable', async () => {
    // What an older launcher left: a 0755 folder of 0644 files (umask 022), no password.
    const oldData = path.join(scratch, 'old');
    const oldDir = path.join(oldData, 'redis');
    mkdirSync(oldDir, { recursive: true, mode: 0o755 });
    const port = await freePort();
    const previousUmask = process.umask(0o022);
    const old = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', oldDir, '--appendonly', 'yes'],
      { stdio: 'ignore' },
    );
    // Listened for from the start: the server may be gone before SHUTDOWN's reply is read.
    const oldExited = new Promise((resolve) => old.once('exit', resolve));
    process.umask(previousUmask);
    await expect
      .poll(() => rawCommand(port, 'SET old job').catch(() => ''), { timeout: 10_000 })
      .toBe('+OK');
    await rawCommand(port, 'SHUTDOWN');
    await oldExited;
    expect(mode(oldDir)).toBe(0o755);
    expect(Object.values(modesUnder(oldDir))).toContain('644');

    const oldPasswordFile = path.join(oldData, 'redis-credentials.json');
    const server = await start({ dir: oldDir, passwordFile: oldPasswordFile });
    expect(await withClient(server.url, (client) => client.get('old'))).toBe('job');
    expect(new URL(server.url).password).toBe(storedPassword(oldPasswordFile));
    expect(mode(oldDir)).toBe(0o700);
    expectOwnerOnly(oldDir);
  });
});
