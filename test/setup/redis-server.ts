/**
 * Vitest global setup: starts a private redis-server on a free port with a temporary directory,
 * provides its port to the tests (inject('redisPort')), and stops it when the run ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    redisPort: number;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** A redis-server of a test's own (or the run's), on a port and directory it keeps. */
export interface RedisServer {
  readonly port: number;
  readonly dir: string;
  /** The running redis-server process (a new one after restart()). */
  readonly process: ChildProcess;
  /** SIGKILL, as in a crash; resolves once the process is gone. */
  kill(): Promise<void>;
  /**
   * Kills the server if it still runs and starts a fresh one with the same arguments (port, dir):
   * the data is gone, as after a crash without persistence.
   */
  restart(): Promise<void>;
  /** SIGTERM (if still running, even after a kill() or a failed restart) and removes the dir. */
  stop(): Promise<void>;
}

/** Spawns redis-server and resolves once it accepts connections on `port`. */
export async function launch(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const listening = new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    child.once('error', (error) =>
      reject(
        new Error(
          `redis-server could not start (${error.message}); install it with apt-get install redis-server`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    const probe = () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline)
          reject(new Error(`redis-server did not listen on ${port}: ${output}`));
        else setTimeout(probe, 50);
      });
    };
    probe();
  });
  try {
    await listening;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}

export async function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

export async function startRedis(extraArgs: string[] = []): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-redis-'));
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
    ...extraArgs,
  ];
  let child = await launch(args, port);
  return {
    port,
    dir,
    get process() {
      return child;
    },
    kill: () => terminate(child, 'SIGKILL'),
    async restart() {
      await terminate(child, 'SIGKILL');
      child = await launch(args, port);
    },
    async stop() {
      await terminate(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject) {
  const redis = await startRedis();
  project.provide('redisPort', redis.port);
  return async () => {
    await redis.stop();
  };
}
