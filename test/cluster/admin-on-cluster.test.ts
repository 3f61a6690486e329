/**
 * The console's reads (engine/admin through createAdmin) on a real Redis Cluster, over a client
 * opened as the console opens its own (config/redis-connection.ts from REDIS_CLUSTER_NODES):
 * hash-tagged queues spread over several masters are discovered, their overviews read (workers
 * included: CLIENT LIST on each queue's master), a job of each found and read, and the
 * cross-queue reads (existing queues, find-everywhere, live events, Prometheus) answer for all.
 * The integrity checker and its safe repairs run on the master of each tagged queue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import {
  checkQueueIntegrity,
  checkQueueIntegrityToEnd,
  createAdmin,
  repairIntegrityFindings,
  repairQueueIntegrityToEnd,
  type QueueRef,
} from 'oxmq/admin';
import { ValidationError } from 'oxmq';
import { engineConnection, openRedis, type RedisClient } from '../../config/redis-connection';
import { loadRunnerSettings } from '../../runner/settings';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { waitFor } from '../helpers/redis';

const prefix = `adm${Math.random().toString(36).slice(2, 8)}`;
const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];

let cluster: RedisCluster | undefined;
let client: RedisClient;
let live: RedisClient;
let shared: ReturnType<typeof engineConnection>;
let queues: Queue[] = [];
let workers: Worker[] = [];
let tmp: string;

beforeAll(async () => {
  cluster = await startRedisCluster();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'oxmq-admin-cluster-'));
  const nodes = cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',');
  const target = loadRunnerSettings({ REDIS_CLUSTER_NODES: nodes }, tmp).redis;
  client = openRedis(target, { connectionName: 'oxmq:console', maxRetriesPerRequest: 1 });
  live = openRedis(target, { connectionName: 'oxmq:console:live', maxRetriesPerRequest: null });
  shared = engineConnection(target, { maxRetriesPerRequest: null });
  queues = NAMES.map(
    (name) => new Queue(name, { connection: shared.connection, prefix, clusterHashTags: true }),
  );
  // A job in every queue; a worker on the first three queues, none on the others.
  for (const queue of queues) await queue.add('first', { queue: queue.name });
  workers = NAMES.slice(0, 3).map(
    (name) =>
      new Worker(name, async (job) => ({ done: job.data }), {
        connection: shared.connection,
        prefix,
        clusterHashTags: true,
      }),
  );
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  await waitFor(async () => {
    const counts = await Promise.all(queues.slice(0, 3).map((q) => q.getJobCounts('completed')));
    return counts.every((c) => c.completed === 1);
  }, 20_000);
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close()));
  await Promise.all(queues.map((queue) => queue.close()));
  await shared?.close();
  client?.disconnect();
  live?.disconnect();
  await cluster?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('console reads on a Redis Cluster', () => {
  it('lists tagged queues on several masters and reads an overview and a job of each', async () => {
    const masters = new Set(
      await Promise.all(queues.map((queue) => cluster!.masterOfKey(queue.keys.meta))),
    );
    expect(masters.size).toBeGreaterThan(1);

    const admin = createAdmin(client, { prefixes: [prefix] });
    const { queues: found, complete } = await admin.queues.discover();
    expect(complete).toBe(true);
    expect(found.map((ref) => ref.name)).toEqual(NAMES.map((name) => `{${name}}`));

    const overviews = await admin.queues.overviews(found);
    for (const [index, overview] of overviews.entries()) {
      const served = index < 3;
      expect(overview.counts, overview.name).toMatchObject(
        served ? { completed: 1, waiting: 0 } : { completed: 0, waiting: 1 },
      );
      // Each served queue's worker is seen on its own master, whichever node that is.
      expect(overview.workers.length > 0, overview.name).toBe(served);
    }
    const one = await admin.queues.overview(prefix, found[0]!.name);
    expect(one.workers.length).toBeGreaterThan(0);

    for (const ref of found) {
      const detail = await admin.jobs.detail(prefix, ref.name, '1');
      expect(detail?.data, ref.name).toEqual({ queue: ref.name });
      const rows = await admin.jobs.list(prefix, ref.name, {
        state: NAMES.indexOf(ref.name.slice(1, -1)) < 3 ? 'completed' : 'waiting',
        page: 1,
        pageSize: 10,
      });
      expect(
        rows.jobs.map((row) => row.id),
        ref.name,
      ).toEqual(['1']);
    }
  });

  it('answers the reads that span queues: existing, find-everywhere, roster, Prometheus', async () => {
    const admin = createAdmin(client, { prefixes: [prefix] });
    const { queues: found } = await admin.queues.discover();
    const missing: QueueRef = { prefix, name: '{nowhere}' };
    expect(await admin.queues.existing([...found, missing])).toEqual(found);

    const everywhere = await admin.jobs.findEverywhere('1');
    expect(everywhere.map((hit) => hit.queue).sort()).toEqual(found.map((ref) => ref.name));
    expect(new Set(everywhere.map((hit) => hit.state))).toEqual(new Set(['completed', 'waiting']));

    const roster = await admin.workers.roster(found);
    expect(roster.length).toBeGreaterThan(0);

    const scrape = await admin.metrics.prometheus(100);
    expect(scrape.queues).toBe(NAMES.length);
    expect(scrape.failed).toEqual([]);
    for (const name of NAMES.slice(0, 3)) {
      expect(scrape.text).toMatch(
        new RegExp(`oxmq_queue_workers\\{prefix="${prefix}", queue="\\{${name}\\}"\\} [1-9]`),
      );
    }
  });

  it('delivers live events of queues on different masters', async () => {
    const admin = createAdmin(client, { prefixes: [prefix] });
    const { queues: found } = await admin.queues.discover();
    const latest = await admin.events.latestIds(found);
    expect(latest.every((id) => id !== '0-0')).toBe(true);
    const cursors = found.map((queue, index) => ({ queue, after: latest[index]! }));
    await Promise.all(queues.slice(3).map((queue) => queue.add('second', {})));
    const seen = new Set<string>();
    await waitFor(async () => {
      const batches = await admin.events.read(live, cursors, { blockMs: 500 });
      for (const batch of batches) {
        if (batch.events.some((event) => event.event === 'added')) seen.add(batch.name);
        const cursor = cursors.find((c) => c.queue.name === batch.name)!;
        cursor.after = batch.events[batch.events.length - 1]!.id;
      }
      return seen.size === 3;
    }, 10_000);
    expect([...seen].sort()).toEqual(NAMES.slice(3).map((name) => `{${name}}`));
  });

  it('checks the integrity of queues on several masters, each on its own master', async () => {
    const refs = queues.map((queue) => ({ prefix, name: queue.name }));
    // A small budget: the walk resumes from its cursor call after call.
    for (const ref of refs) {
      const report = await checkQueueIntegrityToEnd(client, ref, { budget: 3 });
      expect(report.clean, ref.name).toBe(true);
      expect(report.scanned, ref.name).toBeGreaterThan(0);
    }
    // A job hash in no state structure on every untouched queue: only a scan of the master that
    // holds the queue's slot finds it, and these queues sit on more than one master.
    const corrupt = queues.slice(3);
    expect(
      new Set(await Promise.all(corrupt.map((queue) => cluster!.masterOfKey(queue.keys.meta))))
        .size,
    ).toBeGreaterThan(1);
    for (const queue of corrupt) {
      await client.hset(`${queue.keys.base}orphan`, {
        name: 'lost',
        data: '{}',
        opts: '{}',
        timestamp: 1,
      });
      const report = await checkQueueIntegrityToEnd(client, { prefix, name: queue.name });
      expect(report.counts['hash-without-state'], queue.name).toBe(1);
      expect(report.samples['hash-without-state'], queue.name).toEqual(['orphan']);
      await client.del(`${queue.keys.base}orphan`);
    }
    // Keys that would spread over slots have no one master to check.
    await expect(checkQueueIntegrity(client, { prefix, name: 'untagged' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('repairs the dangling ids of queues on several masters, each on its own master', async () => {
    const corrupt = queues.slice(3);
    const dangling: string[] = [];
    const waiting: string[][] = [];
    for (const queue of corrupt) {
      waiting.push(await client.lrange(queue.keys.wait, 0, -1));
      const job = await queue.add('dangling', {});
      await client.del(`${queue.keys.base}${job.id!}`);
      dangling.push(job.id!);
    }
    const refs = corrupt.map((queue) => ({ prefix, name: queue.name }));
    for (const ref of refs) {
      expect((await checkQueueIntegrityToEnd(client, ref)).counts['member-without-hash']).toBe(1);
    }
    // The console's path, the engine's one-report path and the CLI's whole walk.
    const admin = createAdmin(client, { prefixes: [prefix] });
    const step = await admin.integrity.repairStep(prefix, refs[0]!.name, { budget: 100 });
    expect(step.repairs).toEqual([
      expect.objectContaining({ code: 'member-without-hash', jobId: dangling[0], applied: true }),
    ]);
    const report = await checkQueueIntegrityToEnd(client, refs[1]!);
    expect(await repairIntegrityFindings(client, refs[1]!, report)).toEqual([
      expect.objectContaining({ code: 'member-without-hash', jobId: dangling[1], applied: true }),
    ]);
    expect(await repairQueueIntegrityToEnd(client, refs[2]!, { budget: 3 })).toEqual([
      expect.objectContaining({ code: 'member-without-hash', jobId: dangling[2], applied: true }),
    ]);
    for (const [index, queue] of corrupt.entries()) {
      expect((await checkQueueIntegrityToEnd(client, refs[index]!)).clean, queue.name).toBe(true);
      // The queue's own jobs are still waiting; only the dangling id left.
      expect(await client.lrange(queue.keys.wait, 0, -1), queue.name).toEqual(waiting[index]);
    }
    await expect(
      repairIntegrityFindings(client, { prefix, name: 'untagged' }, report),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(admin.integrity.repairStep(prefix, 'untagged')).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});
