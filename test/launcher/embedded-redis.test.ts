/**
 * The Redis `npm start` owns without REDIS_URL: a real redis-server on loopback with an
 * append-only file fsynced every second and `noeviction`; its data survives a stop and start,
 * and a server left running by a launcher that died is stopped by the next start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../launcher/embedded-redis';

const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-embedded-'));
const servers: EmbeddedRedis[] = [];
const log: string[] = [];

afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<EmbeddedRedis> {
  const server = await startEmbeddedRedis({ dir, log: (line) => log.push(line) });
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

describe('embedded redis-server', () => {
  it('persists with AOF everysec, never evicts, listens on loopback only', async () => {
    const server = await start();
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
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

    await server.stop();
    expect(alive(server.pid)).toBe(false);
    const again = await start();
    expect(await withClient(again.url, (client) => client.get('kept'))).toBe('across restarts');
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
});
