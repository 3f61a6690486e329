/**
 * The Redis that `npm start` owns when no REDIS_URL is set: a `redis-server` bound to loopback
 * on a free port, persisting to `<data dir>/redis` with an append-only file fsynced every second
 * (a crash loses at most about a second of writes), and `noeviction`, because a job queue must
 * refuse writes rather than silently drop jobs when memory runs out. It stops with the launcher.
 *
 * Loopback is not private on a shared host: Redis requires a password (redis-password.ts), read
 * from standard input so it never shows in a process list, and its folder is 0700 with files
 * 0600 (it is started with umask 077, since it creates its append-only files itself).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { spawnChild, type ManagedChild } from './child-process';
import { freePort } from './free-port';
import { makePrivateDir } from './private-files';
import { loadOrCreateRedisPassword } from './redis-password';

export class RedisNotInstalledError extends Error {
  override readonly name = 'RedisNotInstalledError';
  constructor() {
    super(
      [
        'redis-server was not found on PATH, and REDIS_URL is not set.',
        'Either install Redis (6.2 or newer):',
        '  Debian/Ubuntu: sudo apt-get install -y redis-server',
        '  macOS:         brew install redis',
        'or point OxMQ at a Redis you already run:',
        '  REDIS_URL=redis://127.0.0.1:6379 npm start',
      ].join('\n'),
    );
  }
}

export class EmbeddedRedisError extends Error {
  override readonly name = 'EmbeddedRedisError';
}

export interface EmbeddedRedis {
  /** With the password: what the console, the runner and the demo get as REDIS_URL. */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly pid: number;
  /** SHUTDOWN (which fsyncs the append-only file), then waits for the process to exit. */
  stop(): Promise<void>;
}

export interface EmbeddedRedisOptions {
  /** Where Redis keeps its files (created if missing). */
  dir: string;
  /** The JSON file (0600) that keeps the generated password (created if missing). */
  passwordFile: string;
  log: (message: string) => void;
  startTimeoutMs?: number;
}

export function redisServerVersion(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return undefined;
  return /v=([\d.]+)/.exec(probe.stdout)?.[1] ?? probe.stdout.trim();
}

export async function startEmbeddedRedis(options: EmbeddedRedisOptions): Promise<EmbeddedRedis> {
  const version = redisServerVersion();
  if (!version) throw new RedisNotInstalledError();
  const dir = path.resolve(options.dir);
  makePrivateDir(dir, { contents: true });
  const pidFile = path.join(dir, 'redis.pid');
  await stopLeftover(pidFile, options.log);
  const { password } = loadOrCreateRedisPassword(options.passwordFile);

  const port = await freePort();
  const child = spawnOwnerOnly(
    'redis-server',
    [
      // `-` first: read configuration from standard input, where the password goes.
      '-',
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--protected-mode',
      'yes',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
      '--daemonize',
      'no',
      '--pidfile',
      pidFile,
      '--logfile',
      path.join(dir, 'redis.log'),
    ],
    `requirepass ${password}\n`,
  );
  const url = `redis://:${password}@127.0.0.1:${port}`;
  await waitUntilServing(url, child, options.startTimeoutMs ?? 30_000, dir);
  options.log(
    `embedded redis-server ${version} on redis://127.0.0.1:${port} (password in ` +
      `${options.passwordFile}), data in ${dir}`,
  );
  return {
    url,
    port,
    dir,
    pid: child.process.pid ?? -1,
    stop: () => shutdown(url, child),
  };
}

/**
 * Spawns with umask 077, so what Redis creates (append-only files, log, pid file) is owner-only.
 * The umask is process-wide, but spawn() forks synchronously: only this child sees it.
 */
function spawnOwnerOnly(command: string, args: string[], stdin: string): ManagedChild {
  const previous = process.umask(0o077);
  try {
    return spawnChild('redis', command, args, { quiet: true, stdin });
  } finally {
    process.umask(previous);
  }
}

/** A redis-server an earlier launcher left running on this data dir (the launcher was killed). */
async function stopLeftover(pidFile: string, log: (message: string) => void): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isRedisServer(pid)) return;
  log(`stopping redis-server pid ${pid}, left running on this data dir by an earlier start`);
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (isRedisServer(pid)) {
    if (Date.now() > deadline) {
      throw new EmbeddedRedisError(
        `redis-server pid ${pid} still uses ${path.dirname(pidFile)}; stop it and start again`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isRedisServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** A client for one probe or command: no retries, no reconnects, errors left to the caller. */
function oneShotClient(url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  return client;
}

/** PING until Redis answers PONG (not LOADING: a big append-only file takes a while to load). */
async function waitUntilServing(
  url: string,
  child: ManagedChild,
  timeoutMs: number,
  dir: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!child.running()) {
      throw new EmbeddedRedisError(
        `redis-server exited during startup (${await child.exited}); see ${path.join(dir, 'redis.log')}`,
      );
    }
    const client = oneShotClient(url);
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // Not listening yet, or still loading the append-only file.
    } finally {
      client.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await child.stop(5_000);
  throw new EmbeddedRedisError(
    `redis-server did not answer within ${timeoutMs} ms; see ${path.join(dir, 'redis.log')}`,
  );
}

async function shutdown(url: string, child: ManagedChild): Promise<void> {
  if (!child.running()) return;
  const client = oneShotClient(url);
  try {
    await client.connect();
    // The server closes the connection as it exits, so the reply is an error or nothing.
    await client.call('SHUTDOWN').catch(() => undefined);
  } catch {
    // Not reachable: the signal below still stops it (SIGTERM also fsyncs and exits).
  } finally {
    client.disconnect();
  }
  await child.stop(15_000);
}
