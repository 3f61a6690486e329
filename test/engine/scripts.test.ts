import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OXMQ_VERSION, Queue, Worker, type Job } from 'oxmq';
import { ALL_SCRIPTS, commandName, type RedisQueueBackend } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { startRedis } from '../setup/redis-server';

const track = useCleanup();
const repoRoot = path.resolve(__dirname, '..', '..');
const luaDir = path.join(repoRoot, 'lua');

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

describe('script registration', () => {
  it('names every command <script>:oxmq-<version>', () => {
    const scripts = ALL_SCRIPTS;
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect(commandName(script.name)).toBe(`${script.name}:oxmq-${OXMQ_VERSION}`);
    }
  });

  it('registers them on the client a Queue uses, and loads them into Redis on use', async () => {
    const name = uniqueQueueName('scripts');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.add('a', {});
    // The default storage is Redis: its backend holds the client the scripts are defined on.
    const client = (queue.backend as RedisQueueBackend).client as unknown as Record<
      string,
      unknown
    > & {
      scriptsSet: Record<string, unknown>;
    };
    for (const script of ALL_SCRIPTS) {
      const command = commandName(script.name);
      expect(typeof client[command], command).toBe('function');
      expect(Object.keys(client.scriptsSet)).toContain(command);
      // Never bullmq's own names: both libraries can share a Redis.
      expect(Object.keys(client.scriptsSet)).not.toContain(`${script.name}:6.7.0`);
    }
    const addJob = ALL_SCRIPTS.find((s) => s.name === 'addJob')!;
    const redis = track(rawClient());
    expect(await redis.script('EXISTS', sha1(addJob.lua))).toEqual([1]);
  });

  it('inlines every include (no @include line is left in a loaded script)', () => {
    for (const script of ALL_SCRIPTS) {
      expect(script.lua, script.name).not.toMatch(/--- @include/);
    }
  });
});

describe('after SCRIPT FLUSH (NOSCRIPT fallback)', () => {
  // A server of its own: flushing the shared one would disturb other test files.
  let server: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server.stop();
  });
  const connection = () => ({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null });

  it('adds and processes jobs again, single and bulk, each job exactly once', async () => {
    const name = uniqueQueueName('flush');
    const redis = track(new Redis(connection()));
    const queue = track(new Queue(name, { connection: connection() }));
    const seen: string[] = [];
    const worker = track(
      new Worker(name, async (job: Job) => void seen.push(job.name), { connection: connection() }),
    );
    worker.on('error', () => undefined);
    await queue.add('before', {});
    await queue.addBulk([{ name: 'bulk-before', data: {} }]);
    await waitFor(() => seen.length === 2);

    expect(await redis.script('FLUSH')).toBe('OK');
    const addJob = ALL_SCRIPTS.find((s) => s.name === 'addJob')!;
    expect(await redis.script('EXISTS', sha1(addJob.lua))).toEqual([0]);

    const single = await queue.add('after', {});
    expect(single.id).toBe('3');
    const bulk = await queue.addBulk([
      { name: 'bulk-after-1', data: {} },
      { name: 'bulk-after-2', data: {} },
    ]);
    expect(bulk.map((j) => j.id)).toEqual(['4', '5']);
    await waitFor(() => seen.length === 5, 15_000);
    expect(seen.slice(2).sort()).toEqual(['after', 'bulk-after-1', 'bulk-after-2']);
    expect(await redis.get(`bull:${name}:id`)).toBe('5');
    expect(await redis.zcard(`bull:${name}:completed`)).toBe(5);
    expect(await redis.script('EXISTS', sha1(addJob.lua))).toEqual([1]);
  });
});

describe('version', () => {
  it('OXMQ_VERSION equals package.json version', () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(OXMQ_VERSION).toBe(pkg.version);
  });

  it('a Queue records bullmq-oxmq:<version> in meta', async () => {
    const name = uniqueQueueName('meta');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.waitUntilReady();
    const redis = track(rawClient());
    expect(await redis.hget(`bull:${name}:meta`, 'version')).toBe(`bullmq-oxmq:${OXMQ_VERSION}`);
    expect(await redis.hget(`bull:${name}:meta`, 'opts.maxLenEvents')).toBe('10000');
  });
});

describe('lua/ layout', () => {
  const files = readdirSync(luaDir).filter((file) => file.endsWith('.lua'));
  const includes = new Set(
    readdirSync(path.join(luaDir, 'includes'))
      .filter((file) => file.endsWith('.lua'))
      .map((file) => file.slice(0, -4)),
  );

  it('has scripts, and the generated registry holds each of them', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(ALL_SCRIPTS.map((s) => s.name).sort()).toEqual(
      files.map((file) => file.replace(/-\d+\.lua$/, '')).sort(),
    );
  });

  for (const file of files) {
    describe(file, () => {
      const source = readFileSync(path.join(luaDir, file), 'utf8');
      const match = /^([A-Za-z][A-Za-z0-9]*)-(\d+)\.lua$/.exec(file);

      it('is named <command>-<numKeys>.lua', () => {
        expect(match, file).not.toBeNull();
      });

      it('declares exactly numKeys KEYS in its header, and uses no others', () => {
        const numKeys = Number(match?.[2]);
        const header = /^--\[\[([\s\S]*?)\]\]/.exec(source);
        expect(header, `${file} starts with a --[[ ... ]] header`).not.toBeNull();
        const declared = new Set(
          [...header![1]!.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])),
        );
        expect([...declared].sort((a, b) => a - b)).toEqual(
          Array.from({ length: numKeys }, (_, i) => i + 1),
        );
        const body = source.slice(header![0].length);
        const used = [...body.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
        for (const index of used)
          expect(index, `${file} uses KEYS[${index}]`).toBeLessThanOrEqual(numKeys);
      });

      it('documents ARGV and the return value in its header', () => {
        const header = /^--\[\[([\s\S]*?)\]\]/.exec(source)?.[1] ?? '';
        if (/ARGV\[/.test(source.slice(header.length))) expect(header).toMatch(/ARGV\[\d+\]/);
        expect(header).toMatch(/Returns?/);
      });

      it('includes only fragments that exist', () => {
        for (const [, name] of source.matchAll(/^--- @include "([\w-]+)"/gm)) {
          expect(includes.has(name!), `${file} includes ${name}`).toBe(true);
        }
      });
    });
  }
});
