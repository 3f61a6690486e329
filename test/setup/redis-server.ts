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

export async function startRedis(
  extraArgs: string[] = [],
): Promise<{ port: number; process: ChildProcess; dir: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-redis-'));
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
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
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
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
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { port, process: child, dir, stop };
}

export default async function setup(project: TestProject) {
  const redis = await startRedis();
  project.provide('redisPort', redis.port);
  return async () => {
    await redis.stop();
  };
}
