/**
 * Connected workers of many queues from ONE `CLIENT LIST`.
 *
 * bullmq and OxMQ name a worker's connections `<prefix>:<base64(queue)>` or
 * `<prefix>:<base64(queue)>:w:<workerName>`; QueueEvents readers end in `:qe` and are not
 * workers. Queue.getWorkers() runs CLIENT LIST per queue; a page listing every queue must not,
 * so the list is read once and grouped by the base names of the queues asked for.
 */
import { isCluster, type RedisClient } from '../../backend/redis/connection';
import { parseClientList } from '../../backend/redis/queue-controls';
import { QueueKeys } from '../../queue/keys';
import { groupByNode } from './cluster-reads';
import type { QueueRef } from '../queue-ref';

export interface ConnectedWorker {
  /** Redis client id. */
  id: string;
  /** The Worker's `name` option; undefined for workers started without one. */
  workerName?: string;
  /** The raw client name, as CLIENT LIST shows it. */
  rawname: string;
  addr: string;
  /** Seconds since the connection was opened. */
  age: number;
  /** Seconds since the connection last ran a command (a blocked BZPOPMIN counts as idle). */
  idle: number;
}

export interface QueueWorkers extends QueueRef {
  workers: ConnectedWorker[];
}

/** The client-name stem bullmq and OxMQ give every connection of a queue's workers. */
export function workerClientBase(prefix: string, name: string): string {
  return `${prefix}:${Buffer.from(name).toString('base64')}`;
}

/** Workers of each queue, in the order given; one CLIENT LIST round trip for all of them. */
export async function listWorkers(
  client: RedisClient,
  queues: readonly QueueRef[],
): Promise<QueueWorkers[]> {
  if (queues.length === 0) return [];
  if (!isCluster(client)) return workersInClientList(String(await client.client('LIST')), queues);
  // A node lists only its own clients, and a worker connects to the master of its queue's slot
  // (its other nodes' connections open only as commands need them): each queue's workers are
  // read from that master, one CLIENT LIST per master. The pipeline's key routes it there.
  const meta = (queue: QueueRef) => new QueueKeys(queue.prefix, queue.name).meta;
  const found = new Map<QueueRef, QueueWorkers>();
  await Promise.all(
    groupByNode(client, queues, meta).map(async (group) => {
      const replies = (await client.pipeline().exists(meta(group[0]!)).client('LIST').exec()) ?? [];
      const [error, list] = replies[1] ?? [new Error('no CLIENT LIST reply'), ''];
      if (error) throw error;
      workersInClientList(String(list), group).forEach((entry, index) =>
        found.set(group[index]!, entry),
      );
    }),
  );
  return queues.map((queue) => found.get(queue)!);
}

/**
 * Groups a CLIENT LIST reply by the queues asked for, in their order. Apart from listWorkers so
 * that a caller may send CLIENT LIST inside a pipeline of its own (engine/admin/redis/prometheus/).
 */
export function workersInClientList(list: string, queues: readonly QueueRef[]): QueueWorkers[] {
  const byBase = new Map<string, QueueWorkers>();
  const result = queues.map((queue) => {
    const entry: QueueWorkers = { prefix: queue.prefix, name: queue.name, workers: [] };
    byBase.set(workerClientBase(queue.prefix, queue.name), entry);
    return entry;
  });
  for (const record of parseClientList(list)) {
    const rawname = record.name ?? '';
    if (rawname === '') continue;
    const match = matchWorkerName(rawname, byBase);
    if (!match) continue;
    const worker: ConnectedWorker = {
      id: record.id ?? '',
      rawname,
      addr: record.addr ?? '',
      age: Number(record.age ?? 0),
      idle: Number(record.idle ?? 0),
    };
    if (match.workerName !== undefined) worker.workerName = match.workerName;
    match.queue.workers.push(worker);
  }
  for (const entry of result) entry.workers.sort((a, b) => b.age - a.age);
  return result;
}

/**
 * Finds the queue a client name belongs to. A prefix and a worker name may both contain ":"
 * (even ":w:"), so every ":w:" is tried as the split point rather than only the first.
 */
function matchWorkerName(
  rawname: string,
  byBase: Map<string, QueueWorkers>,
): { queue: QueueWorkers; workerName?: string } | undefined {
  const exact = byBase.get(rawname);
  if (exact) return { queue: exact };
  for (let at = rawname.indexOf(':w:'); at >= 0; at = rawname.indexOf(':w:', at + 1)) {
    const queue = byBase.get(rawname.slice(0, at));
    if (queue) return { queue, workerName: rawname.slice(at + 3) };
  }
  return undefined;
}
