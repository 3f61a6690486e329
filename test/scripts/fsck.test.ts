/**
 * `npm run fsck` (`node --import tsx scripts/fsck.ts`) against the run's Redis: exit 0 and
 * "clean" for a healthy queue, exit 1 with the broken invariant's count and sample id otherwise,
 * exit 2 for a missing --queue or an unreachable Redis; and REDIS_URL as the default target.
 * With --repair-safe: one line per repair, an audit entry, and the exit code of the check after.
 * Without --redis-url it connects as the console does: a Redis Cluster from REDIS_CLUSTER_NODES
 * (a hash-tagged queue, checked and repaired on its master), and bad settings exit 2.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { openRedis } from '../../config/redis-connection';
import { startRedisCluster } from '../helpers/redis-cluster';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, redisUrl, uniqueQueueName } from '../helpers/redis';
import { queueKey } from '../helpers/redis-state';

const track = useCleanup();
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function runFsck(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/fsck.ts', ...args], {
      cwd: repoRoot,
      env: { NODE_ENV: 'test' as const, PATH: process.env.PATH ?? '', ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('npm run fsck', () => {
  it('exits 0 on a clean queue and 1 with the sample of a broken one', async () => {
    const name = uniqueQueueName('fsck-cli');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const a = await queue.add('a', {});
    await queue.add('b', {});

    const clean = await runFsck(['--queue', name, '--redis-url', redisUrl()]);
    expect(clean.output).toContain(`queue bull:${name}: clean`);
    expect(clean.code).toBe(0);

    await redis.del(queueKey(name, a.id!));
    // REDIS_URL is the default target; a small budget walks the queue in several calls.
    const broken = await runFsck(['--queue', name, '--budget', '1'], { REDIS_URL: redisUrl() });
    expect(broken.output).toContain(`queue bull:${name}: NOT clean`);
    expect(broken.output).toMatch(new RegExp(`member-without-hash +1 +e\\.g\\. ${a.id}\\n`));
    expect(broken.code).toBe(1);
  });

  it('--repair-safe repairs, audits, and exits 0 once clean or 1 while report-only findings remain', async () => {
    const name = uniqueQueueName('fsck-repair');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const a = await queue.add('a', {});
    const b = await queue.add('b', {});
    const c = await queue.add('c', {});
    await redis.del(queueKey(name, a.id!));
    await redis.zadd(queueKey(name, 'completed'), Date.now(), c.id!);

    const run = await runFsck(['--queue', name, '--repair-safe', '--redis-url', redisUrl()]);
    expect(run.output).toMatch(
      new RegExp(
        `repair member-without-hash +${a.id} +applied: remove the dangling id .*: wait\\n`,
      ),
    );
    expect(run.output).toMatch(
      new RegExp(`repair multiple-states +${c.id} +skipped: report-only\\n`),
    );
    expect(run.output).toContain('repairs: 1 applied, 1 not');
    const after = run.output.slice(run.output.indexOf('after repairs:'));
    expect(after).toContain(`queue bull:${name}: NOT clean`);
    expect(after).toMatch(/member-without-hash +0\n/);
    expect(after).toMatch(new RegExp(`multiple-states +1 +e\\.g\\. ${c.id}\\n`));
    expect(run.code).toBe(1);
    expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([c.id, b.id]);

    const audit = (await redis.xrevrange('oxmq:audit', '+', '-', 'COUNT', 200))
      .map(([, fields]) => fields)
      .find((fields) => fields.includes(`bull:${name}`));
    expect(audit).toBeDefined();
    const entry = Object.fromEntries(audit!.flatMap((v, i) => (i % 2 ? [] : [[v, audit![i + 1]]])));
    expect(entry).toMatchObject({ role: 'cli', action: 'queue.integrity.repair', outcome: 'ok' });
    expect(JSON.parse(entry.params!)).toMatchObject({
      applied: 1,
      repairs: [{ code: 'member-without-hash', jobId: a.id, applied: true }],
    });

    await redis.zrem(queueKey(name, 'completed'), c.id!);
    await redis.del(queueKey(name, b.id!));
    const second = await runFsck(['--queue', name, '--repair-safe', '--redis-url', redisUrl()]);
    expect(second.output).toMatch(new RegExp(`after repairs:\\nqueue bull:${name}: clean\\n`));
    expect(second.code).toBe(0);
    // Without the flag nothing is written.
    await redis.del(queueKey(name, c.id!));
    expect((await runFsck(['--queue', name, '--redis-url', redisUrl()])).code).toBe(1);
    expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([c.id]);
  });

  it('exits 2 without a queue name, and with the reason when Redis cannot be reached', async () => {
    const run = await runFsck(['--redis-url', redisUrl()]);
    expect(run.output).toContain('usage: npm run fsck');
    expect(run.code).toBe(2);
    const unreachable = await runFsck(['--queue', 'q', '--redis-url', 'redis://127.0.0.1:1']);
    expect(unreachable.output).toContain('fsck: connect ECONNREFUSED 127.0.0.1:1');
    expect(unreachable.code).toBe(2);
  });

  it('exits 2 naming a bad connection setting', async () => {
    const run = await runFsck(['--queue', 'q'], { REDIS_SENTINELS: '127.0.0.1:1' });
    expect(run.output).toContain('REDIS_SENTINEL_NAME (not set): is required with REDIS_SENTINELS');
    expect(run.code).toBe(2);
  });

  it('checks and repairs a hash-tagged queue on a Redis Cluster from REDIS_CLUSTER_NODES', async () => {
    const cluster = await startRedisCluster({ replicasPerMaster: 0 });
    const client = openRedis({ kind: 'cluster', nodes: cluster.nodes, tls: false });
    const queue = new Queue('fsck', { connection: client, prefix: 'fsk', clusterHashTags: true });
    try {
      const nodes = cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',');
      const a = await queue.add('a', {});
      const b = await queue.add('b', {});
      await client.del(`${queue.keys.base}${a.id!}`);
      const env = { REDIS_CLUSTER_NODES: nodes };

      const broken = await runFsck(['--queue', '{fsck}', '--prefix', 'fsk'], env);
      expect(broken.output).toMatch(new RegExp(`member-without-hash +1 +e\\.g\\. ${a.id}\\n`));
      expect(broken.code).toBe(1);
      const repaired = await runFsck(
        ['--queue', '{fsck}', '--prefix', 'fsk', '--repair-safe'],
        env,
      );
      expect(repaired.output).toContain('repairs: 1 applied, 0 not');
      expect(repaired.output).toMatch(/after repairs:\nqueue fsk:\{fsck\}: clean\n/);
      expect(repaired.code).toBe(0);
      expect(await client.lrange(queue.keys.wait, 0, -1)).toEqual([b.id]);
      // An untagged queue's keys would spread over slots: refused, not half checked.
      const untagged = await runFsck(['--queue', 'plain', '--prefix', 'fsk'], env);
      expect(untagged.output).toContain('hash tag');
      expect(untagged.code).toBe(2);
    } finally {
      await queue.close();
      client.disconnect();
      await cluster.stop();
    }
  }, 60_000);
});
