/**
 * A redis-server with `appendonly yes` and `appendfsync everysec` whose fdatasync(2) calls are
 * logged, and optionally slowed, by a small preloaded library (redis-restart-fsync.c, built here
 * with gcc once per test process). Redis itself is unchanged: the library only times the sync
 * of the AOF and, when asked, makes it slow the way a busy disk does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis, type RedisServer } from '../setup/redis-server';

const source = path.join(path.dirname(fileURLToPath(import.meta.url)), 'redis-restart-fsync.c');
let built: string | undefined;

function sharedLibrary(): string {
  if (!built) {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'oxmq-fsync-')), 'fsync.so');
    execFileSync('gcc', ['-shared', '-fPIC', '-O2', '-o', out, source, '-ldl']);
    built = out;
  }
  return built;
}

/** One fdatasync of the AOF's incremental file: when it started and returned (ms epoch). */
export interface FsyncRecord {
  start: number;
  end: number;
}

export interface EverysecServer {
  server: RedisServer;
  /** Starts it again from its directory (its AOF), with the library preloaded again. */
  restart(): Promise<void>;
  /** The AOF syncs that have returned, oldest first. */
  fsyncs(): FsyncRecord[];
  /** When the AOF sync now running started (ms epoch), or undefined when none is running. */
  fsyncInProgress(): number | undefined;
}

/** The log's lines about the AOF's incremental file: `[start, end]`, end '-' while running. */
function aofLines(log: string): [string, string][] {
  return (existsSync(log) ? readFileSync(log, 'utf8') : '')
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([, , file]) => file?.includes('.incr.aof'))
    .map(([start, end]) => [start!, end!]);
}

/**
 * spawn() copies process.env when it is called; the variables are set only while the server
 * starts, when the test process spawns nothing else.
 */
async function withEnv<T>(env: Record<string, string>, start: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return await start();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** `fsyncDelayMs`: how much longer every AOF sync takes (a busy disk); 0 leaves them as they are. */
export async function startEverysecServer(fsyncDelayMs = 0): Promise<EverysecServer> {
  const log = path.join(mkdtempSync(path.join(os.tmpdir(), 'oxmq-fsync-log-')), 'fsync.log');
  const env = {
    LD_PRELOAD: sharedLibrary(),
    OXMQ_FSYNC_LOG: log,
    ...(fsyncDelayMs > 0 ? { OXMQ_FSYNC_DELAY_MS: String(fsyncDelayMs) } : {}),
  };
  const server = await withEnv(env, () =>
    startRedis(['--appendonly', 'yes', '--appendfsync', 'everysec']),
  );
  return {
    server,
    restart: () => withEnv(env, () => server.restart()),
    fsyncs: () =>
      aofLines(log)
        .filter(([, end]) => end !== '-')
        .map(([start, end]) => ({ start: Number(start), end: Number(end) })),
    fsyncInProgress: () => {
      const lines = aofLines(log);
      const finished = new Set(lines.filter(([, end]) => end !== '-').map(([start]) => start));
      const running = lines.filter(([start, end]) => end === '-' && !finished.has(start));
      return running.length ? Number(running.at(-1)![0]) : undefined;
    },
  };
}
