/**
 * engine/admin/redis/error-groups.ts on a real Redis, with jobs failed by a real OxMQ Worker: three
 * errors whose messages vary in ids and numbers make three groups of 100 with the right first and
 * last failure; a scan in successive bounded calls adds up to the same groups, and failures that
 * arrive between calls do not shift it; the cap on distinct groups counts the rest as "other";
 * signatures and samples are of the redacted reason; and a bulk retry filtered by one group's
 * signature moves exactly that group's jobs.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import {
  createBulkOp,
  groupFailedJobs,
  mergeErrorGroups,
  runBulkChunk,
  type ErrorGroupScan,
  type ErrorGroupTally,
} from 'oxmq/admin';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const PER_ERROR = 100;
const client = rawClient();
afterAll(() => client.quit());

type Kind = 'user' | 'timeout' | 'payment' | 'secret';

/** Three errors whose text varies per job the way real failures do. */
function failureOf(kind: Kind, n: number): string {
  if (kind === 'user') return `User ${1000 + n * 7} not found in shard ${n % 5}`;
  if (kind === 'timeout') return `Timeout after ${100 + n}ms connecting to 10.0.${n}.2:6379`;
  if (kind === 'payment') return `Payment '${randomUUID()}' declined (code 0x${n.toString(16)}f)`;
  return `login failed password=hunter${n} for user ${n}`;
}

async function failJobs(name: string, kinds: Kind[], count: number): Promise<Queue> {
  const queue = new Queue(name, { connection: redisOptions() });
  const before = (await queue.getJobCounts('failed')).failed ?? 0;
  await queue.addBulk(
    kinds.flatMap((kind) =>
      Array.from({ length: count }, (_, n) => ({ name: kind, data: { kind, n } })),
    ),
  );
  const worker = new Worker(
    name,
    async (job) => {
      const { kind, n } = job.data as { kind: Kind; n: number };
      throw new Error(failureOf(kind, n));
    },
    { connection: redisOptions(), concurrency: 25 },
  );
  const expected = before + kinds.length * count;
  await waitFor(async () => (await queue.getJobCounts('failed')).failed === expected, 30_000);
  await worker.close();
  return queue;
}

/** Every call's groups merged, following the cursor to the end. */
async function scanAll(name: string, budget: number, between?: () => Promise<void>) {
  let tally: ErrorGroupTally = { groups: [], other: 0 };
  const calls: ErrorGroupScan[] = [];
  let cursor: string | undefined;
  do {
    const scan = await groupFailedJobs(client, 'bull', name, { cursor, budget });
    calls.push(scan);
    tally = mergeErrorGroups(tally, scan);
    cursor = scan.next ?? undefined;
    if (cursor && between) await between();
  } while (cursor);
  return { tally, calls };
}

describe('grouping failed jobs by error', () => {
  const name = uniqueQueueName('error-groups');
  let queue: Queue;
  beforeAll(async () => {
    queue = await failJobs(name, ['user', 'timeout', 'payment'], PER_ERROR);
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('makes one group of 100 per error, with its first and last failure and a sample', async () => {
    const scan = await groupFailedJobs(client, 'bull', name);
    expect(scan).toMatchObject({ scanned: 300, from: 0, to: 300, total: 300, next: null });
    expect(scan.other).toBe(0);
    expect(scan.groups.map((group) => [group.signature, group.count]).sort()).toEqual([
      ["Payment '<str>' declined (code <hex>)", PER_ERROR],
      ['Timeout after <n>ms connecting to <ip>:<port>', PER_ERROR],
      ['User <n> not found in shard <n>', PER_ERROR],
    ]);
    const failed = await queue.getJobs(['failed'], 0, -1);
    for (const group of scan.groups) {
      const kind = group.signature.split(' ')[0]!.toLowerCase();
      const jobs = failed.filter((job) => job.name === kind);
      const finished = jobs.map((job) => job.finishedOn!);
      expect(group.firstSeen).toBe(Math.min(...finished));
      expect(group.lastSeen).toBe(Math.max(...finished));
      const sample = jobs.find((job) => job.id === group.sample.id);
      expect(sample?.failedReason).toBe(group.sample.reason);
    }
  });

  it('adds up to the same groups over successive bounded calls', async () => {
    const whole = await groupFailedJobs(client, 'bull', name);
    const { tally, calls } = await scanAll(name, 70);
    expect(calls.map((call) => call.to)).toEqual([70, 140, 210, 280, 300]);
    expect(calls.every((call) => call.total === 300)).toBe(true);
    expect(calls.at(-1)?.next).toBeNull();
    const counts = (t: ErrorGroupTally) =>
      t.groups.map((g) => [g.signature, g.count, g.firstSeen, g.lastSeen]).sort();
    expect(counts(tally)).toEqual(counts(whole));
  });

  it('is not shifted by failures that arrive between calls', async () => {
    const other = uniqueQueueName('error-groups-arrivals');
    const growing = await failJobs(other, ['user'], 60);
    let added = false;
    const { tally, calls } = await scanAll(other, 25, async () => {
      if (added) return;
      added = true;
      // These rank first (newest); the cursor resumes after the last job the call saw.
      await failJobs(other, ['timeout'], 30).then((q) => q.close());
    });
    expect(tally.groups.map((g) => [g.signature, g.count])).toEqual([
      ['User <n> not found in shard <n>', 60],
    ]);
    expect(calls.at(-1)?.total).toBe(90);
    await growing.obliterate({ force: true });
    await growing.close();
  });

  it('counts signatures past the cap on distinct groups as other', async () => {
    const scan = await groupFailedJobs(client, 'bull', name, { maxGroups: 2 });
    expect(scan.groups).toHaveLength(2);
    expect(scan.other).toBe(PER_ERROR);
    const merged = mergeErrorGroups(scan, { groups: [], other: 0 }, 1);
    expect(merged.groups).toHaveLength(1);
    expect(merged.other).toBe(2 * PER_ERROR);
  });

  it('refuses a malformed cursor', async () => {
    await expect(groupFailedJobs(client, 'bull', name, { cursor: 'nope' })).rejects.toThrow(
      /cursor/,
    );
  });
});

describe('error groups and redaction', () => {
  const name = uniqueQueueName('error-groups-redacted');
  let queue: Queue;
  beforeAll(async () => {
    queue = await failJobs(name, ['secret'], 5);
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('groups and samples the redacted reason', async () => {
    const scan = await groupFailedJobs(client, 'bull', name);
    expect(scan.groups).toHaveLength(1);
    expect(scan.groups[0]?.signature).toBe('login failed password=[redacted] for user <n>');
    expect(scan.groups[0]?.sample.reason).toMatch(/^login failed password=\[redacted\] for user/);
    expect(JSON.stringify(scan)).not.toContain('hunter');
  });
});

describe('a bulk operation over one error group', () => {
  const name = uniqueQueueName('error-groups-bulk');
  let queue: Queue;
  beforeAll(async () => {
    queue = await failJobs(name, ['user', 'timeout'], 40);
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('retries exactly the jobs of the group', async () => {
    const signature = 'Timeout after <n>ms connecting to <ip>:<port>';
    let op = await createBulkOp(client, {
      prefix: 'bull',
      name,
      action: 'retry',
      state: 'failed',
      filter: { mode: 'error', query: signature },
      actor: 'test',
    });
    while (op.status === 'running') op = (await runBulkChunk(client, op.id, 30))!;
    expect(op).toMatchObject({ status: 'done', done: 40, examined: 80, skipped: 0 });
    const waiting = await queue.getJobs(['waiting'], 0, -1);
    expect(waiting).toHaveLength(40);
    expect(waiting.every((job) => job.name === 'timeout')).toBe(true);
    const scan = await groupFailedJobs(client, 'bull', name);
    expect(scan.groups.map((g) => [g.signature, g.count])).toEqual([
      ['User <n> not found in shard <n>', 40],
    ]);
  });
});
