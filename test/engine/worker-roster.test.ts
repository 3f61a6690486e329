/**
 * The Workers page's rows (engine/admin/worker-roster.ts): OxMQ heartbeat records merged with the
 * connections CLIENT LIST names after the queue's workers, next to a real bullmq worker.
 */
import { Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import {
  listWorkerRoster,
  mergeWorkers,
  type ConnectedWorker,
  type WorkerHeartbeatRecord,
} from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

describe('listWorkerRoster', () => {
  it('one row per worker: OxMQ ones with heartbeat and connection, bullmq ones without', async () => {
    const name = uniqueQueueName('roster');
    const redis = track(rawClient());
    track(new Queue(name, connection()));
    const ox = track(
      new Worker(name, async () => 1, { ...connection(), name: 'same', heartbeatInterval: 100 }),
    );
    const twin = track(
      new Worker(name, async () => 1, { ...connection(), name: 'same', heartbeatInterval: 100 }),
    );
    const bull = track(new BullWorker(name, async () => 1, { ...connection(), name: 'bull-w' }));
    await Promise.all([ox.waitUntilReady(), twin.waitUntilReady(), bull.waitUntilReady()]);

    const roster = await waitFor(async () => {
      const [queue] = await listWorkerRoster(redis, [{ prefix: 'bull', name }]);
      const oxmqRows = queue!.rows.filter((row) => row.kind === 'oxmq');
      const ready =
        oxmqRows.length === 2 &&
        oxmqRows.every((row) => row.connections.length === 1) &&
        queue!.rows.some((row) => row.workerName === 'bull-w');
      return ready ? queue : undefined;
    });
    expect(roster!.heartbeatTotal).toBe(2);
    expect(roster!.rows).toHaveLength(3);
    for (const worker of [ox, twin]) {
      const row = roster!.rows.find((r) => r.heartbeat?.id === worker.id)!;
      // Two workers share a name: each row holds its own connection, pinned by address.
      expect(row).toMatchObject({ kind: 'oxmq', workerName: 'same', matchedBy: 'address' });
      expect(row.connections[0]!.addr).toBe(row.heartbeat!.clientAddress);
      expect(row.connections[0]!.addr).toMatch(/:\d+$/);
    }
    const [first, second] = roster!.rows.filter((r) => r.kind === 'oxmq');
    expect(first!.connections[0]!.id).not.toBe(second!.connections[0]!.id);
    const bullRow = roster!.rows.find((r) => r.workerName === 'bull-w')!;
    expect(bullRow).toMatchObject({ kind: 'no-heartbeat' });
    expect(bullRow.heartbeat).toBeUndefined();
    expect(bullRow.connections.map((c) => c.rawname)).toEqual([
      `bull:${Buffer.from(name).toString('base64')}:w:bull-w`,
    ]);
    // The connections as listWorkers gives them stay in the answer.
    expect(roster!.workers).toHaveLength(3);
  });
});

describe('mergeWorkers', () => {
  const now = 1_000_000_000_000;
  const connectionOf = (
    id: string,
    workerName: string | undefined,
    ageS: number,
  ): ConnectedWorker => ({
    id,
    ...(workerName !== undefined && { workerName }),
    rawname: `bull:cQ==${workerName ? `:w:${workerName}` : ''}`,
    addr: `10.0.0.${id}:5000`,
    age: ageS,
    idle: 0,
  });
  const heartbeatOf = (
    id: string,
    workerName: string,
    startedAgoS: number,
  ): WorkerHeartbeatRecord => ({
    id,
    workerName,
    queue: 'q',
    prefix: 'bull',
    host: 'h',
    pid: 1,
    version: 'x',
    concurrency: 1,
    active: 0,
    jobIds: [],
    completed: 0,
    failed: 0,
    lockRenewalFailures: 0,
    quiet: false,
    paused: false,
    startedAt: now - startedAgoS * 1000,
    lastHeartbeat: now,
    heartbeatInterval: 5000,
    // Behind NAT: the address the worker saw is not the one Redis sees.
    clientAddress: '192.168.0.9:1234',
  });

  it('falls back to the same name, pairing by when the connection opened', () => {
    const rows = mergeWorkers(
      [connectionOf('1', 'a', 600), connectionOf('2', 'a', 60), connectionOf('3', undefined, 30)],
      [heartbeatOf('new', 'a', 61), heartbeatOf('old', 'a', 601)],
      now,
    );
    expect(
      rows.map((row) => [
        row.kind,
        row.heartbeat?.id,
        row.connections.map((c) => c.id),
        row.matchedBy,
      ]),
    ).toEqual([
      ['oxmq', 'new', ['2'], 'name'],
      ['oxmq', 'old', ['1'], 'name'],
      ['no-heartbeat', undefined, ['3'], undefined],
    ]);
  });

  it('keeps a heartbeat whose connection was not seen, and never gives it another name', () => {
    const rows = mergeWorkers([connectionOf('1', 'b', 10)], [heartbeatOf('x', 'a', 10)], now);
    expect(rows).toEqual([
      expect.objectContaining({ kind: 'oxmq', workerName: 'a', connections: [] }),
      expect.objectContaining({ kind: 'no-heartbeat', workerName: 'b' }),
    ]);
  });
});
