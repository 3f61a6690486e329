/**
 * One row per worker for the console's Workers page: OxMQ workers from their heartbeat records
 * (redis/worker-heartbeats.ts) merged with every connection CLIENT LIST names after a worker of the
 * queue (redis/workers.ts), so an OxMQ worker is one row with its connection, and a bullmq worker
 * (or an OxMQ one with `heartbeatInterval: 0`) is a row of its own with no heartbeat.
 *
 * Matching: a heartbeat record carries the address Redis sees its worker's named connection
 * come from (`addr`, docs/redis-keys.md), which pins it to one CLIENT LIST entry. When it does
 * not match (NAT, a proxy, an OxMQ worker without that field) a connection with the same worker
 * name is taken instead, the one opened closest to the worker's start.
 */
import type { RedisClient } from '../backend/redis/connection';
import type { QueueRef } from './redis/queues';
import { listWorkerHeartbeats, type WorkerHeartbeatRecord } from './redis/worker-heartbeats';
import { listWorkers, type ConnectedWorker, type QueueWorkers } from './redis/workers';

export type WorkerRosterKind =
  /** An OxMQ worker with a live heartbeat record. */
  | 'oxmq'
  /** A connection no heartbeat claims: a bullmq worker, or an OxMQ one with heartbeats off. */
  | 'no-heartbeat';

export interface WorkerRosterRow {
  kind: WorkerRosterKind;
  /** The Worker's `name` option, when it has one. */
  workerName?: string;
  /** The heartbeat record of an `oxmq` row. */
  heartbeat?: WorkerHeartbeatRecord;
  /** The CLIENT LIST entries of this worker (none when its connection was not seen). */
  connections: ConnectedWorker[];
  /** How an `oxmq` row's connection was found: by address (exact) or by name (a best guess). */
  matchedBy?: 'address' | 'name';
}

/** A queue's connections (as listWorkers gives them) and the rows merged from them. */
export interface QueueWorkerRoster extends QueueWorkers {
  rows: WorkerRosterRow[];
  /** Heartbeat index members of the queue; more than the `oxmq` rows when the list was cut. */
  heartbeatTotal: number;
}

export const WORKER_ROSTER_LIMITS = {
  /** Heartbeat records read per queue (the most recent ones). */
  heartbeatsPerQueue: 100,
} as const;

/**
 * The merged workers of each queue, in the order given: one CLIENT LIST for all of them, then
 * per queue one ZREVRANGE + ZCARD and one pipeline of HGETALLs (at most `heartbeatsPerQueue`).
 */
export async function listWorkerRoster(
  client: RedisClient,
  queues: readonly QueueRef[],
  { now = Date.now() }: { now?: number } = {},
): Promise<QueueWorkerRoster[]> {
  const [connected, heartbeats] = await Promise.all([
    listWorkers(client, queues),
    Promise.all(
      queues.map((queue) =>
        listWorkerHeartbeats(client, queue.prefix, queue.name, {
          limit: WORKER_ROSTER_LIMITS.heartbeatsPerQueue,
        }),
      ),
    ),
  ]);
  return queues.map((queue, index) => ({
    prefix: queue.prefix,
    name: queue.name,
    workers: connected[index]?.workers ?? [],
    rows: mergeWorkers(connected[index]?.workers ?? [], heartbeats[index]?.workers ?? [], now),
    heartbeatTotal: heartbeats[index]?.total ?? 0,
  }));
}

/** Merges one queue's connections and heartbeat records into rows: OxMQ rows first. */
export function mergeWorkers(
  connections: readonly ConnectedWorker[],
  heartbeats: readonly WorkerHeartbeatRecord[],
  now: number,
): WorkerRosterRow[] {
  const unclaimed = new Set(connections);
  const rows = new Map<WorkerHeartbeatRecord, WorkerRosterRow>();
  for (const heartbeat of heartbeats) {
    rows.set(heartbeat, oxmqRow(heartbeat));
  }
  // Exact first, so a guess by name never takes a connection an address pins elsewhere.
  for (const heartbeat of heartbeats) {
    if (!heartbeat.clientAddress) continue;
    const match = [...unclaimed].find(
      (connection) =>
        connection.addr === heartbeat.clientAddress &&
        connection.workerName === heartbeat.workerName,
    );
    if (match) claim(rows.get(heartbeat)!, match, 'address', unclaimed);
  }
  const byStart = [...heartbeats].sort((a, b) => a.startedAt - b.startedAt);
  for (const heartbeat of byStart) {
    const row = rows.get(heartbeat)!;
    if (row.matchedBy) continue;
    let best: ConnectedWorker | undefined;
    let bestGap = Infinity;
    for (const connection of unclaimed) {
      if (connection.workerName !== heartbeat.workerName) continue;
      const gap = Math.abs(now - connection.age * 1000 - heartbeat.startedAt);
      if (gap < bestGap) [best, bestGap] = [connection, gap];
    }
    if (best) claim(row, best, 'name', unclaimed);
  }
  const others = [...unclaimed].map((connection): WorkerRosterRow => ({
    kind: 'no-heartbeat',
    ...(connection.workerName !== undefined && { workerName: connection.workerName }),
    connections: [connection],
  }));
  return [...rows.values(), ...others];
}

function oxmqRow(heartbeat: WorkerHeartbeatRecord): WorkerRosterRow {
  return {
    kind: 'oxmq',
    ...(heartbeat.workerName !== undefined && { workerName: heartbeat.workerName }),
    heartbeat,
    connections: [],
  };
}

function claim(
  row: WorkerRosterRow,
  connection: ConnectedWorker,
  how: 'address' | 'name',
  unclaimed: Set<ConnectedWorker>,
): void {
  row.connections.push(connection);
  row.matchedBy = how;
  unclaimed.delete(connection);
}
